/**
 * Keys whose text form would compare or look up wrongly: numbers in columns declared without a
 * type, infinities, BLOBs and the empty string. Following `next_url` must return every row
 * exactly once, in the order the SQL itself gives, and then stop; every row link of a table page
 * must open its row.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";

function oddDatabase(): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-next-tokens-" });
  const path = `${dir}/odd.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`
    create table untyped (id integer primary key, s);
    insert into untyped (s) values (3), ('25'), (null), (25), ('b'), (2.5), ('a'), (100), (null),
      ('3'), (-1), (x'01'), (1e300), ('');
    create table mixed_keys (id primary key, label text);
    insert into mixed_keys values (1, 'one'), (2.5, 'two and a half'), ('s0', 'text'), (7, 'seven'),
      ('8', 'text eight'), (3, 'three'), (x'00ff', 'blob');
    create table floats (id integer primary key, f real);
    insert into floats (f) values (1.5), (9e999), (-9e999), (0), (null), (9e999), (-2), (-9e999);
    create table text_keys (id text primary key, n integer);
    insert into text_keys values ('', 1), ('a', 2), ('b', 3), (' ', 4), ('c', 5);
    create table blob_keys (id blob primary key, n integer);
    insert into blob_keys values (x'00', 1), (x'0000ff', 2), (x'ff', 3), (x'', 4), (x'7f', 5);
  `);
  conn.close();
  return path;
}

/** Ids, as JSON text, in the order `order by <order>` gives them. */
async function expectedIds(svc: Service, table: string, order: string): Promise<string[]> {
  const sql = `select id from ${table} order by ${order}`;
  const response = await svc.client.get(
    `/odd/-/query.json?_shape=array&sql=${encodeURIComponent(sql)}`,
  );
  return response.json().map((row: { id: unknown }) => JSON.stringify(row.id));
}

/** Ids, as JSON text, seen following `next_url` from `start`; fails past `limit` pages (a loop). */
async function walk(svc: Service, start: string, limit = 50): Promise<string[]> {
  const seen: string[] = [];
  let url: string | null = start;
  for (let pages = 0; url; pages++) {
    assert.ok(pages < limit, `more than ${limit} pages from ${start}: a loop`);
    const response = await svc.client.get(url.replace("http://localhost", ""));
    assert.equal(response.status, 200, `${url}: ${response.text}`);
    const page = response.json() as { rows: { id: unknown }[]; next_url: string | null };
    seen.push(...page.rows.map((row) => JSON.stringify(row.id)));
    url = page.next_url;
  }
  return seen;
}

Deno.test("following next returns each row once, whatever the values' types", async () => {
  await using svc = new Service({ files: [oddDatabase()] });
  const cases: [string, string, string][] = [
    // [table, arguments, the same order in SQL]
    ["untyped", "_sort=s", "s, id"],
    ["untyped", "_sort_desc=s", "s desc, id"],
    ["mixed_keys", "", "id"],
    ["mixed_keys", "_sort=label", "label, id"],
    ["floats", "_sort=f", "f, id"],
    ["floats", "_sort_desc=f", "f desc, id"],
    ["text_keys", "", "id"],
    ["text_keys", "_sort_desc=n", "n desc, id"],
    ["blob_keys", "", "id"],
  ];
  for (const [table, args, order] of cases) {
    const expected = await expectedIds(svc, table, order);
    for (const size of [1, 2, 3]) {
      const start = `/odd/${table}.json?${args}&_size=${size}&_extra=next_url`;
      assert.deepEqual(await walk(svc, start), expected, `${table} ${args} _size=${size}`);
    }
  }
});

Deno.test("a token part that names no value is a 400, not a wrong page", async () => {
  await using svc = new Service({ files: [oddDatabase()] });
  for (const token of ["$nope", "$n1x", "$xabc", "$xzz,1"]) {
    const response = await svc.client.get(`/odd/untyped.json?_next=${encodeURIComponent(token)}`);
    assert.equal(response.status, 400, token);
    assert.match(response.json().error, /_next/, token);
  }
});

Deno.test("every row link of a table page opens its row, whatever the key", async () => {
  await using svc = new Service({ files: [oddDatabase()] });
  for (const table of ["mixed_keys", "text_keys", "blob_keys"]) {
    const page = (await svc.client.get(`/odd/${table}`)).text;
    // A BLOB key's cell links its download (`<path>.blob?_blob_column=id`), others their row.
    const links = [...page.matchAll(new RegExp(`href="(/odd/${table}/[^"?.]+)`, "g"))]
      .map((match) => match[1]);
    const ids = await expectedIds(svc, table, "id");
    assert.equal(new Set(links).size, ids.length, `${table}: one link per row`);
    const opened: string[] = [];
    for (const link of new Set(links)) {
      const row = await svc.client.get(`${link}.json?_shape=array`);
      assert.equal(row.status, 200, `${link}: ${row.text}`);
      opened.push(JSON.stringify(row.json()[0].id));
    }
    assert.deepEqual(opened.sort(), [...ids].sort(), table);
  }
  // A BLOB key's row also serves its cells as downloads.
  const blob = await svc.client.get("/odd/blob_keys/$x0000ff.blob?_blob_column=id");
  assert.equal(blob.status, 200);
  assert.deepEqual(blob.content, new Uint8Array([0, 0, 0xff]));
  // A column declared without a type may hold both 7 and '7'; both are written `7`, and the
  // link opens the text one. A number (1, 3 and 7 above) is found when no text equals it.
  // The text `$x00` is written `~24x00`, and is no BLOB.
  assert.equal((await svc.client.get("/odd/text_keys/~24x00.json")).status, 404);
  // Numbers past what SQLite's integers hold are looked up as REALs: not found, not an error.
  for (const key of ["99999999999999999999999", "-9223372036854775809", "1e999"]) {
    assert.equal((await svc.client.get(`/odd/mixed_keys/${key}.json`)).status, 404, key);
  }
});
