/**
 * Stored queries as two actors: alice stores, lists, shares, edits and deletes; bob sees only
 * what is shared with him; the JSON API and the HTML forms give the same answers.
 */
import assert from "node:assert/strict";
import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";
import { signedIn, submitForm } from "./_auth_helpers.ts";
import { decodeMessages } from "../../src/auth/messages.ts";

function service(options: { internal?: string; files?: string[] } = {}): Service {
  return new Service({
    files: options.files ?? [buildShopDb()],
    internal: options.internal,
    metadata: {
      ...SHOP_METADATA,
      permissions: { "store-query": { id: ["alice", "bob"] } },
    },
  });
}

const ALICE = { id: "alice" };
const BOB = { id: "bob" };
const CAROL = { id: "carol" };

async function storeJson(svc: Service, actor: object, query: Record<string, unknown>) {
  return await svc.client.post("/shop/-/queries/store", {
    json: { query },
    cookies: signedIn(svc, actor as never),
  });
}

async function listNames(svc: Service, actor: object | null): Promise<string[]> {
  const cookies = actor ? signedIn(svc, actor as never) : {};
  const body = (await svc.client.get("/shop/-/queries.json", { cookies })).json() as {
    queries: { name: string }[];
  };
  return body.queries.map((query) => query.name);
}

Deno.test("a private query is its owner's alone; a shared one runs for both", async () => {
  await using svc = service();
  const stored = await storeJson(svc, ALICE, {
    name: "cheap",
    sql: "select name from products where price < :limit order by name",
    title: "Cheap products",
  });
  assert.equal(stored.status, 201, stored.text);
  const body = stored.json() as { ok: boolean; query: Record<string, unknown> };
  assert.equal(body.ok, true);
  assert.equal(body.query.name, "cheap");
  assert.equal(body.query.owner_id, "alice");
  assert.equal(body.query.is_private, true, "private unless said otherwise, as the reference");
  assert.deepEqual(body.query.parameters, ["limit"]);

  // Alice runs it; bob and anonymous visitors cannot tell it exists.
  const run = await svc.client.get("/shop/cheap.json?limit=5", { cookies: signedIn(svc, ALICE) });
  assert.equal(run.status, 200, run.text);
  assert.equal(run.headers.get("cache-control"), null, "a stored query's results are not cached");
  assert.ok((run.json() as { rows: unknown[] }).rows.length > 0);
  assert.equal(
    (await svc.client.get("/shop/cheap.json", { cookies: signedIn(svc, BOB) })).status,
    404,
  );
  assert.equal(
    (await svc.client.get("/shop/cheap/-/definition", { cookies: signedIn(svc, BOB) })).status,
    404,
  );
  assert.deepEqual(await listNames(svc, ALICE), ["cheap"]);
  assert.deepEqual(await listNames(svc, BOB), []);
  assert.deepEqual(await listNames(svc, null), []);
  const databasePage = await svc.client.get("/shop", { cookies: signedIn(svc, BOB) });
  assert.doesNotMatch(databasePage.text, /Cheap products/);

  // Shared with bob by name: he runs it, carol still cannot.
  const shared = await svc.client.post("/shop/cheap/-/update", {
    json: { update: { shared_with: ["bob"] }, return: true },
    cookies: signedIn(svc, ALICE),
  });
  assert.equal(shared.status, 200, shared.text);
  assert.deepEqual((shared.json() as { query: { shared_with: string[] } }).query.shared_with, [
    "bob",
  ]);
  assert.equal(
    (await svc.client.get("/shop/cheap.json?limit=5", { cookies: signedIn(svc, BOB) })).status,
    200,
  );
  assert.equal(
    (await svc.client.get("/shop/cheap.json", { cookies: signedIn(svc, CAROL) })).status,
    404,
  );
  assert.deepEqual(await listNames(svc, BOB), ["cheap"]);

  // Bob sees it but may not change or delete it.
  const bobUpdate = await svc.client.post("/shop/cheap/-/update", {
    json: { update: { title: "Mine now" } },
    cookies: signedIn(svc, BOB),
  });
  assert.equal(bobUpdate.status, 403);
  assert.match(bobUpdate.text, /need update-query/);
  const bobDelete = await svc.client.post("/shop/cheap/-/delete", {
    json: {},
    cookies: signedIn(svc, BOB),
  });
  assert.equal(bobDelete.status, 403);

  // Shared with the instance: anonymous visitors run it too, and the database page lists it.
  await svc.client.post("/shop/cheap/-/update", {
    json: { update: { is_private: false } },
    cookies: signedIn(svc, ALICE),
  });
  assert.equal((await svc.client.get("/shop/cheap.json?limit=5")).status, 200);
  assert.deepEqual(await listNames(svc, null), ["cheap"]);
  assert.match(
    (await svc.client.get("/shop")).text,
    /<a href="\/shop\/cheap"[^>]*>Cheap products<\/a>/,
  );

  // Deleted: gone for everyone.
  const deleted = await svc.client.post("/shop/cheap/-/delete", {
    json: {},
    cookies: signedIn(svc, ALICE),
  });
  assert.deepEqual(deleted.json(), { ok: true });
  assert.equal(
    (await svc.client.get("/shop/cheap.json", { cookies: signedIn(svc, ALICE) })).status,
    404,
  );
  assert.deepEqual(await listNames(svc, ALICE), []);
});

