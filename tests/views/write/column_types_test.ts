/**
 * Typed columns end to end: the built-in types markdown, date, datetime and image (with url and
 * email) refuse bad writes with a 400 naming the column and render their cells;
 * `/-/set-column-type` is refused without the action, sets and removes types with it, reports
 * them in `_extra=column_types`, and keeps them across restarts with `--internal`.
 */
import assert from "node:assert/strict";
import { buildShopDb, SHOP_METADATA } from "../../fixtures/shop.ts";
import { Service } from "../../../src/service.ts";
import { auth, post } from "./_write_helpers.ts";
import { signedIn, submitForm } from "../_auth_helpers.ts";

const TYPES = {
  orders: { column_types: { customer: "email", placed: "datetime" } },
  products: { column_types: { added: "date", notes: "markdown" } },
};

function service(options: { internal?: string; files?: string[] } = {}): Service {
  const grant = { id: "writer" };
  return new Service({
    files: options.files ?? [buildShopDb()],
    internal: options.internal,
    secret: "column-types",
    metadata: {
      ...SHOP_METADATA,
      databases: {
        ...SHOP_METADATA.databases,
        shop: {
          ...SHOP_METADATA.databases?.shop,
          permissions: { "insert-row": grant, "update-row": grant, "set-column-type": grant },
          tables: { ...SHOP_METADATA.databases?.shop?.tables, ...TYPES },
        },
      },
    },
  });
}

function errorsOf(response: { json: <T>() => T }): string {
  return response.json<{ errors: string[] }>().errors.join(" ");
}

Deno.test("a bad email, date or datetime is a 400 naming the column; good values are stored", async () => {
  await using svc = service();
  const email = await post(svc, "/shop/orders/-/insert", {
    row: { id: "B/1", customer: "not an address", placed: "2024-05-01T10:00:00" },
  });
  assert.equal(email.status, 400);
  assert.match(errorsOf(email), /Row 0 column "customer": Must be an email address/);
  const datetime = await post(svc, "/shop/orders/-/insert", {
    row: { id: "B/1", customer: "ada@example.com", placed: "2024-05-01 25:00" },
  });
  assert.equal(datetime.status, 400);
  assert.match(errorsOf(datetime), /column "placed": Must be an ISO 8601 date and time/);
  const date = await post(svc, "/shop/products/-/insert", {
    rows: [{ id: 90, name: "Pan", added: "2023-02-29" }, { id: 91, name: "Pot", added: "May" }],
  });
  assert.equal(date.status, 400);
  assert.match(errorsOf(date), /Row 0 column "added": Must be a date in the form YYYY-MM-DD/);
  assert.match(errorsOf(date), /Row 1 column "added"/);
  const good = await post(svc, "/shop/orders/-/insert", {
    row: { id: "B/1", customer: "ada@example.com", placed: "2024-05-01T10:00:00+02:00" },
  });
  assert.equal(good.status, 201, good.text);
  const leap = await post(svc, "/shop/products/-/insert", {
    row: { id: 90, name: "Pan", added: "2024-02-29" },
  });
  assert.equal(leap.status, 201, leap.text);
  const update = await post(svc, "/shop/products/90/-/update", { update: { added: "2024-13-01" } });
  assert.equal(update.status, 400);
  assert.match(errorsOf(update), /column "added"/);
});

