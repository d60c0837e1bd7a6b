import assert from "node:assert/strict";
import { fromFileUrl } from "./test_paths.ts";
import {
  loadPlugins,
  parsePluginList,
  pluginModuleUrls,
  pluginSpecifiersFromMetadata,
  registerLoadedPlugins,
  registerPluginUrls,
} from "../../src/plugins/loader.ts";
import { PluginRegistry } from "../../src/plugins/registry.ts";
import { PluginError } from "../../src/plugins/plugin_info.ts";
import { makeDirPlugins } from "../fixtures/plugins/make_dir_plugins.ts";
import { stubRequest, svc } from "./stubs.ts";

const fixtures = fromFileUrl(new URL("../fixtures/plugins/", import.meta.url));
const pageArgs = {
  template: "index.html",
  database: null,
  table: null,
  columns: null,
  view_name: "index",
  request: null,
  svc,
};

Deno.test("every .ts/.js file of --plugins-dir is loaded, named by stem, in file order", async () => {
  const registry = new PluginRegistry();
  const loaded = await loadPlugins({ pluginsDir: `${fixtures}plugins_dir`, env: null }, registry);
  assert.deepEqual(loaded.map((p) => p.name), ["a_first", "b_second"]);
  assert.equal(loaded[1].version, "0.2.0", "exported version const");
  assert.equal(loaded[1].staticDir, `${fixtures}plugins_dir/b_second/static`);
  assert.equal(loaded[0].installed, false);
  // b_second was registered last, so it is called first.
  assert.deepEqual(await registry.call("extra_css_urls", pageArgs), [
    ["/b_second.css"],
    ["/a_first.css"],
  ]);
  assert.deepEqual(registry.plugins(), [
    {
      name: "a_first",
      static: false,
      templates: false,
      version: null,
      hooks: ["extra_css_urls", "startup"],
    },
    {
      name: "b_second",
      static: true,
      templates: true,
      version: "0.2.0",
      hooks: ["extra_css_urls"],
    },
  ]);
});

Deno.test("a --plugin local path is resolved against the working directory", async () => {
  const registry = new PluginRegistry();
  const loaded = await loadPlugins(
    { specifiers: ["./versioned_single.ts"], env: null, cwd: fixtures },
    registry,
  );
  assert.equal(loaded[0].name, "versioned_single");
  assert.equal(loaded[0].version, "0.4.0");
  assert.equal(loaded[0].installed, true);
  const request = stubRequest("/");
  assert.deepEqual(await registry.callFirst("actor_from_request", { svc, request }), {
    id: "versioned",
  });
});

Deno.test("a directory plugin gets its name and version from package.json, and its assets", async () => {
  const dirs = await makeDirPlugins();
  try {
    const registry = new PluginRegistry();
    const loaded = await loadPlugins({ specifiers: [dirs.packageJson], env: null }, registry);
    assert.deepEqual(loaded[0], {
      name: "vitrine-dir-plugin",
      url: new URL(`file://${dirs.packageJson}/src/main.ts`).href,
      version: "1.2.3",
      staticDir: `${dirs.packageJson}/static`,
      templatesDir: `${dirs.packageJson}/templates`,
      installed: true,
    });
    assert.deepEqual(registry.plugins(), [{
      name: "vitrine-dir-plugin",
      static: true,
      templates: true,
      version: "1.2.3",
      hooks: ["render_cell"],
    }]);
    assert.deepEqual(registry.templateDirs(), [`${dirs.packageJson}/templates`]);
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
});

Deno.test("a plugin served over http is imported by URL, with its relative imports", async () => {
  const files: Record<string, string> = {
    "/vitrine_remote.js": `import { label } from "./helper.js";
export const version = "3.1.0";
export function table_actions() { return [{ href: "/remote", label }]; }
`,
    "/helper.js": `export const label = "From remote";\n`,
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    const body = files[new URL(req.url).pathname];
    return body === undefined
      ? new Response("missing", { status: 404 })
      : new Response(body, { headers: { "content-type": "application/javascript" } });
  });
  try {
    // Deno caches remote modules, so a fresh query string makes this run really fetch.
    const url = `http://127.0.0.1:${server.addr.port}/vitrine_remote.js?run=${crypto.randomUUID()}`;
    const script = new URL("../fixtures/plugins/load_remote.ts", import.meta.url);
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-lock", script.pathname, url],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    const { plugin, actions } = JSON.parse(new TextDecoder().decode(output.stdout));
    assert.equal(plugin.name, "vitrine_remote");
    assert.equal(plugin.version, "3.1.0");
    assert.equal(plugin.url, url);
    assert.deepEqual(actions, [[{ href: "/remote", label: "From remote" }]]);
  } finally {
    await server.shutdown();
  }
});

