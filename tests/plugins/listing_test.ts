import assert from "node:assert/strict";
import { PluginRegistry } from "../../src/plugins/registry.ts";

const example = JSON.parse(
  await Deno.readTextFile(new URL("../fixtures/examples/48-plugins.json", import.meta.url))
    .catch(() => '{"body": []}'),
);

Deno.test("with no user plugins the listing is an empty array, as in the reference", () => {
  const registry = new PluginRegistry();
  registry.register({ forbidden: () => null }, {
    name: "vitrine.default_forbidden",
    builtin: true,
  });
  assert.deepEqual(registry.plugins(), example.body);
  assert.deepEqual(registry.plugins(), []);
});

Deno.test("listing entries have name, static, templates, version and sorted hooks", () => {
  const registry = new PluginRegistry();
  registry.register({
    render_cell: () => null,
    extra_css_urls: () => [],
    actor_from_request: () => null,
  }, { name: "zeta", version: "1.0.0", staticDir: "/p/static", templatesDir: null });
  registry.register({ startup: () => {} }, { name: "alpha" });
  registry.register({ forbidden: () => null }, { name: "builtin_forbidden", builtin: true });
  const listing = registry.plugins();
  assert.deepEqual(listing, [
    { name: "alpha", static: false, templates: false, version: null, hooks: ["startup"] },
    {
      name: "zeta",
      static: true,
      templates: false,
      version: "1.0.0",
      hooks: ["actor_from_request", "extra_css_urls", "render_cell"],
    },
  ]);
  assert.deepEqual(Object.keys(listing[0]), ["name", "static", "templates", "version", "hooks"]);
  assert.deepEqual(
    registry.plugins({ includeBuiltin: true }).map((p) => p.name),
    ["alpha", "builtin_forbidden", "zeta"],
  );
});
