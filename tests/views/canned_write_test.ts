import assert from "node:assert/strict";
import { buildShopDb, example, SHOP_METADATA, shopService } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";
import { decodeMessages } from "../../src/auth/messages.ts";

/** The examples' metadata with extra canned queries for `shop`. */
function withQueries(queries: Record<string, unknown>) {
  const metadata = structuredClone(SHOP_METADATA);
  Object.assign(metadata.databases.shop.queries, queries);
  return metadata;
}

const JSON_ACCEPT = { accept: "application/json" };

async function logMessages(svc: Service): Promise<string[]> {
  const results = await svc.get_database("shop").execute("select message from log order by rowid");
  return results.rows.map((row) => String(row[0]));
}

Deno.test("a form POST with Accept: application/json matches example 34", async () => {
  await using svc = shopService();
  const expected = example("34-canned-write-post.json") as ReturnType<typeof example> & {
    request_headers: Record<string, string>;
    request_body: string;
  };
  const response = await svc.client.post("/shop/add_log_entry", {
    body: expected.request_body,
    headers: expected.request_headers,
  });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), expected.headers["content-type"]);
  assert.equal(response.headers.get("cache-control"), expected.headers["cache-control"]);
  assert.deepEqual(response.json(), expected.body);
  assert.equal((await logMessages(svc)).at(-1), "restocked trowels");
});

Deno.test("GET on a writable query shows the form only, with the CSRF token", async () => {
  await using svc = shopService();
  const before = await logMessages(svc);
  const response = await svc.client.get("/shop/add_log_entry?message=prefilled");
  assert.equal(response.status, 200);
  assert.match(response.text, /<form class="sql-form write-form"[^>]*method="post">/);
  assert.match(response.text, /<input type="hidden" name="csrftoken" value="[^"]+">/);
  assert.match(response.text, /name="message" value="prefilled"/);
  assert.ok(response.cookies.ds_csrftoken);
  assert.deepEqual(await logMessages(svc), before);
});

Deno.test("a form POST redirects back with a flash message shown on the next page", async () => {
  await using svc = shopService();
  const response = await svc.client.post("/shop/add_log_entry?x=1", {
    data: { message: "from a form" },
  });
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("location"), "/shop/add_log_entry?x=1");
  const messages = decodeMessages(svc.signer, response.cookies.ds_messages);
  assert.deepEqual(messages, [["Query executed, 1 row affected", svc.INFO]]);
  const next = await svc.client.get("/shop/add_log_entry", { cookies: response.cookies });
  assert.match(next.text, /class="message message-info">Query executed, 1 row affected</);
});

Deno.test("JSON bodies, ?_json=1 and _json in the body all choose JSON output", async () => {
  await using svc = shopService();
  const viaJsonBody = await svc.client.post("/shop/add_log_entry", {
    json: { message: 42, _json: 1 },
  });
  assert.equal(viaJsonBody.status, 200);
  assert.deepEqual(viaJsonBody.json(), {
    ok: true,
    message: "Query executed, 1 row affected",
    redirect: null,
  });
  const viaQuery = await svc.client.post("/shop/add_log_entry?_json=1", {
    data: { message: "q" },
  });
  assert.equal((viaQuery.json() as { ok: boolean }).ok, true);
  const viaForm = await svc.client.post("/shop/add_log_entry", {
    data: { message: "f", _json: "1" },
  });
  assert.equal((viaForm.json() as { ok: boolean }).ok, true);
  // JSON values arrive as strings, like form values.
  assert.deepEqual((await logMessages(svc)).slice(-3), ["42", "q", "f"]);
});

Deno.test("on_success_message and on_success_redirect", async () => {
  await using svc = shopService({
    metadata: withQueries({
      add: {
        sql: "insert into log (message, level) values (:message, 'info')",
        write: true,
        on_success_message: "Thanks!",
        on_success_redirect: "/shop/log",
      },
    }),
  });
  const json = await svc.client.post("/shop/add", {
    data: { message: "m" },
    headers: JSON_ACCEPT,
  });
  assert.deepEqual(json.json(), { ok: true, message: "Thanks!", redirect: "/shop/log" });
  const form = await svc.client.post("/shop/add", { data: { message: "m" } });
  assert.equal(form.status, 302);
  assert.equal(form.headers.get("location"), "/shop/log");
  assert.deepEqual(decodeMessages(svc.signer, form.cookies.ds_messages), [["Thanks!", svc.INFO]]);
});

Deno.test("on_success_message_sql runs after the write with the same parameters", async () => {
  await using svc = shopService({
    metadata: withQueries({
      add: {
        sql: "insert into log (message, level) values (:message, 'info')",
        write: true,
        on_success_message_sql:
          "select 'Added ' || :message || ', now ' || count(*) || ' entries' from log",
      },
      broken: {
        sql: "insert into log (message, level) values (:message, 'info')",
        write: true,
        on_success_message_sql: "select * from nope",
      },
    }),
  });
  const json = await svc.client.post("/shop/add", {
    data: { message: "m" },
    headers: JSON_ACCEPT,
  });
  assert.deepEqual(json.json(), { ok: true, message: "Added m, now 4 entries", redirect: null });
  const form = await svc.client.post("/shop/broken", { data: { message: "m" } });
  assert.deepEqual(decodeMessages(svc.signer, form.cookies.ds_messages), [
    ["Error running on_success_message_sql: no such table: nope", svc.ERROR],
  ]);
});

