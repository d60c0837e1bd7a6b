/**
 * The plugin author's experience: the plugins of tests/fixtures/plugins/authoring/, written by
 * following docs/plugins.md literally, loaded each documented way (`--plugins-dir`, `--plugin`, a
 * directory plugin, the metadata `plugins` list, `VITRINE_PLUGINS`), and the error messages an
 * author sees when a plugin misbehaves.
 */
import assert from "node:assert/strict";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";
import type { Service, ServiceOptions } from "../../src/service.ts";
import { seen } from "../fixtures/plugins/authoring/misbehaving.ts";
import { fromFileUrl } from "./test_paths.ts";

const dir = (path: string) =>
  fromFileUrl(new URL(`../fixtures/plugins/authoring/${path}`, import.meta.url));
const root = fromFileUrl(new URL("../..//", import.meta.url));
const PAGES = dir("pages");
const APIKEY = dir("apikey.ts");
const DECORATE = dir("decorate.ts");
const MISBEHAVING = dir("misbehaving.ts");

const CONFIG = {
  apikey: { keys: { k123: "alice" } },
  decorate: { banner: "Welcome, reader" },
};

/** A shop service with every authoring plugin, configured by the metadata `plugins` mapping. */
async function withPlugins(
  fn: (svc: Service) => Promise<void>,
  options: ServiceOptions = {},
): Promise<void> {
  await using svc = shopService({
    plugins_dir: dir("plugins_dir"),
    plugins: [PAGES, DECORATE, MISBEHAVING, APIKEY],
    metadata: { ...SHOP_METADATA, plugins: CONFIG },
    ...options,
  });
  await fn(svc);
}

Deno.test("every loading route shows on /-/plugins.json with name, version, static, templates", async () => {
  await withPlugins(async (svc) => {
    const listing = (await svc.client.get("/-/plugins.json")).json() as {
      name: string;
      version: string | null;
      static: boolean;
      templates: boolean;
    }[];
    const byName = Object.fromEntries(listing.map((plugin) => [plugin.name, plugin]));
    assert.deepEqual(Object.keys(byName), [
      "apikey",
      "atom",
      "decorate",
      "misbehaving",
      "stats",
      "vitrine-pages",
    ]);
    assert.equal(byName["vitrine-pages"].version, "1.2.3", "from package.json");
    assert.equal(byName.atom.version, "0.3.0", "from `export const version`");
    assert.equal(byName["vitrine-pages"].static, true);
    assert.equal(byName["vitrine-pages"].templates, true);
    const css = await svc.client.get("/-/static-plugins/vitrine-pages/greet.css");
    assert.equal(css.status, 200);
    assert.match(css.text, /color: green/);
  });
});

Deno.test("a metadata plugins list loads a plugin (a list cannot also configure it)", async () => {
  await using svc = shopService({ metadata: { ...SHOP_METADATA, plugins: [APIKEY] } });
  const listing = (await svc.client.get("/-/plugins.json")).json() as { name: string }[];
  assert.deepEqual(listing.map((plugin) => plugin.name), ["apikey"]);
  assert.equal(svc.plugin_config("apikey"), null);
});

Deno.test("prepare_connection: a SQL function and an aggregate work from ?sql=", async () => {
  await withPlugins(async (svc) => {
    const sql = "select slugify('Hello, World!') as slug, geomean(x) as g " +
      "from (select 2 as x union all select 8)";
    const response = await svc.client.get(
      `/shop/-/query.json?sql=${encodeURIComponent(sql)}&_shape=array`,
      { headers: { authorization: "Bearer k123" } },
    );
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json(), [{ slug: "hello-world", g: 4 }]);
  });
});

