/**
 * `POST /<db>/<table>/-/upload`: parts of a CSV or TSV file, read by the importer, each part one
 * transaction. The browser's cutting of a file into parts is tested in
 * tests/browser/upload_browser_test.ts and tests/static/upload_parts_test.ts.
 */
import assert from "node:assert/strict";
import { auth, errorsOf, fileRows, post, withWriter, writeService } from "./_write_helpers.ts";
import { shopService } from "../../fixtures/shop.ts";
import { encodeActorCookie } from "../../../src/auth/actor_cookie.ts";
import type { Service } from "../../../src/service.ts";
import type { ClientResponse } from "../../../src/http/client.ts";
import { Connection } from "../../../src/sqlite/mod.ts";

/** POSTs `text` as a part of a CSV file (or `headers`' content type) to `/shop/<table>/-/upload`. */
function upload(
  svc: Service,
  table: string,
  query: string,
  text: string | Uint8Array<ArrayBuffer>,
  headers: Record<string, string> = auth(svc),
): Promise<ClientResponse> {
  return svc.client.post(`/shop/${table}/-/upload${query ? `?${query}` : ""}`, {
    body: text,
    headers: { "content-type": "text/csv", ...headers },
  });
}

Deno.test("parts of a file: the first creates the table, the next append with their lines", async () => {
  await withWriter(async (svc) => {
    const first = await upload(
      svc,
      "deliveries",
      "create=1&pk=code&type=text&type=&type=text",
      'code,label,amount\n0001,"Seeds, boxed",1.5\n0002,"two\nlines",2\n',
    );
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(first.json(), {
      ok: true,
      database: "shop",
      table: "deliveries",
      table_url: "http://localhost/shop/deliveries",
      created: true,
      row_count: 2,
      columns: ["code", "label", "amount"],
      next_line: 5,
    });
    const second = await upload(
      svc,
      "deliveries",
      "column=code&column=label&column=amount&line=5&continue=1",
      "0003,Bulbs,3.25\n0004,,\n",
    );
    assert.equal(second.status, 201, second.text);
    assert.equal(second.json().created, false);
    assert.equal(second.json().row_count, 2);
    assert.equal(second.json().next_line, 7);
    assert.deepEqual(
      fileRows(svc, "select code, label, amount, typeof(amount) t from deliveries order by code"),
      [
        { code: "0001", label: "Seeds, boxed", amount: "1.5", t: "text" },
        { code: "0002", label: "two\nlines", amount: "2", t: "text" },
        { code: "0003", label: "Bulbs", amount: "3.25", t: "text" },
        { code: "0004", label: null, amount: null, t: "null" },
      ],
    );
    assert.deepEqual(
      fileRows(svc, "select name, type, pk from pragma_table_info('deliveries')"),
      [
        { name: "code", type: "TEXT", pk: 1 },
        { name: "label", type: "TEXT", pk: 0 },
        { name: "amount", type: "TEXT", pk: 0 },
      ],
    );
    // The table is served at once.
    const rows = (await svc.client.get("/shop/deliveries.json?_shape=array")).json();
    assert.equal(rows.length, 4);
  });
});

Deno.test("a failed part names the file's line and leaves none of its rows", async () => {
  await withWriter(async (svc) => {
    await upload(svc, "parts", "create=1&pk=id", "id,name\n1,a\n2,b\n");
    const failed = await upload(
      svc,
      "parts",
      "column=id&column=name&line=4&continue=1",
      '3,c\n4,"d\nd"\n2,again\n5,e\n',
    );
    assert.equal(failed.status, 400);
    assert.deepEqual(errorsOf(failed), [
      "line 7: UNIQUE constraint failed: parts.id (a repeated key)",
    ]);
    assert.equal(failed.json().line, 7);
    assert.deepEqual(fileRows(svc, "select id from parts order by id"), [{ id: 1 }, { id: 2 }]);
    // A row with more fields than the header, and a quote left open.
    const ragged = await upload(svc, "parts", "column=id&column=name&line=9", "6,f\n7,g,extra\n");
    assert.deepEqual(errorsOf(ragged), [
      "line 10: the row has 3 fields but the header names 2 columns",
    ]);
    const open = await upload(svc, "parts", "column=id&column=name&line=20", '8,"h\n');
    assert.match(errorsOf(open)[0], /^line 20: a quoted field is not closed/);
    // Without a header: a column the table lacks is named.
    const unknown = await upload(svc, "parts", "column=id&column=colour", "9,red\n");
    assert.deepEqual(errorsOf(unknown), [
      'line 1: The table "parts" has no column "colour"',
    ]);
    assert.deepEqual(fileRows(svc, "select count(*) n from parts"), [{ n: 2 }]);
  });
});

