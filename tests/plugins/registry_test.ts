import assert from "node:assert/strict";
import { PluginRegistry } from "../../src/plugins/registry.ts";
import { hookimpl } from "../../src/plugins/hookimpl.ts";
import { PluginError } from "../../src/plugins/plugin_info.ts";
import type { HookArgs } from "../../src/plugins/hookspecs.ts";
import { stubRequest, svc } from "./stubs.ts";

const cssArgs = {
  template: "index.html",
  database: null,
  table: null,
  columns: null,
  view_name: "index",
  request: null,
  svc,
} satisfies HookArgs<"extra_css_urls">;

/** A plugin whose extra_css_urls answers its own name, so call order is visible. */
function cssPlugin(name: string, options?: { tryfirst?: boolean; trylast?: boolean }) {
  const fn = () => [name];
  return { extra_css_urls: options ? hookimpl(fn, options) : fn };
}

Deno.test("plugins registered later are called first", async () => {
  const registry = new PluginRegistry();
  registry.register(cssPlugin("builtin"), { name: "builtin", builtin: true });
  registry.register(cssPlugin("first"), { name: "first" });
  registry.register(cssPlugin("second"), { name: "second" });
  assert.deepEqual(await registry.call("extra_css_urls", cssArgs), [
    ["second"],
    ["first"],
    ["builtin"],
  ]);
});

Deno.test("tryfirst implementations run before, trylast after, whatever the order", async () => {
  const registry = new PluginRegistry();
  registry.register(cssPlugin("early", { tryfirst: true }), { name: "early" });
  registry.register(cssPlugin("late", { trylast: true }), { name: "late" });
  registry.register(cssPlugin("plain-1"), { name: "plain-1" });
  registry.register(cssPlugin("plain-2"), { name: "plain-2" });
  registry.register(cssPlugin("early-2", { tryfirst: true }), { name: "early-2" });
  const order = (await registry.call("extra_css_urls", cssArgs)).flat();
  assert.deepEqual(order, ["early-2", "early", "plain-2", "plain-1", "late"]);
});

Deno.test("specname maps a differently named export to a hook", async () => {
  const registry = new PluginRegistry();
  registry.register({
    add_stylesheets: hookimpl({ specname: "extra_css_urls" })(() => ["/s.css"]),
  }, { name: "renamed" });
  assert.deepEqual(await registry.call("extra_css_urls", cssArgs), [["/s.css"]]);
  assert.deepEqual(registry.plugins()[0].hooks, ["extra_css_urls"]);
});

Deno.test("results may be values, promises, functions or async functions", async () => {
  const registry = new PluginRegistry();
  registry.register({ extra_css_urls: () => ["value"] }, { name: "a" });
  registry.register({ extra_css_urls: () => Promise.resolve(["promise"]) }, { name: "b" });
  registry.register({ extra_css_urls: () => () => ["function"] }, { name: "c" });
  // deno-lint-ignore require-await
  registry.register({ extra_css_urls: () => async () => ["async function"] }, { name: "d" });
  // deno-lint-ignore require-await
  registry.register({ extra_css_urls: async () => () => Promise.resolve(["nested"]) }, {
    name: "e",
  });
  registry.register({ extra_css_urls: () => null }, { name: "f" });
  registry.register({ extra_css_urls: () => () => undefined }, { name: "g" });
  assert.deepEqual((await registry.call("extra_css_urls", cssArgs)).flat(), [
    "nested",
    "async function",
    "function",
    "promise",
    "value",
  ]);
});

Deno.test("asgi_wrapper results are functions and are returned uncalled", async () => {
  const registry = new PluginRegistry();
  const wrapper = (handler: (r: Request) => Promise<Response>) => handler;
  registry.register({ asgi_wrapper: () => wrapper }, { name: "wrap" });
  assert.deepEqual(await registry.call("asgi_wrapper", { svc }), [wrapper]);
});

Deno.test("callFirst stops at the first non-null answer", async () => {
  const registry = new PluginRegistry();
  const called: string[] = [];
  registry.register({
    actor_from_request: () => {
      called.push("fallback");
      return { id: "fallback" };
    },
  }, { name: "fallback" });
  registry.register({
    actor_from_request: () => {
      called.push("winner");
      // deno-lint-ignore require-await
      return async () => ({ id: "winner" });
    },
  }, { name: "winner" });
  registry.register({
    actor_from_request: () => {
      called.push("abstains");
      return null;
    },
  }, { name: "abstains" });
  const request = stubRequest("/");
  const actor = await registry.callFirst("actor_from_request", { svc, request });
  assert.deepEqual(actor, { id: "winner" });
  assert.deepEqual(called, ["abstains", "winner"]);
});

Deno.test("callFirst answers null when nobody answers", async () => {
  const registry = new PluginRegistry();
  registry.register({ actors_from_ids: () => undefined }, { name: "quiet" });
  assert.equal(await registry.callFirst("actors_from_ids", { svc, actor_ids: [1] }), null);
});