Deno.test("actor_from_request + permission_allowed: an API key configured by plugin_config", async () => {
  await withPlugins(async (svc) => {
    const actor = await svc.client.get("/-/actor.json", {
      headers: { authorization: "Bearer k123" },
    });
    assert.deepEqual(actor.json(), { ok: true, actor: { id: "alice", via: "apikey" } });
    const anonymous = await svc.client.get("/shop/-/query.json?sql=select+1");
    assert.equal(anonymous.status, 403);
    const wrongKey = await svc.client.get("/shop/-/query.json?sql=select+1", {
      headers: { authorization: "Bearer nope" },
    });
    assert.equal(wrongKey.status, 403);
  });
});

Deno.test("an .atom renderer: can_render decides the link, render answers the format", async () => {
  await withPlugins(async (svc) => {
    const products = await svc.client.get("/shop/products");
    assert.match(products.text, /href="\/shop\/products\.atom"/);
    const orders = await svc.client.get("/shop/orders");
    assert.doesNotMatch(orders.text, /\.atom/, "orders has no name column: no link");
    const feed = await svc.client.get("/shop/categories.atom");
    assert.equal(feed.status, 200);
    assert.equal(feed.headers.get("content-type"), "application/atom+xml; charset=utf-8");
    assert.match(feed.text, /<title>shop\/categories<\/title><entry><id>1<\/id><title>Kitchen/);
    assert.equal((await svc.client.get("/shop/orders.atom")).status, 404, "render declined");
  });
});

Deno.test("register_routes: a bundled template gets request.args, extra vars and static URLs", async () => {
  await withPlugins(async (svc) => {
    const page = await svc.client.get("/-/greet?name=%3CBob%3E");
    assert.equal(page.status, 200);
    assert.match(page.text, /<h1 class="greet">Hello &lt;Bob&gt;<\/h1>/);
    assert.match(page.text, /<p class="banner">Welcome, reader<\/p>/, "extra_template_vars");
    assert.match(page.text, /href="\/-\/static-plugins\/vitrine-pages\/greet\.css"/);
    const index = await svc.client.get("/");
    assert.match(index.text, /Index decorated by vitrine-pages/, "plugin template over default");
  });
});

Deno.test("--template-dir wins over a plugin's bundled template of the same name", async () => {
  const templates = await Deno.makeTempDir({ prefix: "vitrine-authoring-" });
  try {
    await Deno.writeTextFile(`${templates}/greet.html`, "<p>site greeting for {{ name }}</p>");
    await withPlugins(async (svc) => {
      const page = await svc.client.get("/-/greet?name=Ada");
      assert.equal(page.text.trim().split("\n")[0], "<p>site greeting for Ada</p>");
    }, { template_dir: templates });
  } finally {
    await Deno.remove(templates, { recursive: true });
  }
});

Deno.test("decorations: extra_body_script and extra_css_urls on every page", async () => {
  await withPlugins(async (svc) => {
    const page = await svc.client.get("/shop");
    assert.match(page.text, /<link rel="stylesheet" href="https:\/\/example\.com\/decorate\.css">/);
    assert.match(
      page.text,
      /<script nonce="[^"]*" type="module">\s*window\.VIEW_NAME = "database";/,
    );
  });
});

Deno.test("a startup hook that throws stops start-up with the plugin's name", async () => {
  await using svc = shopService({ plugins: [DECORATE] });
  await assert.rejects(() => svc.invoke_startup(), {
    name: "PluginError",
    message: 'Plugin "decorate" failed in startup: ' +
      "set plugins.decorate.banner to a string in the metadata",
  });
  const response = await svc.client.get("/");
  assert.equal(response.status, 500);
  assert.match(response.text, /failed to start; see the server log/);
});

Deno.test("a hook that throws at request time: a 500 without a stack, handle_exception sees it", async () => {
  await withPlugins(async (svc) => {
    seen.length = 0;
    const page = await svc.client.get("/shop/-/query?sql=select+'explode'+as+x", {
      headers: { authorization: "Bearer k123" },
    });
    assert.equal(page.status, 500);
    assert.match(page.text, /render_cell blew up/);
    assert.doesNotMatch(page.text, /misbehaving\.ts|at async/, "no stack trace");
    assert.deepEqual(seen, [{ message: "render_cell blew up", path: "/shop/-/query" }]);
  });
});

