import assert from "node:assert/strict";
import {
  detectNamedParameters,
  escapeSqlIdentifier,
  InvalidSql,
  isMagicParameter,
  quoteSqlIdentifier,
  validateSqlSelect,
} from "../../src/util/sql.ts";

const examples = new URL("../fixtures/examples/", import.meta.url);
const errorOf = (file: string) =>
  (JSON.parse(Deno.readTextFileSync(new URL(file, examples))).body as { error: string }).error;

Deno.test("identifiers: plain names bare, others bracketed", () => {
  assert.equal(escapeSqlIdentifier("price"), "price");
  assert.equal(escapeSqlIdentifier("order"), "[order]");
  assert.equal(escapeSqlIdentifier("my col"), "[my col]");
  assert.equal(escapeSqlIdentifier("1st"), "[1st]");
  assert.equal(escapeSqlIdentifier("a]b"), '"a]b"');
  assert.equal(quoteSqlIdentifier('say "x"'), '"say ""x"""');
});

Deno.test("validateSqlSelect accepts read-only statements", () => {
  for (
    const sql of [
      "select 1",
      "  SELECT * from t",
      "-- comment\nselect 1",
      "/* c */ select 1",
      "with x as (select 1) select * from x",
      "explain select 1",
      "explain query plan with x as (select 1) select * from x",
      "select * from pragma_table_info('t')",
    ]
  ) validateSqlSelect(sql);
});

Deno.test("validateSqlSelect rejects writes and pragmas with the exact messages", () => {
  assert.throws(() => validateSqlSelect("update products set price = 0"), {
    name: "InvalidSql",
    message: errorOf("41-error-400-not-select.json"),
    status: 400,
    title: "Invalid SQL",
  });
  assert.throws(() => validateSqlSelect("selectx 1"), { message: "Statement must be a SELECT" });
  assert.throws(() => validateSqlSelect("select * from pragma_cache_size()"), {
    message: errorOf("42-error-400-pragma.json"),
  });
  assert.throws(() => validateSqlSelect("select 'pragma'"), InvalidSql);
});

Deno.test("named parameters skip comments and literals, in first-seen order", () => {
  assert.deepEqual(
    detectNamedParameters(
      "select * from t where a = :b and c = ':no' and d = \"x:no\" -- :no\n" +
        "and e = :a /* :no */ and f = :b and g = [x:no] and h = :_actor_id",
    ),
    ["b", "a", "_actor_id"],
  );
  assert.deepEqual(detectNamedParameters("select 'it''s :no', :yes"), ["yes"]);
  assert.equal(isMagicParameter("_now_epoch"), true);
  assert.equal(isMagicParameter("name"), false);
});