Deno.test("the HTML forms store, edit and delete like the JSON API", async () => {
  await using svc = service();
  const alice = signedIn(svc, ALICE);
  const saved = await submitForm(svc, "/shop/-/queries/store?sql=select+1", {
    name: "one",
    title: "Just one",
    sql: "select 1 as one",
    sharing: "actors",
    shared_with: "bob, carol",
  }, alice);
  assert.equal(saved.status, 302, saved.text);
  assert.equal(saved.headers.get("location"), "/shop/one");
  // Without --internal the query lives in memory, and the message says so.
  assert.deepEqual(decodeMessages(svc.signer, saved.cookies.ds_messages), [[
    "Query saved, in memory only: it is lost when Vitrine stops. To keep stored queries, " +
    "start Vitrine with --internal FILE (a file it creates).",
    svc.WARNING,
  ]]);
  const definition = (await svc.client.get("/shop/one/-/definition", { cookies: alice }))
    .json() as {
      query: Record<string, unknown>;
    };
  assert.equal(definition.query.title, "Just one");
  assert.equal(definition.query.is_private, true);
  assert.deepEqual(definition.query.shared_with, ["bob", "carol"]);
  // The list page shows who it is shared with and the owner's edit and delete links.
  const list = (await svc.client.get("/shop/-/queries", { cookies: alice })).text;
  assert.match(list, /Just one/);
  assert.match(list, /shared with bob, carol/);
  assert.match(list, /href="\/shop\/one\/-\/edit"/);
  assert.doesNotMatch(
    (await svc.client.get("/shop/-/queries", { cookies: signedIn(svc, BOB) })).text,
    /\/-\/edit/,
  );

  // The SQL editor offers to save; a stored query's page offers its owner edit and delete.
  const editor = (await svc.client.get("/shop/-/query?sql=select+3", { cookies: alice })).text;
  assert.match(editor, /href="\/shop\/-\/queries\/store\?sql=select\+3">Save this query/);
  assert.doesNotMatch((await svc.client.get("/shop/-/query?sql=select+3")).text, /Save this query/);
  const page = (await svc.client.get("/shop/one", { cookies: alice })).text;
  assert.match(page, /href="\/shop\/one\/-\/edit">Edit query/);
  assert.match(page, /href="\/shop\/one\/-\/delete">Delete query/);
  const bobPage = (await svc.client.get("/shop/one", { cookies: signedIn(svc, BOB) })).text;
  assert.match(bobPage, /Just one/);
  assert.doesNotMatch(bobPage, /Edit query/);

  const edited = await submitForm(svc, "/shop/one/-/edit", {
    title: "Just one, edited",
    description: "",
    sql: "select 2 as two",
    sharing: "instance",
  }, alice);
  assert.equal(edited.status, 302, edited.text);
  const anonymous = await svc.client.get("/shop/one.json");
  assert.deepEqual((anonymous.json() as { rows: unknown[] }).rows, [{ two: 2 }]);

  // A mistake comes back on the form with the message, nothing saved.
  const bad = await submitForm(svc, "/shop/-/queries/store", {
    name: "products",
    sql: "select 1",
    sharing: "private",
  }, alice);
  assert.equal(bad.status, 400);
  assert.match(bad.text, /taken by a table or view/);

  const deleted = await submitForm(svc, "/shop/one/-/delete", {}, alice);
  assert.equal(deleted.status, 302);
  assert.equal((await svc.client.get("/shop/one.json")).status, 404);
});

