/**
 * Streamed exports over real HTTP: a failure after the status went out aborts the body (the client
 * sees an incomplete download, never a 200 whose last line is the error), and a labelled export is
 * whole whatever request ran before it.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import { quietly } from "../fixtures/quietly.ts";
import { rawGet, served } from "./_raw_http.ts";

const KILL_PLUGIN = new URL("./stream_kill_plugin.ts", import.meta.url).pathname;

/** Rows 1 to 20,000, of which row `at` fails with `failing` (an SQL expression). */
function failingAt(at: number, failing: string): string {
  return encodeURIComponent(
    "with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000) " +
      `select i, case when i = ${at} then ${failing} else i end as v from n`,
  );
}

/** The ids of whole CSV or NDJSON lines, in order (a body cut mid-line loses its last). */
function idsOf(text: string, format: string): number[] {
  const whole = text.slice(0, text.lastIndexOf("\n") + 1);
  return format === "ndjson"
    ? whole.split("\n").filter(Boolean).map((line) => JSON.parse(line).i).filter((i) =>
      i !== undefined
    )
    : whole.split("\r\n").slice(1).filter(Boolean).map((line) => Number(line.split(",")[0]));
}

Deno.test("an SQL error mid-stream aborts the body: no data line holds it, gzip or not", async () => {
  await using svc = shopService({ settings: { max_returned_rows: 100 } });
  await using server = await served(svc);
  const sql = failingAt(15_000, "abs(-9223372036854775808)"); // integer overflow
  const logged: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => logged.push(args.join(" "));
  try {
    for (const coding of [null, "gzip", "br"]) {
      for (const format of ["csv", "tsv", "ndjson"]) {
        const path = `/shop/-/query.${format}?sql=${sql}&_stream=on`;
        const response = await rawGet(
          server.port,
          path,
          coding ? { "accept-encoding": coding } : {},
        );
        const what = `${format} ${coding ?? "identity"}`;
        assert.equal(response.status, 200, what);
        assert.equal(response.headers.get("content-encoding"), coding, what);
        assert.equal(response.complete, false, `${what}: the body must end without its last chunk`);
        assert.doesNotMatch(response.text, format === "ndjson" ? /^[^{]/m : /overflow/, what);
        if (format === "ndjson") {
          // The reason may come as one more JSON line before the cut, never instead of it.
          const last = response.text.trimEnd().split("\n").at(-1)!;
          if (last.includes("error")) {
            assert.deepEqual(JSON.parse(last), { error: "integer overflow" });
          }
        }
        if (format !== "tsv") {
          const ids = idsOf(response.text, format);
          assert.deepEqual(ids, ids.map((_, i) => i + 1), `${what}: rows in order until the cut`);
          assert.ok(ids.length < 15_000, what);
        }
      }
    }
  } finally {
    console.error = original;
  }
  // The server's log says which export stopped and why.
  assert.ok(
    logged.some((line) =>
      /Export \/shop\/-\/query\.csv stopped after \d+ bytes: integer overflow/.test(line)
    ),
    logged.join("\n"),
  );
  // fetch() sees the failure too: reading the body rejects.
  const response = await fetch(`${server.url}/shop/-/query.csv?sql=${sql}&_stream=on`);
  assert.equal(response.status, 200);
  await quietly(() => assert.rejects(response.text()));
});

Deno.test("a read worker killed mid-export: the client sees an incomplete body", async () => {
  await using svc = shopService({
    plugins: [KILL_PLUGIN],
    settings: { max_returned_rows: 100, num_sql_threads: 1 },
  });
  await using server = await served(svc);
  const sql = failingAt(12_000, "kill_read_worker()");
  for (const coding of [null, "gzip"]) {
    const response = await quietly(() =>
      rawGet(
        server.port,
        `/shop/-/query.csv?sql=${sql}&_stream=on`,
        coding ? { "accept-encoding": coding } : {},
      )
    );
    assert.equal(response.status, 200);
    assert.equal(response.complete, false, coding ?? "identity");
    assert.doesNotMatch(response.text, /worker|closed|gone/i);
    const ids = idsOf(response.text, "csv");
    assert.deepEqual(ids, ids.map((_, i) => i + 1));
    assert.ok(ids.length < 12_000);
  }
  // The pool replaced the worker: the next export is whole.
  const fine = encodeURIComponent("select id from products order by id");
  const after = await rawGet(server.port, `/shop/-/query.csv?sql=${fine}&_stream=on`);
  assert.equal(after.complete, true);
  assert.equal(after.text.split("\r\n")[0], "id");
});

Deno.test("a labelled export after a write is whole, with and without compression", async () => {
  // The write's request is long over when the export runs: before the fix an identity-encoded
  // body was pulled as part of that request, so its label lookup ran out of time at once.
  const grants = { "insert-row": { id: "writer" } };
  await using svc = shopService({
    secret: "stream-tests",
    settings: { sql_time_limit_ms: 500 },
    metadata: { databases: { shop: { permissions: grants } } },
  });
  await using server = await served(svc);
  const expected = "id,category_id,category_id_label\r\n1,1,Kitchen\r\n2,1,Kitchen\r\n3,,\r\n";
  const paths = [
    "/shop/products.csv?_labels=on&_col=category_id&_size=3",
    "/shop/products.csv?_labels=on&_col=category_id&_size=3&_sort=id",
  ];
  assert.equal((await rawGet(server.port, paths[0])).text, expected);
  const inserted = await fetch(`${server.url}/shop/categories/-/insert`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${svc.create_token("writer", {})}`,
    },
    body: JSON.stringify({ row: { name: "Paint" } }),
  });
  assert.equal(inserted.status, 201, await inserted.text());
  await new Promise((resolve) => setTimeout(resolve, 700));
  for (const path of [...paths, `${paths[0]}&_stream=on`]) {
    for (const coding of [null, "gzip", "br"]) {
      const response = await rawGet(server.port, path, coding ? { "accept-encoding": coding } : {});
      const what = `${path} ${coding ?? "identity"}`;
      assert.equal(response.complete, true, what);
      const want = path.includes("_stream")
        ? (await rawGet(
          server.port,
          path.replace("_size=3", "_size=max").replace("&_stream=on", ""),
        ))
          .text
        : expected;
      assert.equal(response.text, want, what);
    }
  }
});

Deno.test("rows written while a stream is read are not in it: one snapshot, every row once", async () => {
  await using svc = shopService();
  const db = svc.get_database("shop");
  await db.execute_write_script(`
    create table places (id integer primary key, name text);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 30000)
    insert into places select i, 'place ' || i from n;
  `);
  await using server = await served(svc);
  for (
    const path of [
      "/shop/places.csv?_stream=on",
      `/shop/-/query.csv?sql=${encodeURIComponent("select * from places order by id")}&_stream=on`,
    ]
  ) {
    await db.execute_write("delete from places where id > 30000");
    const response = await fetch(`${server.url}${path}`);
    const reader = response.body!.getReader();
    const parts: Uint8Array[] = [(await reader.read()).value!];
    // Rows written (and deleted) after the export started, before most of it is read.
    await db.execute_write_script(`
      delete from places where id % 2 = 0;
      with recursive n(i) as (select 30001 union all select i + 1 from n where i < 31000)
      insert into places select i, 'late ' || i from n;
    `);
    for (let part = await reader.read(); !part.done; part = await reader.read()) {
      parts.push(part.value);
    }
    const text = new TextDecoder().decode(
      new Uint8Array(await new Blob(parts as BlobPart[]).arrayBuffer()),
    );
    const ids = text.trimEnd().split("\r\n").slice(1).map((line) => Number(line.split(",")[0]));
    assert.equal(ids.length, 30000, path);
    assert.deepEqual(ids, Array.from({ length: 30000 }, (_, i) => i + 1), path);
    await db.execute_write_script(`
      with recursive n(i) as (select 2 union all select i + 2 from n where i < 30000)
      insert into places select i, 'place ' || i from n;
    `);
  }
});

Deno.test("an export whose body is never read (HEAD, refused, cancelled) leaves no cursor open", async () => {
  await using svc = shopService({ settings: { allow_csv_stream: true } });
  await svc.get_database("shop").execute_write_script(`
    create table places (id integer primary key, name text);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000)
    insert into places select i, 'place ' || i from n;
  `);
  await using server = await served(svc);
  const query = `/shop/-/query.csv?sql=${encodeURIComponent("select * from places")}&_stream=on`;
  for (const path of ["/shop/places.csv?_stream=on", query]) {
    const head = await fetch(`${server.url}${path}`, { method: "HEAD" });
    assert.equal(head.status, 200);
    await head.body?.cancel();
    assert.equal((await rawGet(server.port, `${path}&_next=5`)).status, 400);
    // A client that reads a little and goes away.
    const response = await fetch(`${server.url}${path}`);
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
  }
  const deadline = Date.now() + 5000;
  while (svc.readPool().cursors > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(svc.readPool().cursors, 0);
});