Deno.test("a later part widens a column the first part created, as one import would", async () => {
  await withWriter(async (svc) => {
    await upload(svc, "codes", "create=1", "code,n\n12,1\n13,2\n");
    assert.deepEqual(
      fileRows(svc, "select name, type from pragma_table_info('codes')"),
      [{ name: "code", type: "INTEGER" }, { name: "n", type: "INTEGER" }],
    );
    const next = await upload(
      svc,
      "codes",
      "column=code&column=n&line=4&continue=1",
      "007,2.5\n",
    );
    assert.equal(next.status, 201, next.text);
    assert.deepEqual(
      fileRows(svc, "select code, typeof(code) t, n from codes order by rowid"),
      [
        { code: "12", t: "text", n: 1 },
        { code: "13", t: "text", n: 2 },
        { code: "007", t: "text", n: 2.5 },
      ],
    );
    // A table changed meanwhile is not rebuilt (its index would be lost): the part is refused.
    await svc.get_database("shop").execute_write("create index codes_n on codes (n)");
    const refused = await upload(svc, "codes", "column=code&column=n&continue=1", "x,1\n");
    assert.equal(refused.status, 400);
    assert.match(errorsOf(refused)[0], /is no longer as this upload created it/);
    // Appending to a table as it is (no "continue"): the column's type decides, as in SQLite.
    const plain = await upload(svc, "categories", "column=id&column=name", "20,Tools\n");
    assert.equal(plain.status, 201, plain.text);
    assert.deepEqual(fileRows(svc, "select name from categories where id = 20"), [
      { name: "Tools" },
    ]);
  });
});

Deno.test("encodings: UTF-8 by default, a charset when named, never a replacement character", async () => {
  await withWriter(async (svc) => {
    const utf8 = await upload(svc, "names", "create=1", "name\nZoë\n日本\n");
    assert.equal(utf8.status, 201, utf8.text);
    const latin1 = await upload(
      svc,
      "names",
      "column=name",
      new Uint8Array([0x4a, 0x6f, 0xeb, 0x6c, 0x0a]),
      { ...auth(svc), "content-type": "text/csv; charset=latin-1" },
    );
    assert.equal(latin1.status, 201, latin1.text);
    const broken = await upload(
      svc,
      "names",
      "column=name",
      new Uint8Array([0x4a, 0x6f, 0xeb, 0x6c, 0x0a]),
    );
    assert.equal(broken.status, 400);
    assert.deepEqual(errorsOf(broken), ["The body is not valid utf-8 text: send UTF-8"]);
    assert.deepEqual(fileRows(svc, "select name from names order by rowid"), [
      { name: "Zoë" },
      { name: "日本" },
      { name: "Joël" },
    ]);
    // TSV by its content type.
    const tsv = await upload(svc, "tabs", "create=1", "a\tb\n1,5\tx\n", {
      ...auth(svc),
      "content-type": "text/tab-separated-values",
    });
    assert.equal(tsv.status, 201, tsv.text);
    assert.deepEqual(fileRows(svc, "select a, b from tabs"), [{ a: "1,5", b: "x" }]);
  });
});

Deno.test("bad requests: options, content type, size, the table", async () => {
  await withWriter(async (svc) => {
    const cases: [string, string, string, Record<string, string> | null, number, string][] = [
      ["categories", "create=1", "id\n1\n", null, 400, "Table already exists: categories"],
      ["nope", "column=id", "1\n", null, 404, "Table not found: nope"],
      ["new", "create=1&type=number", "a\n1\n", null, 400, 'Invalid type "number"'],
      ["sqlite_new", "create=1", "a\n1\n", null, 400, "Invalid table name"],
      ["new", "create=1&type=text", "a,b\n1,2\n", null, 400, "1 column types were given"],
      ["new", "create=1&size=2", "a\n1\n", null, 400, 'Invalid parameter: "size"'],
      ["new", "create=1&line=0", "a\n1\n", null, 400, '"line" is a line number'],
      ["new", "create=1&column=a", "1\n", null, 400, "made from the header row"],
      ["categories", "continue=1", "1\n", null, 400, '"continue" is for the parts after'],
      ["new", "create=1", "", null, 400, "The file is empty: there is no header row"],
      ["new", "create=1", "a\n1\n", { "content-type": "application/json" }, 400, "text/csv"],
    ];
    for (const [table, query, text, headers, status, message] of cases) {
      const response = await upload(svc, table, query, text, { ...auth(svc), ...headers });
      assert.equal(response.status, status, `${query}: ${response.text}`);
      assert.ok(errorsOf(response)[0].includes(message), `${query}: ${response.text}`);
    }
    assert.deepEqual(fileRows(svc, "select name from sqlite_master where name = 'new'"), []);
    const get = await svc.client.get("/shop/categories/-/upload");
    assert.equal(get.status, 405);
  });
  // The size limit is max_post_body_bytes.
  await withWriter(async (svc) => {
    const big = "id,name\n" + "1,abcdefghij\n".repeat(200);
    const response = await upload(svc, "big", "create=1", big);
    assert.equal(response.status, 413);
    assert.deepEqual(errorsOf(response), [
      "A part of an upload is at most 1,000 bytes (max_post_body_bytes): send smaller parts",
    ]);
  }, { settings: { max_post_body_bytes: 1000 } });
});

