import assert from "node:assert/strict";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import { setMagicClock } from "../../src/views/query/magic_parameters.ts";

/** The examples' metadata with extra canned queries for `shop`. */
function withQueries(queries: Record<string, unknown>) {
  const metadata = structuredClone(SHOP_METADATA);
  Object.assign(metadata.databases.shop.queries, queries);
  return metadata;
}

const FIXED = new Date("2024-05-06T07:08:09.500Z");

Deno.test("every built-in magic parameter is filled in canned queries", async () => {
  setMagicClock(() => FIXED);
  try {
    await using svc = shopService({
      metadata: withQueries({
        magic: {
          sql: "select :_actor_id as actor, :_header_user_agent as agent, " +
            ":_cookie_flavour as cookie, :_now_epoch as epoch, :_now_date_utc as date, " +
            ":_now_datetime_utc as datetime, :_random_chars_8 as random, :_header_x_missing as none",
        },
      }),
    });
    const cookies = {
      ds_actor: encodeActorCookie(svc.signer, { id: "alice" }),
      flavour: "mint",
    };
    const response = await svc.client.get("/shop/magic.json", {
      cookies,
      headers: { "user-agent": "TestAgent/1.0" },
    });
    assert.equal(response.status, 200);
    const [row] = (response.json() as { rows: Record<string, unknown>[] }).rows;
    assert.equal(row.actor, "alice");
    assert.equal(row.agent, "TestAgent/1.0");
    assert.equal(row.cookie, "mint");
    assert.equal(row.epoch, 1714979289);
    assert.equal(row.date, "2024-05-06");
    assert.equal(row.datetime, "2024-05-06T07:08:09Z");
    assert.match(String(row.random), /^[0-9a-f]{8}$/);
    assert.equal(row.none, "");
  } finally {
    setMagicClock();
  }
});

Deno.test("magic parameters are never form fields and a client cannot supply them", async () => {
  await using svc = shopService({
    metadata: withQueries({
      who: { sql: "select :_actor_id as actor, :note as note" },
    }),
  });
  const cookies = { ds_actor: encodeActorCookie(svc.signer, { id: "alice" }) };
  const html = (await svc.client.get("/shop/who", { cookies })).text;
  assert.match(html, /name="note"/);
  assert.doesNotMatch(html, /name="_actor_id"/);
  const forged = await svc.client.get("/shop/who.json?note=n&_actor_id=mallory", { cookies });
  assert.deepEqual((forged.json() as { rows: unknown[] }).rows, [{ actor: "alice", note: "n" }]);
});

Deno.test("an anonymous _actor_id or a missing cookie is a clear 400 error", async () => {
  await using svc = shopService({
    metadata: withQueries({
      who: { sql: "select :_actor_id as actor" },
      cookie: { sql: "select :_cookie_absent as c" },
      unknown: { sql: "select :_nosuch_thing as x" },
    }),
  });
  const who = await svc.client.get("/shop/who.json");
  assert.equal(who.status, 400);
  assert.equal(
    (who.json() as { error: string }).error,
    "Cannot fill magic parameter _actor_id: nobody is signed in",
  );
  const cookies = { ds_actor: encodeActorCookie(svc.signer, { name: "no id" }) };
  const noField = await svc.client.get("/shop/who.json", { cookies });
  assert.equal(
    (noField.json() as { error: string }).error,
    'Cannot fill magic parameter _actor_id: the signed-in actor has no "id" field',
  );
  const cookie = await svc.client.get("/shop/cookie.json");
  assert.equal(cookie.status, 400);
  assert.equal(
    (cookie.json() as { error: string }).error,
    'Cannot fill magic parameter _cookie_absent: the request has no "absent" cookie',
  );
  // The HTML page shows the same message above the form.
  const page = await svc.client.get("/shop/cookie");
  assert.equal(page.status, 400);
  assert.match(page.text, /<strong>Error:<\/strong> Cannot fill magic parameter _cookie_absent/);
  const unknown = await svc.client.get("/shop/unknown.json");
  assert.equal(unknown.status, 400);
  assert.equal(
    (unknown.json() as { error: string }).error,
    "Unknown magic parameter: _nosuch_thing",
  );
});

Deno.test("_random_chars_N gives N hex characters, however long", async () => {
  await using svc = shopService({
    metadata: withQueries({
      long: { sql: "select length(:_random_chars_200000) as n, :_random_chars_1 as one" },
      huge: { sql: "select :_random_chars_99999999999 as x" },
    }),
  });
  // Past 65,536 bytes getRandomValues throws: this used to be a 500.
  const long = await svc.client.get("/shop/long.json");
  assert.equal(long.status, 200);
  const [row] = (long.json() as { rows: { n: number; one: string }[] }).rows;
  assert.equal(row.n, 200000);
  assert.match(row.one, /^[0-9a-f]$/);
  const huge = await svc.client.get("/shop/huge.json");
  assert.equal(huge.status, 400);
  assert.match((huge.json() as { error: string }).error, /at most 1000000 characters/);
});

Deno.test("register_magic_parameters adds prefixes; KeyError means unknown key", async () => {
  await using svc = shopService({
    metadata: withQueries({
      upper: { sql: "select :_upper_hello as shout" },
      bad: { sql: "select :_upper_nope as shout" },
    }),
  });
  svc.pm.register({
    register_magic_parameters() {
      return [["upper", (key: string) => {
        if (key === "nope") {
          const error = new Error(key);
          error.name = "KeyError";
          throw error;
        }
        return key.toUpperCase();
      }]];
    },
  }, { name: "test-magic" });
  const response = await svc.client.get("/shop/upper.json");
  assert.deepEqual((response.json() as { rows: unknown[] }).rows, [{ shout: "HELLO" }]);
  const bad = await svc.client.get("/shop/bad.json");
  assert.equal(bad.status, 400);
  assert.match((bad.json() as { error: string }).error, /_upper_nope/);
});

Deno.test("writable canned queries get magic parameters too", async () => {
  setMagicClock(() => FIXED);
  try {
    await using svc = shopService({
      metadata: withQueries({
        stamp: {
          sql: "insert into log (message, level) values (:_now_datetime_utc, :_actor_id)",
          write: true,
        },
      }),
    });
    const cookies = { ds_actor: encodeActorCookie(svc.signer, { id: "alice" }) };
    const html = (await svc.client.get("/shop/stamp", { cookies })).text;
    assert.doesNotMatch(html, /<fieldset class="named-parameters">/);
    const response = await svc.client.post("/shop/stamp", {
      json: {},
      headers: { accept: "application/json" },
      cookies,
    });
    assert.equal(response.status, 200);
    const last = await svc.get_database("shop").execute(
      "select message, level from log order by rowid desc limit 1",
    );
    assert.deepEqual([...last.rows[0]], ["2024-05-06T07:08:09Z", "alice"]);
  } finally {
    setMagicClock();
  }
});
