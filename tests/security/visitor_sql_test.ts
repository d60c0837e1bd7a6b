/**
 * What SQLite's defences (tests/sqlite/guard_test.ts) look like to a visitor over HTTP: functions
 * that hand out pointers or touch files, ATTACH, setting pragmas and SQLite's internal tables are
 * 400s saying so, in a read worker and on the main thread alike; a 20 MB value is a 400 naming
 * `max_returned_bytes`; nothing of the refused SQL's effect reaches the answer.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";

const REFUSED = [
  "select fts3_tokenizer('simple')",
  "select fts3_tokenizer('evil', x'4141414141414141')",
  "select load_extension('/tmp/evil.so')",
  "select readfile('/etc/passwd')",
  "select writefile('/tmp/vitrine-owned', 'x')",
  "select * from sqlite_dbpage",
  "attach database '/etc/hosts' as h",
  "pragma trusted_schema = 1",
  "pragma query_only = 0",
  "with x as (select 1) insert into log (message) select 'owned' from x",
];

for (const threads of [3, 0]) {
  Deno.test(`visitor SQL that reaches past the data is a 400 (num_sql_threads ${threads})`, async () => {
    await using svc = shopService({ settings: { num_sql_threads: threads } });
    for (const sql of REFUSED) {
      const response = await svc.client.get(`/shop.json?sql=${encodeURIComponent(sql)}`);
      assert.equal(response.status, 400, `${sql}: ${response.text}`);
      const body = response.json();
      assert.equal(body.ok, false);
      assert.match(
        body.error,
        /not authorized|no such (function|table)|prohibited|may not|only SELECT|would change data|read-only|Statement/i,
        `${sql}: ${body.error}`,
      );
      // No row came back: in particular no 8-byte pointer from fts3_tokenizer.
      assert.equal(body.rows?.length ?? 0, 0, sql);
    }
    const log = await svc.get_database("shop").execute(
      "select count(*) from log where message = 'owned'",
    );
    assert.equal(log.rows[0][0], 0);
    assert.equal(await Deno.stat("/tmp/vitrine-owned").then(() => true, () => false), false);
    // Ordinary SQL still works, functions included.
    const fine = await svc.client.get(
      `/shop.json?_shape=array&sql=${
        encodeURIComponent("select upper('ok') as a, json_array(1) as b")
      }`,
    );
    assert.deepEqual(fine.json(), [{ a: "OK", b: "[1]" }]);
  });
}

Deno.test("a 20 MB value is a 400 naming max_returned_bytes, in JSON and HTML", async () => {
  await using svc = shopService();
  const sql = encodeURIComponent("select zeroblob(20000000) as b");
  const json = await svc.client.get(`/shop.json?sql=${sql}`);
  assert.equal(json.status, 400);
  assert.match(json.json().error, /more data than this server allows \(10,485,760 bytes\)/);
  assert.match(json.json().error, /max_returned_bytes/);
  const page = await svc.client.get(`/shop?sql=${sql}`);
  assert.equal(page.status, 400);
  assert.match(page.text, /max_returned_bytes/);
  // A value under the cap is served.
  const small = await svc.client.get(
    `/shop.json?_shape=array&sql=${encodeURIComponent("select length(zeroblob(1000)) as n")}`,
  );
  assert.deepEqual(small.json(), [{ n: 1000 }]);
});
