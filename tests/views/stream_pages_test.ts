/**
 * `_stream=on` exports whose pages the read workers write as lines: every row, in order, the
 * same bytes as the main thread writes, whatever the page boundaries.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";

function buildDb(rows: number): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-stream-" });
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`create table t (id integer primary key, name text, price real, note text, big integer);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < ${rows})
    insert into t select i,
      case i % 4 when 0 then 'comma, "quoted"' when 1 then 'émoji 🌳' when 2 then null
        else 'line' || char(13, 10) || 'break' end,
      case when i % 3 = 0 then i else i / 8.0 end,
      case when i % 5 = 0 then '' else 'n' || i end,
      case when i % 7 = 0 then 9007199254740993 else i end
    from n;
    create view evens as select * from t where id % 2 = 0;`);
  conn.close();
  return path;
}

/**
 * The same immutable file served twice, 500 rows a page: exports written by read workers, and
 * exports written on the main thread (`num_sql_threads` 0).
 */
function bothWays(path: string, more: Record<string, unknown> = {}) {
  const settings = { max_returned_rows: 500, ...more };
  const workers = new Service({ immutables: [path], settings });
  const main = new Service({ immutables: [path], settings: { ...settings, num_sql_threads: 0 } });
  return {
    workers,
    main,
    async [Symbol.asyncDispose]() {
      await workers[Symbol.asyncDispose]();
      await main[Symbol.asyncDispose]();
    },
  };
}

// 5500: the rows after the first page fill whole cursor chunks (5000), so the last one is empty.
for (const rows of [1500, 1499, 1501, 5500]) {
  Deno.test(`a ${rows}-row export in pages of 500 is whole and the same from workers`, () =>
    // An export that stops short leaves its response unfinished: fail instead of hanging the run.
    failAfter(120_000, async () => {
      const path = buildDb(rows);
      await using both = bothWays(path);
      const { workers, main } = both;
      for (const format of ["csv", "tsv", "ndjson"]) {
        // A view and custom SQL (no key to page by) are read through one cursor too.
        for (
          const other of [
            `/data/evens.${format}?_stream=on`,
            `/data/-/query.${format}?sql=${
              encodeURIComponent("select * from t order by id")
            }&_stream=on`,
          ]
        ) {
          const a = (await workers.client.get(other)).text;
          assert.equal(a, (await main.client.get(other)).text, other);
          assert.ok(a.length > 1000, other);
        }
        const url = `/data/t.${format}?_stream=on`;
        const fromWorkers = (await workers.client.get(url)).text;
        const fromMain = (await main.client.get(url)).text;
        assert.equal(fromWorkers, fromMain, format);
        const ids = format === "ndjson"
          ? fromWorkers.trim().split("\n").map((line) => JSON.parse(line).id)
          : [...fromWorkers.matchAll(/^(\d+)[,\t]/gm)].map((m) => Number(m[1]));
        assert.deepEqual(ids, Array.from({ length: rows }, (_, i) => i + 1), format);
      }
    }));
}

Deno.test("an export with BLOB cells here and there is the same from workers as from the main thread", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-stream-" });
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  // BLOBs in the middle of a worker's chunk (after rows it wrote as lines), at the start of
  // one, and in a run of batches.
  conn.exec(`create table t (id integer primary key, name text, data blob);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 7000)
    insert into t select i, 'n' || i,
      case when i in (1200, 5501) or i between 3000 and 4100 then cast(x'00ff' || i as blob) end
      from n;`);
  conn.close();
  await using both = bothWays(path);
  const { workers, main } = both;
  for (const format of ["csv", "tsv", "ndjson"]) {
    const url = `/data/t.${format}?_stream=on`;
    const fromWorkers = (await workers.client.get(url)).text;
    assert.equal(fromWorkers, (await main.client.get(url)).text, format);
    const lines = fromWorkers.trim().split(/\r?\n/);
    assert.equal(lines.length, format === "ndjson" ? 7000 : 7001, format);
    // CSV and TSV link to the BLOB's download; NDJSON has it inline, as base64.
    const blob = format === "ndjson" ? '"$base64":true' : "/data/t/1200.blob?_blob_column=data";
    assert.ok(fromWorkers.includes(blob), format);
  }
});

/** Runs `fn`, failing the test if it has not finished within `ms`. */
async function failAfter(ms: number, fn: () => Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not finished after ${ms} ms`)), ms);
  });
  try {
    await Promise.race([fn(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("a wide table and texts of megabytes export the same from workers", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-stream-" });
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  // 1,900 columns: a worker batch holds four rows, not 500 (its arrays are kept between batches).
  const columns = Array.from({ length: 1900 }, (_, i) => `c${i}`);
  conn.exec(`create table wide (id integer primary key, ${columns.join(", ")});
    create table long (id integer primary key, body text);`);
  const values = columns.map((_, i) => (i % 3 === 0 ? `'v${i}'` : i % 3 === 1 ? `${i}.5` : "null"));
  for (let row = 1; row <= 1200; row++) {
    conn.exec(`insert into wide values (${row}, ${values.join(", ")})`);
  }
  // Texts longer than the buffers a worker keeps for its next batch (quotes to double, too).
  conn.exec(`insert into long (body)
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 1200)
    select case when i % 400 = 0 then replace(hex(zeroblob(3000000)), '00', 'a"') else 'x' || i end
    from n;`);
  conn.close();
  // Pages of 500 rows of 1,900 columns: on a machine busy with other tests, not a time limit.
  await using both = bothWays(path, { sql_time_limit_ms: 30_000 });
  for (const format of ["csv", "ndjson"]) {
    for (const table of ["wide", "long"]) {
      const url = `/data/${table}.${format}?_stream=on`;
      const fromWorkers = (await both.workers.client.get(url)).text;
      assert.equal(fromWorkers, (await both.main.client.get(url)).text, url);
      assert.equal(fromWorkers.trim().split("\n").length, format === "csv" ? 1201 : 1200, url);
    }
  }
});
