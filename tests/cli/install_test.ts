/**
 * `vitrine install` / `uninstall`: plugins recorded in the plugins file of the configuration
 * folder, loaded by `serve` (listed on `/-/plugins.json`) and `vitrine plugins`; remote plugins
 * are cached at install time.
 */
import assert from "node:assert/strict";
import { buildShopDb } from "../fixtures/shop.ts";
import { vitrine } from "../plugins/publish/fake_tools.ts";

function setup() {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-install-" });
  Deno.writeTextFileSync(
    `${dir}/greeter.ts`,
    `export function extra_body_script() { return "window.greeter = 'hi';"; }\n`,
  );
  const env = { NO_COLOR: "1", VITRINE_CONFIG_HOME: `${dir}/config` };
  return { dir, env, db: buildShopDb(dir) };
}

async function servedPlugins(db: string, env: Record<string, string>): Promise<string[]> {
  const result = await vitrine([db, "--get", "/-/plugins.json"], env);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout).map((plugin: { name: string }) => plugin.name);
}

Deno.test("install records a local plugin that serve then loads; uninstall removes it", async () => {
  const { dir, env, db } = setup();
  const installed = await vitrine(["install", "greeter.ts"], env, dir);
  assert.equal(installed.code, 0, installed.stderr);
  assert.match(installed.stdout, /Installed greeter/);
  const file = JSON.parse(Deno.readTextFileSync(`${dir}/config/plugins.json`));
  assert.deepEqual(file.plugins, [
    { name: "greeter", specifier: `${dir}/greeter.ts`, version: null },
  ]);

  // From another directory: the recorded path is absolute.
  assert.deepEqual(await servedPlugins(db, env), ["greeter"]);
  const page = await vitrine([db, "--get", "/shop"], env, "/");
  assert.match(page.stdout, /window\.greeter = 'hi';/);
  const listed = await vitrine(["plugins"], env);
  assert.deepEqual(JSON.parse(listed.stdout).map((p: { name: string }) => p.name), ["greeter"]);

  const again = await vitrine(["install", `${dir}/greeter.ts`], env);
  assert.match(again.stdout, /greeter was already installed/);

  const unknown = await vitrine(["uninstall", "nope"], env);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /not installed: nope \(installed: greeter\)/);

  const removed = await vitrine(["uninstall", "greeter"], env);
  assert.equal(removed.code, 0, removed.stderr);
  assert.deepEqual(await servedPlugins(db, env), []);
});

Deno.test("a plugin folder installs under its package name and version", async () => {
  const { dir, env, db } = setup();
  Deno.mkdirSync(`${dir}/pkg`);
  Deno.writeTextFileSync(
    `${dir}/pkg/package.json`,
    JSON.stringify({ name: "vitrine-shiny", version: "2.1.0", main: "main.js" }),
  );
  Deno.writeTextFileSync(`${dir}/pkg/main.js`, "export function startup() {}\n");
  const result = await vitrine(["install", "./pkg"], env, dir);
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Installed vitrine-shiny 2\.1\.0/);
  const served = await vitrine([db, "--get", "/-/plugins.json"], env);
  assert.deepEqual(JSON.parse(served.stdout), [
    {
      name: "vitrine-shiny",
      static: false,
      templates: false,
      version: "2.1.0",
      hooks: ["startup"],
    },
  ]);
});

Deno.test("an https/http plugin is cached at install time and loads without its server", async () => {
  const { env, db } = setup();
  const path = `/${crypto.randomUUID()}/remote_greeter.js`;
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (request) =>
      new URL(request.url).pathname === path
        ? new Response("export function extra_body_script() { return 'window.remote = 1;'; }\n", {
          headers: { "content-type": "text/javascript" },
        })
        : new Response("not found", { status: 404 }),
  );
  const url = `http://127.0.0.1:${server.addr.port}${path}`;
  try {
    const result = await vitrine(["install", url], env);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Installed remote_greeter/);
  } finally {
    await server.shutdown();
  }
  // The server is gone: the module now comes from Deno's cache.
  const page = await vitrine([db, "--get", "/shop"], env);
  assert.equal(page.code, 0, page.stderr);
  assert.match(page.stdout, /window\.remote = 1;/);
});

Deno.test("install failures are clear and change nothing; XDG_CONFIG_HOME is honoured", async () => {
  const { dir, db } = setup();
  const env = { NO_COLOR: "1", XDG_CONFIG_HOME: `${dir}/xdg` };
  const missing = await vitrine(["install", "./no_such_plugin.ts"], env, dir);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Cannot load plugin "no_such_plugin".*file not found/);
  assert.throws(() => Deno.statSync(`${dir}/xdg/vitrine/plugins.json`));

  assert.equal((await vitrine(["install", "greeter.ts"], env, dir)).code, 0);
  assert.ok(Deno.statSync(`${dir}/xdg/vitrine/plugins.json`).isFile);

  // The plugin's file disappears: serve says which plugin fails; uninstall still works.
  Deno.removeSync(`${dir}/greeter.ts`);
  const broken = await vitrine([db, "--get", "/"], env);
  assert.equal(broken.code, 1);
  assert.match(broken.stderr, /greeter/);
  const removed = await vitrine(["uninstall", "greeter"], env);
  assert.equal(removed.code, 0, removed.stderr);
  assert.match(removed.stderr, /Warning: .*greeter.*vitrine uninstall greeter removes it/);
  assert.equal((await vitrine([db, "--get", "/"], env)).code, 0);
});