Deno.test("permissions: create-table and insert-row to create, insert-row to append", async () => {
  const only = (actions: string[]) =>
    shopService({
      secret: "upload-tests",
      metadata: {
        databases: {
          shop: {
            permissions: Object.fromEntries(actions.map((action) => [action, { id: "u" }])),
          },
        },
      },
    });
  {
    await using svc = only(["insert-row"]);
    const create = await upload(svc, "t", "create=1", "a\n1\n", auth(svc, "u"));
    assert.equal(create.status, 403);
    const append = await upload(svc, "categories", "column=name", "Tools\n", auth(svc, "u"));
    assert.equal(append.status, 201, append.text);
    const anonymous = await upload(svc, "categories", "column=name", "Tools\n", {});
    assert.equal(anonymous.status, 403);
  }
  {
    await using svc = only(["create-table"]);
    const create = await upload(svc, "t", "create=1", "a\n1\n", auth(svc, "u"));
    assert.equal(create.status, 403);
    assert.deepEqual(errorsOf(create), ["Permission denied: need insert-row"]);
  }
  {
    await using svc = only(["create-table", "insert-row"]);
    const create = await upload(svc, "t", "create=1", "a\n1\n", auth(svc, "u"));
    assert.equal(create.status, 201, create.text);
  }
});

Deno.test("browser sessions: CSV parts pass the CSRF check like JSON; forms and cross-site do not", async () => {
  await withWriter(async (svc) => {
    const cookies = { ds_actor: encodeActorCookie(svc.signer, { id: "writer" }) };
    const send = (headers: Record<string, string>) =>
      svc.client.post("/shop/categories/-/upload?column=name", {
        body: "From the page\n",
        cookies,
        headers: { "content-type": "text/csv", ...headers },
      });
    assert.equal((await send({ "sec-fetch-site": "same-origin" })).status, 201);
    assert.equal((await send({ "sec-fetch-site": "cross-site" })).status, 403);
    // A form can send text/plain: that needs the token, and is no CSV part anyway.
    const plain = await send({ "content-type": "text/plain" });
    assert.equal(plain.status, 403);
    assert.deepEqual(
      fileRows(svc, "select count(*) n from categories where name = 'From the page'"),
      [{ n: 1 }],
    );
  });
});

Deno.test("an uploaded part is recorded in the history, one request", async () => {
  await using svc = writeService();
  const response = await upload(svc, "logged", "create=1&pk=id", "id,v\n1,a\n2,b\n3,c\n");
  assert.equal(response.status, 201, response.text);
  const changes = (await svc.client.get("/shop/-/history.json?table=logged")).json().changes;
  assert.equal(changes.length, 3);
  assert.equal(new Set(changes.map((change: { request_id: string }) => change.request_id)).size, 1);
  assert.deepEqual(changes.map((change: { after: unknown }) => change.after).reverse(), [
    { id: 1, v: "a" },
    { id: 2, v: "b" },
    { id: 3, v: "c" },
  ]);
});