Deno.test("storing needs store-query and a read-only query over visible tables", async () => {
  await using svc = service();
  const carol = await storeJson(svc, CAROL, { name: "x", sql: "select 1" });
  assert.equal(carol.status, 403);
  assert.match(carol.text, /need store-query/);
  const anonymous = await svc.client.post("/shop/-/queries/store", {
    json: { query: { name: "x", sql: "select 1" } },
  });
  assert.equal(anonymous.status, 403);
  for (
    const [query, message] of [
      [{ name: "x", sql: "delete from products" }, /Stored queries must be read-only/],
      [{ name: "-x", sql: "select 1" }, /Query name must be/],
      [{ name: "x" }, /sql is required/],
      [{ name: "x", sql: "select 1", colour: "red" }, /Invalid keys: colour/],
      [{ name: "x", sql: "select 1", shared_with: "nobody" }, null],
      [{ name: "x", sql: "select 2" }, /Query already exists/],
    ] as const
  ) {
    const response = await storeJson(svc, ALICE, query);
    if (message === null) assert.equal(response.status, 201, response.text);
    else {
      assert.equal(response.status, 400, JSON.stringify(query));
      assert.match((response.json() as { error: string }).error, message);
    }
  }
});

Deno.test("stored queries last across restarts with --internal", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-stored-" });
  const files = [buildShopDb()];
  const internal = `${dir}/internal.db`;
  {
    await using svc = service({ internal, files });
    const stored = await storeJson(svc, ALICE, {
      name: "kept",
      sql: "select 1 as x",
      is_private: false,
    });
    assert.equal(stored.status, 201, stored.text);
    const saved = await submitForm(svc, "/shop/-/queries/store", {
      name: "form",
      sql: "select 2 as y",
    }, signedIn(svc, ALICE));
    assert.equal(saved.status, 302, saved.text);
    assert.deepEqual(decodeMessages(svc.signer, saved.cookies.ds_messages), [[
      "Query saved",
      svc.INFO,
    ]]);
  }
  await using again = service({ internal, files });
  const run = await again.client.get("/shop/kept.json");
  assert.equal(run.status, 200, run.text);
  assert.deepEqual((run.json() as { rows: unknown[] }).rows, [{ x: 1 }]);
  const all = (await again.client.get("/-/queries.json")).json() as {
    queries: { database: string }[];
  };
  assert.deepEqual(all.queries.map((query) => query.database), ["shop"]);
});

