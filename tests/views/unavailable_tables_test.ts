/**
 * A table SQLite lists but cannot read — a virtual table whose module is not loaded (`vec0`,
 * SpatiaLite's) or an FTS5 table with a custom tokenizer — is listed as unavailable with the
 * reason; the index, the database page and every other table keep working.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";

/** The sqlite3 shell: it can rewrite `sqlite_master`, which Vitrine's defensive connections refuse. */
const SHELL = (() => {
  try {
    return new Deno.Command("sqlite3", { args: ["-version"] }).outputSync().success;
  } catch {
    return false;
  }
})();

/** A file as another program with extensions would leave it: `vec` needs `vec0`, `docs` `mytok`. */
function oddModulesDatabase(): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-unavailable-" });
  const path = `${dir}/odd.db`;
  const sql = `
    create table good (id integer primary key, name text);
    insert into good values (1, 'a'), (2, 'b');
    create virtual table docs using fts5(body);
    insert into docs values ('hello');
    pragma writable_schema = on;
    insert into sqlite_master (type, name, tbl_name, rootpage, sql) values
      ('table', 'vec', 'vec', 0, 'CREATE VIRTUAL TABLE vec USING vec0(embedding float[4])');
    update sqlite_master set sql = 'CREATE VIRTUAL TABLE docs USING fts5(body, tokenize=''mytok'')'
      where name = 'docs';
    pragma writable_schema = off;
    create view vec_view as select * from vec;
  `;
  const made = new Deno.Command("sqlite3", { args: [path, sql] }).outputSync();
  assert.ok(made.success, new TextDecoder().decode(made.stderr));
  return path;
}

type Entry = { name: string; count: number | null; unavailable?: string };

Deno.test({
  name: "a table whose module is missing is listed as unavailable; other pages work",
  ignore: !SHELL,
}, async () => {
  await using svc = new Service({ files: [oddModulesDatabase()] });
  for (const page of ["/", "/.json", "/odd", "/odd.json", "/odd/good", "/odd/good.json"]) {
    const response = await svc.client.get(page);
    assert.equal(response.status, 200, `${page}: ${response.text.slice(0, 300)}`);
  }
  const tables = (await svc.client.get("/odd.json")).json().tables as Entry[];
  const byName = new Map(tables.map((table) => [table.name, table]));
  assert.equal(byName.get("vec")?.unavailable, "no such module: vec0");
  assert.equal(byName.get("docs")?.unavailable, "no such tokenizer: mytok");
  assert.deepEqual(byName.get("good"), { ...byName.get("good"), count: 2 });
  assert.equal(byName.get("good")?.unavailable, undefined);

  const html = (await svc.client.get("/odd")).text;
  assert.match(html, /Unavailable: no such module: vec0/);
  assert.match(html, /Unavailable: no such tokenizer: mytok/);
  assert.match(html, /2 rows/);

  // The index still shows the other tables' counts.
  const databases = (await svc.client.get("/.json")).json().databases as { name: string }[];
  const index = databases.find((db) => db.name === "odd") as Record<string, unknown>;
  assert.equal(index.show_table_row_counts, true);
  assert.equal(index.table_rows_sum, 2);
  assert.match((await svc.client.get("/")).text, /title="Unavailable: no such module: vec0"/);

  // The table itself says what is missing and how to get it, not "Invalid SQL".
  const vec = await svc.client.get("/odd/vec.json");
  assert.equal(vec.status, 500);
  assert.match(
    vec.json().error,
    /Table vec is unavailable: no such module: vec0.*--load-extension/,
  );
  // So does a view that reads it; the database page still lists it.
  const view = await svc.client.get("/odd/vec_view.json");
  assert.equal(view.status, 500);
  assert.match(view.json().error, /Table vec_view is unavailable: no such module: vec0/);
  assert.match(html, /vec_view/);
  const query = await svc.client.get("/odd/-/query.json?sql=select+count(*)+as+n+from+good");
  assert.deepEqual(query.json().rows, [{ n: 2 }]);
});