Deno.test("appending: a number column refuses text, naming line and column; the search index follows", async () => {
  await withWriter(async (svc) => {
    const columns = "column=id&column=name&column=category_id&column=price";
    const bad = await upload(
      svc,
      "products",
      `${columns}&line=40`,
      "50,Trowel,1,4.5\n51,Rake,1,abc\n",
    );
    assert.equal(bad.status, 400);
    assert.deepEqual(errorsOf(bad), ['line 41: column price is REAL: "abc" is not a number']);
    assert.equal(bad.json().line, 41);
    assert.deepEqual(fileRows(svc, "select count(*) n from products where id >= 50"), [{ n: 0 }]);
    // Number text SQLite reads as a number is fine (" 7 ", "1e3"); a foreign key still holds.
    const good = await upload(svc, "products", columns, "50,Trowel,1, 7 \n51,Rake,1,1e3\n");
    assert.equal(good.status, 201, good.text);
    assert.deepEqual(
      fileRows(svc, "select price, typeof(price) t from products where id >= 50 order by id"),
      [{ price: 7, t: "real" }, { price: 1000, t: "real" }],
    );
    const orphan = await upload(svc, "products", columns, "52,Hoe,999,1\n");
    assert.equal(orphan.status, 400);
    assert.match(errorsOf(orphan)[0], /^line 1: FOREIGN KEY constraint failed/);
    // products_fts (content=products) follows the table: the search box finds the new rows.
    const found = await svc.client.get("/shop/products.json?_search=Rake&_shape=array");
    assert.deepEqual(found.json().map((row: { id: number }) => row.id), [51]);
  });
});

Deno.test("a new table's column of ISO dates gets the date type; a later part's other text takes it away", async () => {
  await withWriter(async (svc) => {
    const types = async () =>
      Object.fromEntries(
        [...await svc.column_type_store.forTable("shop", "visits")].map(([c, a]) => [c, a?.type]),
      );
    const first = await upload(
      svc,
      "visits",
      "create=1",
      "day,at,note\n2024-03-01,2024-03-01T10:00:00,a\n2024-03-02,,b\n",
    );
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(await types(), { day: "date", at: "datetime" });
    const columns = "column=day&column=at&column=note&continue=1";
    const dates = await upload(svc, "visits", `${columns}&line=4`, "2024-03-03,,c\n");
    assert.equal(dates.status, 201, dates.text);
    assert.deepEqual(await types(), { day: "date", at: "datetime" });
    const other = await upload(svc, "visits", `${columns}&line=5`, "soon,2024-03-04T09:30:00,d\n");
    assert.equal(other.status, 201, other.text);
    assert.deepEqual(await types(), { day: undefined, at: "datetime" });
    assert.deepEqual(fileRows(svc, "select day from visits order by rowid"), [
      { day: "2024-03-01" },
      { day: "2024-03-02" },
      { day: "2024-03-03" },
      { day: "soon" },
    ]);
  });
});

Deno.test("appending: a column with a column type refuses what /-/insert refuses, naming line and column", async () => {
  await withWriter(async (svc) => {
    const first = await upload(svc, "visits", "create=1", "day,note\n2024-03-01,a\n");
    assert.equal(first.status, 201, first.text);
    // A table page's upload: the header row, then a value the date type refuses on line 3.
    const bad = await upload(svc, "visits", "", "day,note\n2024-03-02,b\nsoon,c\n");
    assert.equal(bad.status, 400);
    assert.deepEqual(errorsOf(bad), [
      "line 3: column day: Must be a date in the form YYYY-MM-DD",
    ]);
    assert.equal(bad.json().line, 3);
    const insert = await svc.client.post("/shop/visits/-/insert", {
      json: { row: { day: "soon", note: "c" } },
      headers: auth(svc),
    });
    assert.equal(insert.status, 400);
    assert.deepEqual(fileRows(svc, "select day from visits order by rowid"), [{
      day: "2024-03-01",
    }]);
    // A later part of the file that made the table takes its date type away instead (above);
    // another type set meanwhile is held to.
    await svc.column_type_store.set("shop", "visits", "note", { type: "email", config: null });
    const email = await upload(
      svc,
      "visits",
      "column=day&column=note&line=9&continue=1",
      "2024-03-09,ann@example.com\nsoon,nobody\n",
    );
    assert.equal(email.status, 400);
    assert.deepEqual(errorsOf(email), ["line 10: column note: Must be an email address"]);
    await svc.column_type_store.set("shop", "visits", "note", null);
    // Empty is NULL, which the type takes; parts without a header name their columns.
    const good = await upload(svc, "visits", "column=day&column=note&line=2", "2024-03-02,b\n,c\n");
    assert.equal(good.status, 201, good.text);
    assert.deepEqual(fileRows(svc, "select day from visits order by rowid"), [
      { day: "2024-03-01" },
      { day: "2024-03-02" },
      { day: null },
    ]);
  });
});