Deno.test("markdown cells render formatted with their HTML escaped; image cells are lazy thumbnails", async () => {
  await using svc = service();
  const inserted = await post(svc, "/shop/products/-/insert", {
    row: {
      id: 90,
      name: "Pan",
      notes: "**Cast** iron <script>alert(1)</script> [shop](https://example.com/pan)",
      tags: "https://example.com/pan.png",
    },
  });
  assert.equal(inserted.status, 201, inserted.text);
  const set = await post(svc, "/shop/products/-/set-column-type", {
    column: "tags",
    column_type: { type: "image" },
  });
  assert.equal(set.status, 200, set.text);
  const page = await svc.client.get("/shop/products/90");
  assert.equal(page.status, 200);
  assert.match(page.text, /<strong>Cast<\/strong> iron &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(page.text, /<a href="https:\/\/example.com\/pan" rel="nofollow">shop<\/a>/);
  assert.doesNotMatch(page.text, /<script>alert/);
  assert.match(
    page.text,
    /<img src="https:\/\/example.com\/pan.png" alt="tags image" loading="lazy"/,
  );
  // The page's policy lets the browser load it (img-src is 'self' otherwise).
  assert.match(
    page.headers.get("content-security-policy") ?? "",
    /img-src [^;]*https:\/\/example\.com/,
  );
  const table = await svc.client.get("/shop/products?id=90");
  assert.match(table.text, /<img src="https:\/\/example.com\/pan.png"[^>]*loading="lazy"/);
  // An image column takes only http(s) URLs.
  const bad = await post(svc, "/shop/products/90/-/update", {
    update: { tags: "javascript:alert(1)" },
  });
  assert.equal(bad.status, 400);
  assert.match(errorsOf(bad), /column "tags": Must be a URL/);
});

Deno.test("set-column-type: refused without the action, sets, removes and validates with it", async () => {
  await using svc = service();
  const body = { column: "notes", column_type: { type: "email" } };
  const anonymous = await svc.client.post("/shop/products/-/set-column-type", { json: body });
  assert.equal(anonymous.status, 403);
  const carol = await post(svc, "/shop/products/-/set-column-type", body, auth(svc, "carol"));
  assert.equal(carol.status, 403);
  assert.match(errorsOf(carol), /set-column-type/);

  const set = await post(svc, "/shop/products/-/set-column-type", body);
  assert.equal(set.status, 200, set.text);
  assert.deepEqual(set.json(), {
    ok: true,
    database: "shop",
    table: "products",
    column: "notes",
    column_type: { type: "email", config: null },
  });
  const bad = await post(svc, "/shop/products/1/-/update", { update: { notes: "nope" } });
  assert.equal(bad.status, 400);
  assert.match(errorsOf(bad), /column "notes": Must be an email address/);
  const extras = await svc.client.get("/shop/products.json?_size=0&_extra=column_types");
  assert.deepEqual(extras.json<{ column_types: unknown }>().column_types, {
    added: { type: "date", config: null },
    notes: { type: "email", config: null },
  });

  // null takes the type away, a configured one too.
  const removed = await post(svc, "/shop/products/-/set-column-type", {
    column: "added",
    column_type: null,
  });
  assert.equal(removed.status, 200, removed.text);
  assert.equal(removed.json<{ column_type: unknown }>().column_type, null);
  const row = await svc.client.get("/shop/products/1.json?_extra=column_types");
  assert.deepEqual(row.json<{ column_types: unknown }>().column_types, {
    notes: { type: "email", config: null },
  });
  const free = await post(svc, "/shop/products/1/-/update", { update: { added: "someday" } });
  assert.equal(free.status, 200, free.text);

  for (
    const [payload, message] of [
      [{ column: "nope", column_type: { type: "email" } }, /Column not found: nope/],
      [{ column: "notes", column_type: { type: "colour" } }, /Unknown column type: colour/],
      [{ column: "price", column_type: { type: "email" } }, /only applicable to SQLite types TEXT/],
      [{ column: "notes" }, /"column_type" is required/],
      [{ column: "notes", column_type: "email" }, /must be an object or null/],
      [{ column: "notes", column_type: null, extra: 1 }, /Invalid keys: extra/],
    ] as const
  ) {
    const refused = await post(svc, "/shop/products/-/set-column-type", payload);
    assert.equal(refused.status, 400, JSON.stringify(payload));
    assert.match(errorsOf(refused), message);
  }
});

Deno.test("set-column-type by form needs the CSRF token and comes back to the table", async () => {
  await using svc = service();
  const cookies = signedIn(svc, { id: "writer" });
  const forged = await svc.client.post("/shop/products/-/set-column-type", {
    data: { column: "tags", column_type: "json" },
    cookies,
  });
  assert.equal(forged.status, 403);
  const sent = await submitForm(
    svc,
    "/shop/products",
    { column: "tags", column_type: "json" },
    cookies,
    "/shop/products/-/set-column-type",
  );
  assert.equal(sent.status, 302, sent.text);
  assert.equal(sent.headers.get("location"), "/shop/products");
  const extras = await svc.client.get("/shop/products.json?_size=0&_extra=column_types");
  assert.deepEqual(
    extras.json<{ column_types: Record<string, unknown> }>().column_types.tags,
    { type: "json", config: null },
  );
});

Deno.test("column types set through the API last across restarts with --internal", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-column-types-" });
  const files = [buildShopDb()];
  const internal = `${dir}/internal.db`;
  {
    await using svc = service({ internal, files });
    const set = await post(svc, "/shop/log/-/set-column-type", {
      column: "message",
      column_type: { type: "url", config: { note: "kept" } },
    });
    assert.equal(set.status, 200, set.text);
    const removed = await post(svc, "/shop/products/-/set-column-type", {
      column: "added",
      column_type: null,
    });
    assert.equal(removed.status, 200, removed.text);
  }
  await using again = service({ internal, files });
  const log = await again.client.get("/shop/log.json?_size=0&_extra=column_types");
  assert.deepEqual(log.json<{ column_types: unknown }>().column_types, {
    message: { type: "url", config: { note: "kept" } },
  });
  const products = await again.client.get("/shop/products.json?_size=0&_extra=column_types");
  assert.deepEqual(products.json<{ column_types: unknown }>().column_types, {
    notes: { type: "markdown", config: null },
  });
  const bad = await post(again, "/shop/log/-/insert", { row: { message: "plain", level: "x" } });
  assert.equal(bad.status, 400);
  assert.match(errorsOf(bad), /column "message": Must be a URL/);
});

Deno.test("a page served before a column type was set is not served again from its tag or cache", async () => {
  await using svc = service();
  const before = await svc.client.get("/shop/products/1");
  assert.equal(before.status, 200);
  const tag = before.headers.get("etag");
  assert.ok(tag, "row pages of files carry a tag");
  assert.doesNotMatch(before.text, /<img /);
  const set = await post(svc, "/shop/products/-/set-column-type", {
    column: "name",
    column_type: { type: "markdown" },
  });
  assert.equal(set.status, 200, set.text);
  const again = await svc.client.get("/shop/products/1", { headers: { "if-none-match": tag } });
  assert.equal(again.status, 200);
  assert.notEqual(again.headers.get("etag"), tag);
  assert.match(again.text, /<div class="markdown"><p>Chef knife<\/p><\/div>/);
});

Deno.test("a token restricted to set-column-type on one table sets types there and nowhere else", async () => {
  await using svc = service();
  const headers = auth(svc, "writer", { restrict_resource: { shop: { products: ["sct"] } } });
  const body = { column: "name", column_type: { type: "textarea" } };
  const there = await post(svc, "/shop/products/-/set-column-type", body, headers);
  assert.equal(there.status, 200, there.text);
  const elsewhere = await post(svc, "/shop/categories/-/set-column-type", body, headers);
  assert.equal(elsewhere.status, 403);
});
