/**
 * The `dclient` 0.4 command-line client against a real server, speaking HTTP as it does (its
 * `query`, `insert` and `actor` commands, read from its source; it cannot be installed here). It
 * reads the shapes of the spec's era, so these requests pin what must not change under the 1.0
 * JSON API: the status codes, `ok`, `rows`, `error` / `title` / `errors`, and no redirects (its
 * HTTP client does not follow them).
 */
import assert from "node:assert/strict";
import { serve } from "../../src/app/server.ts";
import { writeService } from "./write/_write_helpers.ts";
import type { Service } from "../../src/service.ts";

/** A server on a free loopback port, its base URL, and a bearer token for `writer`. */
async function withServer(fn: (base: string, token: string, svc: Service) => Promise<void>) {
  await using svc = writeService();
  const server = await serve(svc, { port: 0, host: "127.0.0.1" });
  try {
    const base = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
    await fn(base, svc.create_token("writer"), svc);
  } finally {
    await server.shutdown();
  }
}

/** `dclient query URL SQL`: GET `<url>.json?sql=…&_shape=objects`, redirects not followed. */
async function dclientQuery(dbUrl: string, sql: string, token: string | null) {
  const params = new URLSearchParams({ sql, _shape: "objects" });
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const response = await fetch(`${dbUrl}.json?${params}`, { headers, redirect: "manual" });
  const text = await response.text();
  return { status: response.status, data: JSON.parse(text) as Record<string, unknown> };
}

/** dclient's error line: "<title>: <error>" from the JSON body. */
function errorLine(data: Record<string, unknown>): string {
  return [data.title, data.error].filter(Boolean).join(": ");
}

/** `dclient insert URL TABLE FILE [--create] [--pk …]`: one batch POSTed as dclient builds it. */
async function dclientInsert(
  dbUrl: string,
  table: string,
  rows: Record<string, unknown>[],
  token: string,
  options: { create?: boolean; pks?: string[]; replace?: boolean; alter?: boolean } = {},
) {
  const body: Record<string, unknown> = options.create ? { table, rows } : { rows };
  if (options.replace) body.replace = true;
  if (options.alter) body.alter = true;
  if (options.create && options.pks?.length === 1) body.pk = options.pks[0];
  else if (options.create && options.pks) body.pks = options.pks;
  const url = options.create ? `${dbUrl}/-/create` : `${dbUrl}/${table}/-/insert`;
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
    redirect: "manual",
  });
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    data: await response.json() as Record<string, unknown>,
  };
}

Deno.test("dclient 0.4 query: 200, ok and rows from <db>.json?sql=, no redirect", async () => {
  await withServer(async (base, token) => {
    const { status, data } = await dclientQuery(
      `${base}/shop`,
      "select id, name from categories order by id limit 2",
      token,
    );
    assert.equal(status, 200);
    assert.equal(data.ok, true);
    assert.deepEqual(data.rows, [{ id: 1, name: "Kitchen" }, { id: 2, name: "Garden" }]);
    // Anonymous works too (read-only by default grants reading).
    const anonymous = await dclientQuery(`${base}/shop`, "select 1 as one", null);
    assert.deepEqual([anonymous.status, anonymous.data.rows], [200, [{ one: 1 }]]);
  });
});

Deno.test("dclient 0.4 query: a bad query is a JSON error it can print", async () => {
  await withServer(async (base, token) => {
    const missing = await dclientQuery(`${base}/shop`, "select * from nope", token);
    assert.equal(missing.status, 400);
    assert.equal(missing.data.ok, false);
    assert.equal(errorLine(missing.data), "no such table: nope");
    const invalid = await dclientQuery(`${base}/shop`, "delete from log", token);
    assert.equal(invalid.status, 400);
    assert.equal(errorLine(invalid.data), "Invalid SQL: Statement must be a SELECT");
  });
});

Deno.test("dclient 0.4 insert: --create, then more rows, then an error it shows from errors", async () => {
  await withServer(async (base, token, svc) => {
    const created = await dclientInsert(
      `${base}/shop`,
      "visits",
      [{ id: 1, day: "2024-05-01", count: 3 }, { id: 2, day: "2024-05-02", count: 5 }],
      token,
      { create: true, pks: ["id"] },
    );
    assert.equal(created.status, 201);
    assert.match(created.contentType, /\/json/);
    assert.equal(created.data.ok, true);
    const more = await dclientInsert(`${base}/shop`, "visits", [
      { id: 3, day: "2024-05-03", count: 8 },
    ], token);
    assert.equal(more.status, 201);
    assert.equal(more.data.ok, true);
    const replaced = await dclientInsert(
      `${base}/shop`,
      "visits",
      [
        { id: 3, day: "2024-05-03", count: 9 },
      ],
      token,
      { replace: true },
    );
    assert.equal(replaced.status, 201);
    const clash = await dclientInsert(`${base}/shop`, "visits", [
      { id: 1, day: "again", count: 0 },
    ], token);
    assert.equal(clash.status, 400);
    assert.match(clash.contentType, /\/json/);
    assert.deepEqual(clash.data.errors, ["UNIQUE constraint failed: visits.id"]);
    const rows = (await svc.client.get("/shop/visits.json?_shape=array")).json();
    assert.deepEqual(rows, [
      { id: 1, day: "2024-05-01", count: 3 },
      { id: 2, day: "2024-05-02", count: 5 },
      { id: 3, day: "2024-05-03", count: 9 },
    ]);
  });
});

Deno.test("dclient 0.4 actor: /-/actor.json names the token's actor", async () => {
  await withServer(async (base, token) => {
    const response = await fetch(`${base}/-/actor.json`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.status, 200);
    const body = await response.json();
    assert.equal(body.actor.id, "writer");
  });
});