Deno.test("the type menu's choices are honoured: text keeps no date type, date and datetime are held to", async () => {
  await withWriter(async (svc) => {
    const types = async () =>
      Object.fromEntries(
        [...await svc.column_type_store.forTable("shop", "events")].map(([c, a]) => [c, a?.type]),
      );
    // By position: day left to the data (a date), opened chosen as text, starts chosen as a
    // datetime, note chosen as a date though its first part has none (empty is no value).
    const query = "create=1&type=&type=text&type=datetime&type=date";
    const header = "day,opened,starts,note\n";
    const refused = await upload(
      svc,
      "events",
      query,
      header + "2024-03-01,2024-03-01,2024-03-01T10:00,\n2024-03-02,2024-03-02,soon,\n",
    );
    assert.equal(refused.status, 400);
    assert.deepEqual(errorsOf(refused), [
      "line 3: column starts: Must be an ISO 8601 date and time, such as 2024-05-01T13:45:00",
    ]);
    assert.equal(refused.json().line, 3);
    assert.deepEqual(fileRows(svc, "select name from sqlite_master where name = 'events'"), []);

    const first = await upload(
      svc,
      "events",
      query,
      header + "2024-03-01,2024-03-01,2024-03-01T10:00,\n2024-03-02,2024-03-02,,2024-04-01\n",
    );
    assert.equal(first.status, 201, first.text);
    assert.deepEqual(await types(), { day: "date", starts: "datetime", note: "date" });
    assert.deepEqual(
      fileRows(svc, "select name, type from pragma_table_info('events')"),
      ["day", "opened", "starts", "note"].map((name) => ({ name, type: "TEXT" })),
    );
    // A later part sends the choices again: a chosen date holds, an inferred one gives way.
    const later = `column=day&column=opened&column=starts&column=note&continue=1&${
      query.replace("create=1&", "")
    }`;
    const bad = await upload(svc, "events", `${later}&line=4`, "soon,x,,2024-04-02\n,,,later\n");
    assert.equal(bad.status, 400);
    assert.deepEqual(errorsOf(bad), ["line 5: column note: Must be a date in the form YYYY-MM-DD"]);
    const good = await upload(svc, "events", `${later}&line=4`, "soon,x,,2024-04-02\n");
    assert.equal(good.status, 201, good.text);
    assert.deepEqual(await types(), { day: undefined, starts: "datetime", note: "date" });
    assert.deepEqual(fileRows(svc, "select count(*) n from events"), [{ n: 3 }]);
    // "type" belongs to a new table's parts only.
    const append = await upload(svc, "events", "type=date", "day\n2024-01-01\n");
    assert.equal(append.status, 400);
    assert.match(errorsOf(append)[0], /"type" is for a new table/);
  });
});

/** Runs `fn` on a connection of its own to the served file (as another program would). */
function onFile<T>(svc: Service, fn: (conn: Connection) => T): T {
  const conn = Connection.open(svc.get_database("shop").path!);
  try {
    return fn(conn);
  } finally {
    conn.close();
  }
}

/** Every entry of `notes_fts` (term, row, column, offset), read through fts5vocab. */
function indexEntries(conn: Connection): unknown[][] {
  conn.exec(
    "create virtual table if not exists temp.entries using fts5vocab(main, notes_fts, instance)",
  );
  return conn.query("select * from temp.entries order by 1, 2, 3, 4").rows;
}

