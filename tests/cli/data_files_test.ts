import assert from "node:assert/strict";
import { run } from "./run_main.ts";
import { Connection } from "../../src/sqlite/connection.ts";

/** A folder with one file of each format. */
function dataDir(): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-data-files-" });
  Deno.writeTextFileSync(`${dir}/people.csv`, 'id,name,note\n1,Ann,"two\nlines"\n2,Bob,\n');
  Deno.writeTextFileSync(`${dir}/cities.tsv`, "city\tpop\nLyon\t513275\n");
  Deno.writeTextFileSync(`${dir}/books.json`, '[{"title": "Dune", "tags": ["sf", "classic"]}]');
  Deno.writeTextFileSync(`${dir}/events.ndjson`, '{"kind": "a", "at": {"x": 1}}\n{"kind": "b"}\n');
  return dir;
}

async function getJson(args: string[], path: string): Promise<unknown> {
  const { code, out, err } = await run([...args, "--get", path]);
  assert.equal(code, 0, err);
  return JSON.parse(out);
}

Deno.test("vitrine FILE.csv FILE.tsv FILE.json FILE.ndjson serves each as a table", async () => {
  const dir = dataDir();
  const files = ["people.csv", "cities.tsv", "books.json", "events.ndjson"].map((f) =>
    `${dir}/${f}`
  );
  const expected: Record<string, unknown[]> = {
    "/people/people.json?_shape=array": [
      { rowid: 1, id: 1, name: "Ann", note: "two\nlines" },
      { rowid: 2, id: 2, name: "Bob", note: null },
    ],
    "/cities/cities.json?_shape=array": [{ rowid: 1, city: "Lyon", pop: 513275 }],
    "/books/books.json?_shape=array": [{ rowid: 1, title: "Dune", tags: '["sf","classic"]' }],
    "/events/events.json?_shape=array&kind=b": [{ rowid: 2, kind: "b", at: null }],
  };
  for (const [path, rows] of Object.entries(expected)) {
    assert.deepEqual(await getJson(files, path), rows, path);
  }
  // Immutable: no writes, even for a root actor.
  const { databases } = await getJson(files, "/-/databases.json") as {
    databases: { name: string; is_mutable: boolean }[];
  };
  assert.deepEqual(databases.map((db) => [db.name, db.is_mutable]).sort(), [
    ["books", false],
    ["cities", false],
    ["events", false],
    ["people", false],
  ]);
});

Deno.test("--into NAME puts every file in one database; facets and search work on it", async () => {
  const dir = dataDir();
  const args = [`${dir}/people.csv`, `${dir}/events.ndjson`, "--into", "all"];
  const tables = (await getJson(args, "/all.json") as { tables: { name: string; count: number }[] })
    .tables.map((t) => [t.name, t.count]);
  assert.deepEqual(tables, [["events", 2], ["people", 2]]);
  const facets = await getJson(args, "/all/events.json?_facet=kind") as {
    facet_results: { results: Record<string, { results: { value: string; count: number }[] }> };
  };
  assert.deepEqual(
    facets.facet_results.results.kind.results.map((r) => [r.value, r.count]),
    [["a", 1], ["b", 1]],
  );
  const { code, err } = await run([...args, "--get", "/all/people.json"]);
  assert.equal(code, 0);
  assert.match(err, /Imported .*people\.csv: 2 rows into people/);
});

Deno.test("--into FILE.db writes the tables to that SQLite file and serves it", async () => {
  const dir = dataDir();
  const db = `${dir}/out.db`;
  const args = [`${dir}/people.csv`, `${dir}/books.json`, "--into", db];
  assert.deepEqual(await getJson(args, "/out/books.json?_shape=array&_col=title"), [
    { rowid: 1, title: "Dune" },
  ]);
  // A second run replaces the tables rather than adding the rows again.
  assert.deepEqual(await getJson(args, "/out/people.json?_shape=arrayfirst&_col=id"), [1, 2]);
  const conn = Connection.open(db, { mode: "ro" });
  assert.deepEqual(conn.query("select count(*) from people").rows, [[2]]);
  conn.close();
});

Deno.test("a configuration directory picks up its data files, not its settings", async () => {
  const dir = dataDir();
  Deno.writeTextFileSync(`${dir}/settings.json`, JSON.stringify({ default_page_size: 7 }));
  Deno.writeTextFileSync(`${dir}/metadata.json`, JSON.stringify({ title: "Data" }));
  const names = (await getJson([dir], "/-/databases.json") as { databases: { name: string }[] })
    .databases.map((d) => d.name);
  assert.deepEqual(names.sort(), ["books", "cities", "events", "people"]);
});

Deno.test("a data file that cannot be imported stops the command naming it and the line", async () => {
  const dir = dataDir();
  Deno.writeTextFileSync(`${dir}/bad.csv`, "a,b\n1,2\n3,4,5\n");
  const { code, err } = await run([`${dir}/bad.csv`, "--get", "/"]);
  assert.equal(code, 1);
  assert.equal(
    err,
    `Error: ${dir}/bad.csv: line 3: the row has 3 fields but the header names 2 columns`,
  );
  const empty = await run([`${dir}/empty.csv`, "--get", "/"]);
  assert.equal(empty.code, 1);
  assert.match(empty.err, /empty\.csv: Cannot read .*no such file/);
});

Deno.test("a served CSV file's column of ISO dates is TEXT with the date column type", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-data-files-" });
  Deno.writeTextFileSync(
    `${dir}/visits.csv`,
    "id,day,at,note\n1,2024-01-02,2024-01-02T10:30:00,x\n2,2024-02-29,2024-01-03 08:00:00Z,2024-01-02\n",
  );
  const got = await getJson(
    [`${dir}/visits.csv`],
    "/visits/visits.json?_extra=column_types&_shape=objects",
  ) as { column_types: unknown; rows: Record<string, unknown>[] };
  assert.deepEqual(got.column_types, {
    at: { type: "datetime", config: null },
    day: { type: "date", config: null },
  });
  assert.equal(got.rows[1].day, "2024-02-29");
  // Into a file too, under the database name the file gets.
  const into = await getJson(
    [`${dir}/visits.csv`, "--into", `${dir}/out.db`],
    "/out/visits.json?_extra=column_types",
  ) as { column_types: unknown };
  assert.deepEqual(Object.keys(into.column_types as object).sort(), ["at", "day"]);
});