Deno.test("a failing write answers 400 JSON or redirects with an error, changing nothing", async () => {
  await using svc = shopService({
    metadata: withQueries({
      failing: {
        // The first row inserts, the second fails: the transaction must undo both.
        sql: "insert into log (message, level) " +
          "select :message, 'info' union all select json('{'), 'info'",
        write: true,
      },
      custom: {
        sql: "insert into nope values (:x)",
        write: true,
        on_error_message: "Could not save",
        on_error_redirect: "/shop?failed=1",
      },
    }),
  });
  const before = await logMessages(svc);
  const json = await svc.client.post("/shop/failing", {
    data: { message: "half" },
    headers: JSON_ACCEPT,
  });
  assert.equal(json.status, 400);
  const body = json.json() as Record<string, unknown>;
  assert.equal(body.ok, false);
  assert.match(String(body.message), /malformed JSON/);
  assert.equal(body.redirect, null);
  assert.equal(json.headers.get("cache-control"), null);
  assert.deepEqual(await logMessages(svc), before);

  const custom = await svc.client.post("/shop/custom", {
    data: { x: "1" },
    headers: JSON_ACCEPT,
  });
  assert.equal(custom.status, 400);
  const customBody = custom.json() as Record<string, unknown>;
  assert.equal(customBody.message, "Could not save");
  assert.equal(customBody.redirect, "/shop?failed=1");
  const form = await svc.client.post("/shop/custom", { data: { x: "1" } });
  assert.equal(form.status, 302);
  assert.equal(form.headers.get("location"), "/shop?failed=1");
  assert.deepEqual(decodeMessages(svc.signer, form.cookies.ds_messages), [
    ["Could not save", svc.ERROR],
  ]);
});

Deno.test("the default message counts rows", async () => {
  await using svc = shopService({
    metadata: withQueries({
      clear: { sql: "update log set level = level where :x = :x", write: true },
      none: { sql: "delete from log where message = :message", write: true },
    }),
  });
  const three = await svc.client.post("/shop/clear", { data: { x: "1" }, headers: JSON_ACCEPT });
  assert.equal((three.json() as { message: string }).message, "Query executed, 3 rows affected");
  const zero = await svc.client.post("/shop/none", {
    data: { message: "absent" },
    headers: JSON_ACCEPT,
  });
  assert.equal((zero.json() as { message: string }).message, "Query executed, 0 rows affected");
});

Deno.test("a writable query on an immutable database is a 403", async () => {
  await using svc = new Service({ immutables: [buildShopDb()], metadata: SHOP_METADATA });
  const response = await svc.client.post("/shop/add_log_entry", {
    data: { message: "x" },
    headers: JSON_ACCEPT,
  });
  assert.equal(response.status, 403);
  assert.equal((response.json() as { error: string }).error, "Database is immutable");
});

Deno.test("50 concurrent POSTs all land, in the order they were sent", async () => {
  await using svc = shopService({
    metadata: withQueries({
      add_n: { sql: "insert into log (message, level) values (:n, 'info')", write: true },
    }),
  });
  const before = await logMessages(svc);
  const numbers = Array.from({ length: 50 }, (_, i) => String(i));
  const responses = await Promise.all(
    numbers.map((n) => svc.client.post("/shop/add_n", { data: { n }, headers: JSON_ACCEPT })),
  );
  assert.ok(responses.every((r) => r.status === 200));
  assert.deepEqual(await logMessages(svc), [...before, ...numbers]);
});

Deno.test("a writable query without permission is a 403 and writes nothing", async () => {
  await using svc = shopService({
    metadata: withQueries({
      guarded: {
        sql: "insert into log (message, level) values (:message, 'info')",
        write: true,
        allow: { id: "admin" },
      },
    }),
  });
  const before = await logMessages(svc);
  const response = await svc.client.post("/shop/guarded", {
    data: { message: "x" },
    headers: JSON_ACCEPT,
  });
  assert.equal(response.status, 403);
  assert.deepEqual(await logMessages(svc), before);
});

Deno.test("a JSON body that is not an object is a 400 and writes nothing", async () => {
  await using svc = shopService();
  const before = (await svc.client.get("/shop/log.json?_extra=count")).json().count;
  const response = await svc.client.post("/shop/add_log_entry", {
    body: "[1]",
    headers: { "content-type": "application/json", accept: "application/json" },
  });
  assert.equal(response.status, 400);
  assert.match(response.json().error, /JSON body must be an object/);
  assert.equal((await svc.client.get("/shop/log.json?_extra=count")).json().count, before);
});
