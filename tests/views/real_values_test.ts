/**
 * A REAL value that is a whole number is written `12.0`, as the reference (Python) writes a
 * float, wherever it comes from: a REAL column, an untyped column holding floats, a view's or a
 * query's expression. JavaScript has one number type, so the storage class is read from SQLite
 * with the rows (`Results.real_columns`): these tests compare the bytes, which a parsed
 * comparison cannot see.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";
import { example, shopService } from "../fixtures/shop.ts";

/** The numbers of a JSON text, in order, as written. */
function numbers(text: string): string[] {
  return text.match(/(?<![\w.])-?\d+(\.\d+)?(e[+-]?\d+)?(?![\w.])/g) ?? [];
}

Deno.test("query pages write a REAL 12 as 12.0, like the reference (examples 32 and 33)", async () => {
  await using svc = shopService();
  for (const name of ["32-query-named-param.json", "33-canned-query.json"]) {
    const raw = Deno.readTextFileSync(new URL(`../fixtures/examples/${name}`, import.meta.url));
    const recorded = example(name);
    const path = recorded.request.replace(/^GET /, "");
    const response = await svc.client.get(path);
    assert.equal(response.status, 200, path);
    const recordedRows = raw.slice(raw.indexOf('"rows"'));
    const ours = response.text.slice(response.text.indexOf('"rows"'));
    assert.deepEqual(numbers(ours), numbers(recordedRows), path);
    assert.match(raw, /\d\.0\b/, `${name} has a whole REAL to compare`);
  }
});

function buildData(dir: string): string {
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`
    create table m (id integer primary key, w, y real, z integer);
    insert into m values (1, 2.0, 3.0, 4), (2, 2.5, 1, 5), (3, null, 2, 6);
    create view v as select id, z * 1.0 as zf, z * 2 as z2 from m;`);
  conn.close();
  return path;
}

for (const threads of [undefined, 0]) {
  const how = threads === 0 ? "on the main thread" : "in read workers";
  Deno.test(`whole REAL values keep their .0 in tables, views, queries and exports (${how})`, async () => {
    const dir = Deno.makeTempDirSync();
    try {
      await using svc = new Service({
        files: [buildData(dir)],
        settings: threads === undefined ? {} : { num_sql_threads: threads },
      });
      const text = async (path: string) => {
        const response = await svc.client.get(path);
        assert.equal(response.status, 200, `${path}: ${response.text.slice(0, 200)}`);
        return response.text;
      };
      // `w` is untyped and holds only REALs; `y` is declared REAL; `z` is INTEGER.
      assert.match(await text("/data/m.json"), /"w":2\.0,"y":3\.0,"z":4\b/);
      assert.match(
        await text("/data/m.csv"),
        /\r\n1,2\.0,3\.0,4\r\n2,2\.5,1\.0,5\r\n3,,2\.0,6\r\n/,
      );
      // A row page: the untyped column's REAL as well as the declared one, in every format.
      assert.match(await text("/data/m/1.json"), /"w":2\.0,"y":3\.0,"z":4\b/);
      assert.match(await text("/data/m/1.csv"), /\r\n1,2\.0,3\.0,4\r\n/);
      assert.match(await text("/data/m/1"), /<td class="col-w type-float"[^>]*>2\.0<\/td>/);
      // A view's expression: z * 1.0 is REAL, z * 2 an INTEGER.
      assert.match(await text("/data/v.json"), /"zf":4\.0,"z2":8\b/);
      assert.match(await text("/data/v.csv?_stream=on"), /\r\n1,4\.0,8\r\n/);
      assert.match(await text("/data/v.ndjson?_stream=on"), /"zf":4\.0,"z2":8\}/);
      assert.match(await text("/data/v?_sort=id"), /<td class="col-zf type-float">4\.0<\/td>/);
      // Custom SQL: an aggregate and a literal.
      const sql = encodeURIComponent("select avg(z) as a, 2.0 as two, 3 as three from m");
      assert.match(await text(`/data/-/query.json?sql=${sql}`), /"a":5\.0,"two":2\.0,"three":3\b/);
      assert.match(await text(`/data/-/query.csv?sql=${sql}`), /\r\n5\.0,2\.0,3\r\n/);
      assert.match(await text(`/data/-/query?sql=${sql}`), /type-float">2\.0<\/td>/);
      const all = encodeURIComponent("select id, z * 1.0 as zf from m order by id");
      assert.match(await text(`/data/-/query.csv?sql=${all}&_stream=on`), /\r\n3,6\.0\r\n$/);
    } finally {
      Deno.removeSync(dir, { recursive: true });
    }
  });
}