Deno.test("an export that looks like a misspelt hook is a load error naming the plugin", () => {
  const registry = new PluginRegistry();
  assert.throws(
    () => registry.register({ actor_from_requst: () => null }, { name: "x" }),
    (error: unknown) =>
      error instanceof PluginError &&
      error.message ===
        'Cannot load plugin "x": unknown hook "actor_from_requst" (did you mean "actor_from_request"?)' &&
      error.plugin === "x",
  );
  assert.equal(registry.list().length, 0, "a rejected plugin is not half-registered");
});

Deno.test("an unknown specname is a load error even for a camelCase export", () => {
  const registry = new PluginRegistry();
  assert.throws(
    () =>
      registry.register({ myHook: hookimpl(() => null, { specname: "no_such" }) }, {
        name: "y",
      }),
    { message: 'Cannot load plugin "y": unknown hook "no_such"' },
  );
});

Deno.test("an exported snake_case helper far from any hook name is told how to stay a helper", () => {
  assert.throws(
    () => new PluginRegistry().register({ format_price: () => "" }, { name: "h" }),
    {
      message: 'Cannot load plugin "h": unknown hook "format_price" ' +
        "(a helper that is not a hook needs a camelCase name, or no export)",
    },
  );
});

Deno.test("non-hook exports are ignored: camelCase functions, constants, classes", async () => {
  const registry = new PluginRegistry();
  registry.register({
    formatLabel: () => "x",
    version: "1.0",
    default: () => "x",
    SOME_CONSTANT: 3,
    startup: () => {},
  }, { name: "mixed" });
  assert.deepEqual(registry.plugins()[0].hooks, ["startup"]);
  assert.deepEqual(await registry.call("startup", { svc }), []);
});

Deno.test("registering two plugins with one name is an error", () => {
  const registry = new PluginRegistry();
  registry.register({}, { name: "twin" });
  assert.throws(() => registry.register({}, { name: "twin" }), PluginError);
});

Deno.test("unregister removes a plugin and its implementations", async () => {
  const registry = new PluginRegistry();
  registry.register(cssPlugin("a"), { name: "a" });
  registry.register(cssPlugin("b"), { name: "b" });
  assert.equal(registry.unregister("b"), true);
  assert.equal(registry.unregister("b"), false);
  assert.deepEqual(await registry.call("extra_css_urls", cssArgs), [["a"]]);
  assert.deepEqual(registry.list().map((p) => p.name), ["a"]);
  registry.unregister("a");
  assert.equal(registry.hasImpl("extra_css_urls"), false);
});

Deno.test("callSync returns synchronous answers and rejects a promise with the plugin name", () => {
  const registry = new PluginRegistry();
  registry.register({ get_metadata: () => ({ title: "From plugin" }) }, { name: "meta" });
  const args = { svc, actor: null, key: null, database: null, table: null };
  assert.deepEqual(registry.callSync("get_metadata", args), [{ title: "From plugin" }]);
  // deno-lint-ignore require-await
  registry.register({ get_metadata: async () => ({ title: "late" }) }, { name: "async-meta" });
  assert.throws(() => registry.callSync("get_metadata", args), {
    name: "TypeError",
    message: 'Plugin "async-meta": hook "get_metadata" must be synchronous but returned a Promise',
  });
});

Deno.test("a call filter limits which plugins answer", async () => {
  const registry = new PluginRegistry();
  registry.register(cssPlugin("dir"), { name: "dir" });
  registry.register(cssPlugin("installed"), { name: "installed", installed: true });
  const results = await registry.call("extra_css_urls", cssArgs, {
    filter: (plugin) => Boolean(plugin.installed),
  });
  assert.deepEqual(results, [["installed"]]);
});

Deno.test("errors thrown by an implementation reach the caller unchanged", async () => {
  const registry = new PluginRegistry();
  class Forbidden extends Error {}
  registry.register({ startup: () => Promise.reject(new Forbidden("nope")) }, { name: "strict" });
  await assert.rejects(() => registry.call("startup", { svc }), Forbidden);
});

Deno.test("onError sees which plugin's implementation threw, sync or async", async () => {
  const registry = new PluginRegistry();
  registry.register({ startup: () => Promise.reject(new Error("async")) }, { name: "late" });
  registry.register({ startup: () => null }, { name: "fine" });
  const seen: string[] = [];
  const onError = (error: unknown, plugin: { name: string }): never => {
    seen.push(plugin.name);
    throw new Error(`${plugin.name}: ${(error as Error).message}`);
  };
  await assert.rejects(() => registry.call("startup", { svc }, { onError }), {
    message: "late: async",
  });
  const render_cell = () => {
    throw new TypeError("bad cell");
  };
  registry.register({ render_cell }, { name: "sync" });
  await assert.rejects(() => registry.callFirst("render_cell", {} as never, { onError }), {
    message: "sync: bad cell",
  });
  assert.deepEqual(seen, ["late", "sync"]);
});

Deno.test("templateDirs lists plugin template folders in call order", () => {
  const registry = new PluginRegistry();
  registry.register({}, { name: "one", templatesDir: "/t/one" });
  registry.register({}, { name: "none" });
  registry.register({}, { name: "two", templatesDir: "/t/two" });
  assert.deepEqual(registry.templateDirs(), ["/t/two", "/t/one"]);
});
