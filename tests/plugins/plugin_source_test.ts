import assert from "node:assert/strict";
import { fromFileUrl } from "./test_paths.ts";
import { parsePackageSpecifier, resolvePluginSource } from "../../src/plugins/plugin_source.ts";
import { makeDirPlugins } from "../fixtures/plugins/make_dir_plugins.ts";

const fixtures = fromFileUrl(new URL("../fixtures/plugins/", import.meta.url));

Deno.test("npm: and jsr: specifiers are named after their package", () => {
  assert.deepEqual(parsePackageSpecifier("npm:vitrine-cluster-map"), {
    name: "vitrine-cluster-map",
    version: null,
  });
  assert.deepEqual(parsePackageSpecifier("npm:vitrine-cluster-map@1.4.0"), {
    name: "vitrine-cluster-map",
    version: "1.4.0",
  });
  assert.deepEqual(parsePackageSpecifier("npm:@acme/vitrine-auth@^2.0.0/sub/path"), {
    name: "@acme/vitrine-auth",
    version: null,
  });
  assert.deepEqual(parsePackageSpecifier("jsr:@acme/vitrine-dates@0.3.1-beta.2"), {
    name: "@acme/vitrine-dates",
    version: "0.3.1-beta.2",
  });
});

Deno.test("an http URL is named after its file, or its folder for mod/index files", async () => {
  const one = await resolvePluginSource("https://example.com/plugins/vitrine_geo.js?v=2", "/");
  assert.equal(one.name, "vitrine_geo");
  assert.equal(one.url, "https://example.com/plugins/vitrine_geo.js?v=2");
  const two = await resolvePluginSource("https://example.com/vitrine-geo/mod.ts", "/");
  assert.equal(two.name, "vitrine-geo");
});

Deno.test("a single file is named after its stem and finds sibling static/templates", async () => {
  const source = await resolvePluginSource("plugins_dir/b_second.js", fixtures);
  assert.equal(source.name, "b_second");
  assert.equal(
    source.url,
    new URL("../fixtures/plugins/plugins_dir/b_second.js", import.meta.url).href,
  );
  assert.equal(source.staticDir, `${fixtures}plugins_dir/b_second/static`);
  assert.equal(source.templatesDir, `${fixtures}plugins_dir/b_second/templates`);
  const plain = await resolvePluginSource(`${fixtures}plugins_dir/a_first.ts`, "/elsewhere");
  assert.equal(plain.staticDir, null);
  assert.equal(plain.templatesDir, null);
});

Deno.test("directory plugins read package.json or deno.json, else use mod.ts", async () => {
  const dirs = await makeDirPlugins();
  try {
    const pkg = await resolvePluginSource(dirs.packageJson, "/");
    assert.equal(pkg.name, "vitrine-dir-plugin");
    assert.equal(pkg.version, "1.2.3");
    assert.ok(pkg.url.endsWith("/dir_plugin/src/main.ts"));
    assert.equal(pkg.staticDir, `${dirs.packageJson}/static`);
    assert.equal(pkg.templatesDir, `${dirs.packageJson}/templates`);
    const deno = await resolvePluginSource(dirs.denoJson, "/");
    assert.equal(deno.name, "@fixtures/deno-dir-plugin");
    assert.equal(deno.version, "0.9.0");
    assert.ok(deno.url.endsWith("/deno_dir_plugin/entry.ts"));
    const bare = await resolvePluginSource("bare_dir_plugin", fixtures);
    assert.equal(bare.name, "bare_dir_plugin");
    assert.equal(bare.version, null);
    assert.ok(bare.url.endsWith("/bare_dir_plugin/mod.ts"));
  } finally {
    await Deno.remove(dirs.root, { recursive: true });
  }
});