Deno.test("storing, updating and deleting a query send events to track_event", async () => {
  await using svc = service();
  const events: { name: string; actor: unknown; properties: Record<string, unknown> }[] = [];
  svc.pm.register({
    track_event: (
      { event }: { event: { name: string; actor: unknown; properties(): Record<string, unknown> } },
    ) => {
      events.push({ name: event.name, actor: event.actor, properties: event.properties() });
    },
  }, { name: "event-recorder" });
  const alice = signedIn(svc, ALICE);
  assert.equal((await storeJson(svc, ALICE, { name: "ev", sql: "select 1" })).status, 201);
  await svc.client.post("/shop/ev/-/update", {
    json: { update: { title: "Events", is_private: false } },
    cookies: alice,
  });
  await svc.client.post("/shop/ev/-/delete", { json: {}, cookies: alice });
  assert.deepEqual(events.map((event) => event.name), [
    "store-query",
    "update-query",
    "delete-query",
  ]);
  assert.deepEqual(events.map((event) => event.actor), [ALICE, ALICE, ALICE]);
  assert.deepEqual(events[0].properties, { database: "shop", query_name: "ev", is_private: true });
  assert.deepEqual(events[1].properties, {
    database: "shop",
    query_name: "ev",
    fields: ["is_private", "title"],
  });
  assert.deepEqual(events[2].properties, { database: "shop", query_name: "ev" });
});

Deno.test("a stored query shadowing a table made later is never answered from an ETag", async () => {
  const file = buildShopDb();
  await using svc = service({ files: [file] });
  const stored = await storeJson(svc, ALICE, {
    name: "later",
    sql: "select 7 as x",
    is_private: false,
  });
  assert.equal(stored.status, 201, stored.text);
  await svc.get_database("shop").execute_write_script(
    "create table later (x integer); insert into later values (1);",
  );
  // The table's page exists (its schema is read), yet /shop/later stays the stored query.
  assert.equal((await svc.client.get("/shop/later/1.json")).status, 200);
  for (let i = 0; i < 2; i++) {
    const page = await svc.client.get("/shop/later.json");
    assert.deepEqual((page.json() as { rows: unknown[] }).rows, [{ x: 7 }]);
    assert.equal(page.headers.get("etag"), null);
  }
});

Deno.test("the list pages with _size and _next and filters like the reference's", async () => {
  await using svc = service();
  for (
    const [actor, name, title, is_private] of [
      [ALICE, "q_b", "Bravo", false],
      [ALICE, "q_a", "Alpha", true],
      [BOB, "q_c", "Charlie", false],
    ] as const
  ) {
    const stored = await storeJson(svc, actor, { name, sql: "select 1", title, is_private });
    assert.equal(stored.status, 201, stored.text);
  }
  const alice = signedIn(svc, ALICE);
  type Page = {
    queries: { name: string }[];
    next: string | null;
    next_url: string | null;
    limit: number;
  };
  const first = (await svc.client.get("/shop/-/queries.json?_size=2", { cookies: alice }))
    .json() as Page;
  assert.deepEqual(first.queries.map((q) => q.name), ["q_a", "q_b"], "by title");
  assert.equal(first.limit, 2);
  assert.ok(first.next && first.next_url);
  const url = new URL(first.next_url!);
  const second = (await svc.client.get(url.pathname + url.search, { cookies: alice }))
    .json() as Page;
  assert.deepEqual(second.queries.map((q) => q.name), ["q_c"]);
  assert.equal(second.next, null);
  const names = async (query: string) =>
    ((await svc.client.get(`/shop/-/queries.json?${query}`, { cookies: alice })).json() as Page)
      .queries.map((q) => q.name);
  assert.deepEqual(await names("owner_id=bob"), ["q_c"]);
  assert.deepEqual(await names("is_private=1"), ["q_a"]);
  assert.deepEqual(await names("q=char"), ["q_c"]);
  assert.equal((await svc.client.get("/shop/-/queries.json?is_private=maybe")).status, 400);
  // The global list names each query's database.
  const global = (await svc.client.get("/-/queries.json?_size=1", { cookies: alice }))
    .json() as Page;
  assert.equal(global.queries.length, 1);
  assert.ok(global.next);
});