Deno.test("a module that fails to import is a start-up error naming the plugin", async () => {
  await assert.rejects(
    () =>
      loadPlugins(
        { specifiers: ["throws_on_import.ts"], env: null, cwd: fixtures },
        new PluginRegistry(),
      ),
    (error: unknown) => {
      assert.ok(error instanceof PluginError);
      assert.equal(error.plugin, "throws_on_import");
      assert.match(
        error.message,
        /^Cannot load plugin "throws_on_import" from throws_on_import\.ts: .*boom while importing/,
      );
      return true;
    },
  );
});

Deno.test("a missing plugin file is an error naming the plugin and the path", async () => {
  await assert.rejects(
    () =>
      loadPlugins(
        { specifiers: ["./nope/ghost.ts"], env: null, cwd: fixtures },
        new PluginRegistry(),
      ),
    { message: 'Cannot load plugin "ghost" from ./nope/ghost.ts: file not found' },
  );
});

Deno.test("a misspelt hook export stops loading with the plugin's name", async () => {
  await assert.rejects(
    () =>
      loadPlugins({ specifiers: ["typo_hook.ts"], env: null, cwd: fixtures }, new PluginRegistry()),
    {
      message:
        'Cannot load plugin "typo_hook": unknown hook "actor_from_requst" (did you mean "actor_from_request"?)',
    },
  );
});

Deno.test("VITRINE_PLUGINS is a comma-separated list; blanks are ignored", () => {
  assert.deepEqual(parsePluginList(" ./a.ts, npm:vitrine-x@1.0.0 ,,https://e.com/p.js "), [
    "./a.ts",
    "npm:vitrine-x@1.0.0",
    "https://e.com/p.js",
  ]);
  assert.deepEqual(parsePluginList(""), []);
  assert.deepEqual(parsePluginList(undefined), []);
});

Deno.test("plugins from --plugin, VITRINE_PLUGINS and metadata load in that order, once each", async () => {
  const registry = new PluginRegistry();
  const loaded = await loadPlugins({
    specifiers: ["counter_plugin.ts"],
    env: "versioned_single.ts, ./counter_plugin.ts",
    metadataPlugins: pluginSpecifiersFromMetadata({ plugins: ["bare_dir_plugin"] }),
    cwd: fixtures,
  }, registry);
  assert.deepEqual(loaded.map((p) => p.name), [
    "counter_plugin",
    "versioned_single",
    "bare_dir_plugin",
  ]);
  assert.equal((globalThis as Record<string, unknown>).__counterPluginLoads, 1);
  assert.deepEqual(pluginModuleUrls(loaded), loaded.map((p) => p.url));
});

Deno.test("VITRINE_PLUGINS is read from the environment by default", async () => {
  // A child process, so the variable never leaks into tests running in parallel.
  const loader = new URL("../../src/plugins/loader.ts", import.meta.url).href;
  const registry = new URL("../../src/plugins/registry.ts", import.meta.url).href;
  const script = `
    const { loadPlugins } = await import(${JSON.stringify(loader)});
    const { PluginRegistry } = await import(${JSON.stringify(registry)});
    const loaded = await loadPlugins({}, new PluginRegistry());
    console.log(JSON.stringify(loaded.map((p) => p.name)));
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", script],
    env: { VITRINE_PLUGINS: ` ${fixtures}versioned_single.ts , ` },
    stderr: "inherit",
  }).output();
  assert.equal(output.code, 0);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), ["versioned_single"]);
});

Deno.test("a metadata plugins mapping is configuration, not a list to load", () => {
  assert.deepEqual(pluginSpecifiersFromMetadata({ plugins: { "vitrine-x": { key: 1 } } }), []);
  assert.deepEqual(pluginSpecifiersFromMetadata(null), []);
});

Deno.test("a worker can re-register loaded plugins from their URLs", async () => {
  const main = new PluginRegistry();
  const loaded = await loadPlugins({ pluginsDir: `${fixtures}plugins_dir`, env: null }, main);
  const copy = structuredClone(loaded); // what a worker receives through postMessage
  const worker = new PluginRegistry();
  await registerLoadedPlugins(copy, worker);
  assert.deepEqual(worker.plugins(), main.plugins());
  assert.deepEqual(await worker.call("extra_css_urls", pageArgs), [
    ["/b_second.css"],
    ["/a_first.css"],
  ]);
});

Deno.test("a worker holding only module URLs gets the same call order", async () => {
  const loaded = await loadPlugins(
    { pluginsDir: `${fixtures}plugins_dir`, env: null },
    new PluginRegistry(),
  );
  const worker = new PluginRegistry();
  await registerPluginUrls(pluginModuleUrls(loaded), worker);
  assert.deepEqual(await worker.call("extra_css_urls", pageArgs), [
    ["/b_second.css"],
    ["/a_first.css"],
  ]);
});