Deno.test("an external-content _fts index is added to part by part, equal to a full rebuild", async () => {
  await withWriter(async (svc) => {
    const first = await upload(svc, "notes", "create=1", "id,title,body\n1,apple,red fruit\n");
    assert.equal(first.status, 201, first.text);
    onFile(svc, (conn) =>
      conn.exec(
        "create virtual table notes_fts using fts5 (title, body, content=notes);" +
          "insert into notes_fts (notes_fts) values ('rebuild')",
      ));
    const columns = "column=id&column=title&column=body";
    const parts = [
      "2,banana,yellow fruit\n3,cherry,small red fruit\n",
      '4,damson,"dark, sour\nplum"\n5,elder,flower\n',
      "6,fig,sweet\n",
    ];
    let line = 3;
    for (const part of parts) {
      const response = await upload(svc, "notes", `${columns}&line=${line}&continue=1`, part);
      assert.equal(response.status, 201, response.text);
      line = response.json().next_line;
    }
    // The search box finds rows of every part.
    const search = async (q: string) =>
      (await svc.client.get(`/shop/notes.json?_search=${q}&_shape=array&_sort=id`)).json()
        .map((row: { id: number }) => row.id);
    assert.deepEqual(await search("fruit"), [1, 2, 3]);
    assert.deepEqual(await search("plum"), [4]);
    assert.deepEqual(await search("sweet"), [6]);
    // The index holds what a full rebuild of it holds, and agrees with the table.
    onFile(svc, (conn) => {
      conn.exec("insert into notes_fts (notes_fts, rank) values ('integrity-check', 1)");
      const added = indexEntries(conn);
      conn.exec("insert into notes_fts (notes_fts) values ('rebuild')");
      assert.deepEqual(added, indexEntries(conn));
      assert.equal(added.length, 18); // 6 titles, 12 words of bodies
    });

    // Only the part's rows are indexed: a row another program added without indexing it stays
    // out of the index (a rebuild would have put it in).
    onFile(svc, (conn) => conn.exec("insert into notes values (7, 'grape', 'unindexed')"));
    const eighth = await upload(svc, "notes", `${columns}&line=20`, "8,hazel,nut\n");
    assert.equal(eighth.status, 201, eighth.text);
    assert.deepEqual(await search("nut"), [8]);
    assert.deepEqual(await search("unindexed"), []);
    // A part whose rows come before others (its own lower keys) is indexed whole again.
    onFile(svc, (conn) => conn.exec("delete from notes where id = 7"));
    const early = await upload(svc, "notes", `${columns}&line=21`, "0,acorn,seed nut\n");
    assert.equal(early.status, 201, early.text);
    assert.deepEqual(await search("nut"), [0, 8]);
    onFile(
      svc,
      (conn) => conn.exec("insert into notes_fts (notes_fts, rank) values ('integrity-check', 1)"),
    );
  });
});

Deno.test("a write that committed is answered as made, even when its column types cannot be kept", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const internal = `${dir}/internal.db`;
    await withWriter(async (svc) => {
      const warm = await upload(svc, "first", "create=1", "day,n\n2024-01-02,1\n");
      assert.equal(warm.status, 201, warm.text);
      // Another program holds the internal database's write lock past write_lock_timeout_ms.
      using other = Connection.open(internal);
      other.exec("begin immediate");
      const parted = await upload(svc, "visits", "create=1", "day,n\n2024-05-01,1\n2024-05-02,2\n");
      const created = await post(svc, "/shop/-/create", {
        table: "pasted",
        csv: "day,n\n2024-06-01,3\n",
      });
      other.exec("rollback");
      // A client told "busy, try again" would send the part again: its rows twice.
      for (const [response, table] of [[parted, "visits"], [created, "pasted"]] as const) {
        assert.equal(response.status, 201, response.text);
        assert.equal(response.json().ok, true);
        assert.match(
          response.json().warnings.join(" "),
          /The write was made, but its column types could not be kept: .*_internal.* is busy/,
        );
        assert.doesNotMatch(response.json().warnings.join(" "), /Try again/);
        assert.ok(fileRows(svc, `select * from ${table}`).length >= 1);
      }
      assert.equal(fileRows(svc, "select * from visits").length, 2);
    }, { internal, settings: { write_lock_timeout_ms: 100 } });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a part that widens a column keeps every row's rowid: its row page and its history stay its own", async () => {
  await withWriter(async (svc) => {
    await upload(svc, "tallies", "create=1", "label,n\na,1\nb,2\nc,3\nd,4\n");
    // A row deleted between two parts leaves a gap in the rowids.
    await svc.get_database("shop").execute_write("delete from tallies where label = 'b'");
    const before = fileRows(svc, "select rowid as id, label from tallies order by rowid");
    const next = await upload(
      svc,
      "tallies",
      "column=label&column=n&line=6&continue=1",
      "e,5\nf,many\n",
    );
    assert.equal(next.status, 201, next.text);
    assert.equal(
      fileRows(svc, "select type from pragma_table_info('tallies') where name = 'n'")[0].type,
      "TEXT",
    );
    const after = fileRows(svc, "select rowid as id, label from tallies order by rowid");
    assert.deepEqual(after.slice(0, before.length), before);
    assert.deepEqual(after.slice(before.length).map((row) => row.label), ["e", "f"]);
    // The row page of rowid 4 still shows row "d".
    const page = await svc.client.get("/shop/tallies/4.json?_shape=objects");
    assert.equal(page.status, 200, page.text);
    assert.equal(page.json().rows[0].label, "d");
  });
});
