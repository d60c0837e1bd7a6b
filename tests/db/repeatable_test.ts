/**
 * `viewIsRepeatable`: which views may be cached and tagged. SQLite's own program for the view
 * says which functions it calls, through views within views too.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/connection.ts";
import { hasOneArgumentStrftime, viewIsRepeatable } from "../../src/db/repeatable.ts";
import type { SqlRunner } from "../../src/db/introspect.ts";
import type { Row } from "../../src/db/results.ts";

Deno.test("views calling random(), the clock or a non-deterministic plugin function are not repeatable", async () => {
  const conn = Connection.open(":memory:");
  // Views may call only innocuous functions (untrusted files are opened with trusted_schema off).
  conn.create_function("shuffle_key", 1, (x) => Math.random() + Number(x), { innocuous: true });
  conn.create_function("double_it", 1, (x) => Number(x) * 2, {
    deterministic: true,
    innocuous: true,
  });
  conn.exec(`
    create table t (x integer, at integer);
    insert into t values (1, 0), (2, 86400);
    create view plain as select x, upper('a' || x) as label from t where x > 0 order by x;
    create view totals as select count(*) as n, sum(x) as total, group_concat(x) as xs from t;
    create view dated as select date(at, 'unixepoch') as day, strftime('%Y', at, 'unixepoch') from t;
    create view windowed as select x, row_number() over (order by x) as n from t;
    create view doubled as select double_it(x) as y from t;
    create view of_plain as select * from plain where x < 2;
    create view lucky as select x, random() as r from t;
    create view blobs as select randomblob(4) as b;
    create view now_text as select datetime('now') as at;
    create view now_upper as select julianday('NOW') as at;
    create view today as select date() as d;
    create view stamp as select current_timestamp as at;
    create view shuffled as select shuffle_key(x) as k from t;
    create view of_lucky as select * from lucky where x > 0;
    create view lucky_x as select x from lucky; -- SQLite drops the unused random()
  `);
  const run: SqlRunner = (sql, params) => Promise.resolve(conn.query(sql, params).rows as Row[]);
  const repeatable = ["plain", "totals", "dated", "windowed", "doubled", "of_plain", "lucky_x"];
  const not = [
    "lucky",
    "blobs",
    "now_text",
    "now_upper",
    "today",
    "stamp",
    "shuffled",
    "of_lucky",
    "this_year",
  ];
  for (const view of repeatable) assert.equal(await viewIsRepeatable(run, view), true, view);
  for (const view of not) assert.equal(await viewIsRepeatable(run, view), false, view);
  assert.equal(await viewIsRepeatable(run, "no_such_view"), false);
  conn.close();
});

Deno.test("strftime(format) alone in any view of the file makes strftime count as the clock", async () => {
  const conn = Connection.open(":memory:");
  conn.exec(`
    create table t (at integer);
    create view years as select strftime('%Y', at, 'unixepoch') as y from t;
    create view no_strftime as select at + 1 as later from t;
  `);
  const run: SqlRunner = (sql, params) => Promise.resolve(conn.query(sql, params).rows as Row[]);
  assert.equal(await viewIsRepeatable(run, "years"), true);
  conn.exec("create view this_year as select strftime('%Y') as y");
  assert.equal(await viewIsRepeatable(run, "this_year"), false);
  // The program does not tell the calls apart: every strftime view of the file is now suspect.
  assert.equal(await viewIsRepeatable(run, "years"), false);
  assert.equal(await viewIsRepeatable(run, "no_strftime"), true);
  conn.close();
});

Deno.test("strftime with one argument is the current time; with a time value it is not", () => {
  assert.equal(hasOneArgumentStrftime("select strftime('%Y') as y"), true);
  assert.equal(hasOneArgumentStrftime("select STRFTIME ( '%Y,%m' ) from t"), true);
  assert.equal(hasOneArgumentStrftime("select strftime(fmt) from t"), true);
  assert.equal(hasOneArgumentStrftime("select strftime('%Y', at, 'unixepoch') from t"), false);
  assert.equal(hasOneArgumentStrftime("select strftime('%Y', coalesce(a, b)) from t"), false);
  assert.equal(hasOneArgumentStrftime("select strftime('it''s %Y', at) from t"), false);
  assert.equal(
    hasOneArgumentStrftime("select strftime('%Y', at), strftime('%m') from t"),
    true,
    "the second call",
  );
  assert.equal(hasOneArgumentStrftime("select [strftime(x)] from t"), false, "a column name");
});
