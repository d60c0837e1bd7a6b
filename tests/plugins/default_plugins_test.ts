/**
 * Core's answers to `forbidden`, `handle_exception` and `permission_allowed` are trylast default
 * plugins (src/plugins/defaults/): listed with `/-/plugins.json?all=1`, asked after every user
 * plugin, and still answering when a user plugin fails at the same hook.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import { quietly } from "../fixtures/quietly.ts";

const PLUGIN = `
export function forbidden({ request }) {
  if (request.args.get("fail") === "throw") throw new Error("forbidden hook broke");
  return null;
}
export function handle_exception({ request }) {
  // Records nothing and never answers: the time limit cuts it off.
  if (request.args.get("fail") === "hang") return new Promise(() => {});
  return null;
}
export function permission_allowed({ actor, action }) {
  return actor?.id === "analyst" && action === "execute-sql" ? true : null;
}
export function register_routes() {
  return [["^/-/explode$", () => { throw new Error("exploded"); }]];
}
`;

function pluginService(settings: Record<string, unknown> = {}) {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-defaults-" });
  Deno.writeTextFileSync(`${dir}/recorder.js`, PLUGIN);
  return shopService({
    plugins_dir: dir,
    secret: "s",
    metadata: { databases: { shop: { tables: { log: { allow: false } } } } },
    settings: { hook_time_limit_ms: 200, ...settings },
  });
}

Deno.test("core's error pages and permission answer are listed as built-in plugins", async () => {
  await using svc = pluginService();
  const names = (await svc.client.get("/-/plugins.json?all=1")).json().map(
    (plugin: { name: string }) => plugin.name,
  );
  assert.ok(names.includes("vitrine.error_pages"), names.join(", "));
  assert.ok(names.includes("vitrine.default_permissions"), names.join(", "));
  const installed = (await svc.client.get("/-/plugins.json")).json();
  assert.deepEqual(installed.map((plugin: { name: string }) => plugin.name), ["recorder"]);
});

Deno.test("a forbidden hook that throws still leaves the default 403 page", async () => {
  await using svc = pluginService();
  const page = await quietly(() => svc.client.get("/shop/log?fail=throw"));
  assert.equal(page.status, 403);
  assert.match(page.text, /<title>Forbidden<\/title>|<h1>Forbidden<\/h1>/);
  assert.doesNotMatch(page.text, /forbidden hook broke/);
  const json = await quietly(() => svc.client.get("/shop/log.json?fail=throw"));
  assert.equal(json.status, 403);
  assert.equal(json.json().ok, false);
});

Deno.test("a handle_exception hook that hangs still leaves the default 500 page", async () => {
  await using svc = pluginService();
  const page = await quietly(() => svc.client.get("/-/explode?fail=hang"));
  assert.equal(page.status, 500);
  assert.match(page.text, /exploded/);
  const json = await quietly(() =>
    svc.client.get("/-/explode?fail=hang", { headers: { accept: "application/json" } })
  );
  assert.equal(json.status, 500);
  assert.equal(json.json().error, "exploded");
});

Deno.test("default_allow_sql off: core denies execute-sql after the plugins had their say", async () => {
  await using svc = pluginService({ default_allow_sql: false });
  const sql = "/shop.json?sql=select+1+as+one";
  assert.equal((await quietly(() => svc.client.get(sql))).status, 403);
  const analyst = svc.sign({ a: { id: "analyst" } }, "actor");
  const granted = await svc.client.get(sql, { cookies: { ds_actor: analyst } });
  assert.equal(granted.status, 200, granted.text);
  assert.deepEqual(granted.json().rows, [{ one: 1 }]);
});
