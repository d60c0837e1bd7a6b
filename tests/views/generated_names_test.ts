/**
 * The SQL Vitrine writes around a table's own query (facets, suggestions, array filters, counts)
 * must not look up any name of its own among the user's tables and columns: a table named like a
 * CTE once answered 500 "circular reference", a column named like an alias gave wrong counts.
 * Every name the generated SQL uses is a table or a column here, and every page kind answers.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";

/** Names the facet, filter and count SQL uses (CTEs, aliases, result names) or once used. */
const GENERATED = ["items", "item", "limited", "inner_rows", "facet_item", "value", "count", "n"];

function collidingDatabase(): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-names-" });
  const path = `${dir}/t.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  // Each table has every generated name as a column, filled with values that would change the
  // counts if the generated SQL read them instead of its own.
  const extra = GENERATED.map((name) => `"${name}"`).join(", ");
  for (const table of GENERATED) {
    conn.exec(`create table "${table}" (id integer primary key, tags text, kind text,
      day text, ${extra});`);
    for (let i = 1; i <= 6; i++) {
      const tags = JSON.stringify(i % 2 ? ["a", "b", "a"] : ["a"]);
      const kind = i <= 4 ? "x" : "y";
      const values = GENERATED.map(() => `'z${i}'`).join(", ");
      conn.exec(
        `insert into "${table}" values (${i}, '${tags}', '${kind}', '2024-01-0${
          i % 2 + 1
        }', ${values})`,
      );
    }
  }
  conn.close();
  return path;
}

type FacetValue = { value: unknown; count: number };

Deno.test("generated SQL never collides with a table or column of the user's schema", async () => {
  await using svc = new Service({ files: [collidingDatabase()] });
  for (const page of ["/", "/.json", "/t", "/t.json"]) {
    const response = await svc.client.get(page);
    assert.equal(response.status, 200, `${page}: ${response.text.slice(0, 300)}`);
  }
  for (const table of GENERATED) {
    const facets = `_facet=kind&_facet_array=tags&_facet_date=day`;
    const response = await svc.client.get(`/t/${table}.json?${facets}&_extra=suggested_facets`);
    assert.equal(response.status, 200, `${table}: ${response.text.slice(0, 300)}`);
    const body = response.json();
    const results = body.facet_results.results as Record<string, { results: FacetValue[] }>;
    const counts = (name: string) => results[name].results.map((r) => [r.value, r.count]);
    // Each row counts once per distinct item of its array.
    assert.deepEqual(counts("tags"), [["a", 6], ["b", 3]], table);
    assert.deepEqual(counts("kind"), [["x", 4], ["y", 2]], table);
    assert.deepEqual(counts("day"), [["2024-01-01", 3], ["2024-01-02", 3]], table);
    const suggested = (body.suggested_facets as { name: string }[]).map((s) => s.name);
    assert.ok(suggested.includes("day"), `${table}: ${suggested}`);

    const pages = [
      `/t/${table}?${facets}`,
      `/t/${table}`,
      `/t/${table}.csv?tags__arraycontains=b`,
      `/t/${table}/1`,
      `/t/${table}/1.json`,
      `/t/-/query.json?sql=${encodeURIComponent(`select * from "${table}"`)}`,
      `/t/-/query?sql=${encodeURIComponent(`select * from "${table}"`)}&_facet=kind`,
    ];
    for (const page of pages) {
      const pageResponse = await svc.client.get(page);
      assert.equal(pageResponse.status, 200, `${page}: ${pageResponse.text.slice(0, 300)}`);
    }
    const filtered = (await svc.client.get(`/t/${table}.json?tags__arraycontains=b&_shape=array`))
      .json() as { id: number }[];
    assert.deepEqual(filtered.map((row) => row.id), [1, 3, 5], table);
  }
});
