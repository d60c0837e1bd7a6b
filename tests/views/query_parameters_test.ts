/**
 * Canned and stored query parameters with labels, defaults, choices and types: the form shows
 * a select, a date or a number box, defaults fill in, and a query runs at once only when every
 * parameter has a default.
 */
import assert from "node:assert/strict";
import { parametersService } from "../fixtures/parameters.ts";
import { signedIn } from "./_auth_helpers.ts";

Deno.test("a query whose parameters all have defaults runs with them at once", async () => {
  await using svc = parametersService();
  const json = (await svc.client.get("/shop/by_level.json")).json() as { rows: unknown[] };
  // `n` is a number parameter: it binds as a number, so :n + 1 is 42, not "411".
  assert.deepEqual(json.rows, [{ level: "warn", next: 42 }]);
  const html = (await svc.client.get("/shop/by_level")).text;
  assert.match(html, /<td class="col-level type-str">warn<\/td>/);
  assert.match(
    html,
    /<select id="qp1" name="level"><option value="info">info<\/option><option value="warn" selected>Warning<\/option><\/select>/,
  );
  assert.match(html, /<input type="number" step="any" id="qp2" name="n" value="41">/);
});

Deno.test("a query with a parameter without default shows its form and waits", async () => {
  await using svc = parametersService();
  const html = (await svc.client.get("/shop/by_category")).text;
  assert.doesNotMatch(html, /<table class="rows-and-columns">/, "not run before the form is sent");
  // Choices from options_sql: value the id, label the name, in its order.
  assert.match(
    html,
    /<label for="qp1">Category<\/label>\s*<select id="qp1" name="category"><option value=""><\/option><option value="2">Garden<\/option><option value="1">Kitchen<\/option><option value="3">Tools<\/option><\/select>/,
  );
  assert.match(
    html,
    /<label for="qp2">Highest price<\/label>\s*<input type="number" step="any" id="qp2" name="max_price" value="100">/,
  );
  assert.match(html, /<input type="date" id="qp3" name="since" value="">/);
  const ran = (await svc.client.get("/shop/by_category.json?category=1&max_price=5")).json() as {
    rows: { name: string }[];
  };
  assert.deepEqual(ran.rows.map((row) => row.name), ["Tea towel", "Wooden spoon"]);
  // The JSON API fills in missing parameters from their defaults too.
  const defaults = (await svc.client.get("/shop/by_category.json?category=1")).json() as {
    rows: unknown[];
  };
  assert.ok(defaults.rows.length >= 2);
});

Deno.test("a stored query keeps parameter objects; bad options_sql is refused", async () => {
  await using svc = parametersService();
  const alice = signedIn(svc, { id: "alice" });
  const stored = await svc.client.post("/shop/-/queries/store", {
    json: {
      query: {
        name: "cheaper",
        sql: "select name from products where price < :limit order by price limit 2",
        parameters: [{ name: "limit", type: "number", default: "10", label: "Below" }],
      },
    },
    cookies: alice,
  });
  assert.equal(stored.status, 201, stored.text);
  const run = (await svc.client.get("/shop/cheaper.json", { cookies: alice })).json() as {
    rows: unknown[];
  };
  assert.equal(run.rows.length, 2);
  const bad = await svc.client.post("/shop/-/queries/store", {
    json: {
      query: {
        name: "bad",
        sql: "select :x",
        parameters: [{ name: "x", options_sql: "delete from products" }],
      },
    },
    cookies: alice,
  });
  assert.equal(bad.status, 400);
  assert.match(bad.text, /options_sql/);
});