Deno.test("a renderer returning garbage is a 500 naming the format, not an empty page", async () => {
  await withPlugins(async (svc) => {
    seen.length = 0;
    const response = await svc.client.get("/shop/categories.garbage");
    assert.equal(response.status, 500);
    const expected = 'Output renderer ".garbage" returned a string; render() must return a ' +
      "Response, null, or {body, content_type, status_code, headers}";
    assert.ok(response.text.includes(expected.replaceAll('"', "&quot;")), response.text);
    assert.deepEqual(seen.map((entry) => entry.message), [expected]);
  });
});

Deno.test("trace() from a plugin: entries with the plugin's line as the traceback's first frame", async () => {
  await withPlugins(async (svc) => {
    const body = (await svc.client.get("/-/traced?_trace=1")).json();
    assert.equal(body.doubled, 42);
    const traces = body._trace.traces as Record<string, unknown>[];
    const double = traces.find((entry) => entry.type === "double")!;
    assert.equal(double.x, 21);
    assert.match((double.traceback as string[])[0], /authoring\/misbehaving\.ts:\d+/);
    const lookup = traces.find((entry) => entry.type === "lookup")!;
    assert.equal(lookup.count, 9);
    assert.match((lookup.traceback as string[])[0], /authoring\/misbehaving\.ts:\d+/);
    assert.ok(traces.some((entry) => entry.sql === "select count(*) from products"));
    const html = await svc.client.get("/-/greet?_trace=1");
    assert.match(html.text, /<section class="trace-debug" id="_trace">/);
    const csv = await svc.client.get("/shop/categories.csv?_trace=1");
    assert.equal(csv.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(csv.text, /id,name[\s\S]*class="trace-debug"[\s\S]*&quot;sql&quot;/);
  }, { settings: { trace_debug: true } });
});

async function cli(args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", `${root}cli.ts`, ...args],
    cwd: root,
    env: { VITRINE_PLUGINS: "", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("cli: VITRINE_PLUGINS, --plugin and --plugins-dir plugins load together", async () => {
  const result = await cli(
    [
      "--memory",
      "--plugins-dir",
      dir("plugins_dir"),
      "--plugin",
      PAGES,
      "--get",
      "/-/plugins.json",
    ],
    { VITRINE_PLUGINS: MISBEHAVING },
  );
  assert.equal(result.code, 0, result.stderr);
  const names = JSON.parse(result.stdout).map((plugin: { name: string }) => plugin.name);
  assert.deepEqual(names, ["atom", "misbehaving", "stats", "vitrine-pages"]);
});

Deno.test("cli: a plugin named in the -m metadata file's plugins list adds its command", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "vitrine-authoring-" });
  try {
    await Deno.writeTextFile(`${tmp}/metadata.json`, JSON.stringify({ plugins: [MISBEHAVING] }));
    const result = await cli(["authoring-hello", "Ada", "-m", `${tmp}/metadata.json`]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "hello Ada from authoring\n");
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("cli: publish_subcommand gets its own and the common options", async () => {
  const result = await cli(
    ["publish", "authoring-host", "a.db", "--title", "Shop", "--region", "us"],
    { VITRINE_PLUGINS: MISBEHAVING },
  );
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), { files: ["a.db"], region: "us", title: "Shop" });
});

Deno.test("two plugins bundling one template: the plugin whose hooks run first wins", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "vitrine-authoring-" });
  try {
    for (const name of ["first", "second"]) {
      await Deno.mkdir(`${tmp}/${name}/templates`, { recursive: true });
      await Deno.writeTextFile(`${tmp}/${name}.ts`, `export const version = "1";\n`);
      await Deno.writeTextFile(`${tmp}/${name}/templates/shared.html`, `from ${name}`);
    }
    // Registered last, `second` is called first (pluggy's order), so its template is used.
    await using svc = shopService({ plugins: [`${tmp}/first.ts`, `${tmp}/second.ts`] });
    assert.match(await svc.render_template("shared.html"), /^from second/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
