/** The ORDER BY reader and key tokens of query-result keyset pages (pure). */
import assert from "node:assert/strict";
import {
  keysetPageSql,
  keysetToken,
  parseKeysetToken,
  parseOrderBy,
  stableOrderBy,
} from "../../src/table/query_keyset.ts";

Deno.test("parseOrderBy reads the outermost ORDER BY of result columns only", () => {
  assert.deepEqual(parseOrderBy('select * from t order by "a b" desc, 2 nulls last;'), [
    { column: "a b", desc: true, nulls_first: false },
    { column: 2, desc: false, nulls_first: false },
  ]);
  assert.deepEqual(
    parseOrderBy("select (select 1 order by x) from t -- order by y\norder by [id]"),
    [{ column: "id", desc: false, nulls_first: true }],
  );
  for (
    const sql of [
      "select * from t",
      "select * from t order by id limit 5",
      "select a from t union select a from u order by a",
      "select * from t order by lower(name)",
      "select * from t order by name collate nocase",
      "select * from t order by -id",
      "select * from t order by :p",
      "select 1; select * from t order by id",
    ]
  ) assert.equal(parseOrderBy(sql), null, sql);
});

Deno.test("key tokens keep each value's type and the page SQL binds them", () => {
  const values = [null, 1.5, "a'b", 2n ** 60n, new Uint8Array([0, 255]), -Infinity];
  const token = keysetToken(2000, values);
  assert.match(token, /^k2000\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(parseKeysetToken(token), { offset: 2000, values });
  assert.equal(parseKeysetToken("12"), null);
  const { sql, params } = keysetPageSql("select a, id from t order by a desc, id", ["a", "id"], [
    { column: "a", desc: true, nulls_first: false },
    { column: "id", desc: false, nulls_first: true },
  ], ["x", 7]);
  assert.equal(
    sql,
    'select * from (\nselect a, id from t order by a desc, id\n) where (("a" < :__vitrine_key_0' +
      ' or "a" is null)) or ("a" = :__vitrine_key_0 and "id" > :__vitrine_key_1)' +
      ' order by "a" desc nulls last, "id" nulls first',
  );
  assert.deepEqual(params, { __vitrine_key_0: "x", __vitrine_key_1: 7 });
});

Deno.test("stableOrderBy restates the query's ORDER BY by position, then every column", () => {
  assert.equal(stableOrderBy("select a, b, c from t", ["a", "b", "c"]), "1, 2, 3");
  assert.equal(
    stableOrderBy("select a, b from t order by B desc, 1", ["a", "b"]),
    "2 desc nulls last, 1 nulls first, 1, 2",
  );
  // A window's ORDER BY is not the query's.
  assert.equal(stableOrderBy("select rank() over (order by a) r from t", ["r"]), "1");
  for (
    const sql of [
      "select a from t order by a * 2",
      "select a from t order by a collate nocase",
      "select a from t order by id",
      "select a from t order by 2",
      "select a, a from t order by a",
      "select a from t order by a limit 10",
      "select a from t union select b from u order by 1",
    ]
  ) {
    const columns = sql.includes("a, a") ? ["a", "a"] : ["a"];
    assert.equal(stableOrderBy(sql, columns), null, sql);
  }
});
