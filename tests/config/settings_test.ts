import assert from "node:assert/strict";
import { DEFAULT_SETTINGS, Settings, SettingsError } from "../../src/config/settings.ts";

// Body of examples/45-settings.json (GET /-/settings.json on the reference system).
const example: Record<string, unknown> = {
  "default_page_size": 100,
  "max_returned_rows": 1000,
  "max_insert_rows": 100,
  "num_sql_threads": 3,
  "sql_time_limit_ms": 1000,
  "default_facet_size": 30,
  "facet_time_limit_ms": 200,
  "facet_suggest_time_limit_ms": 50,
  "allow_facet": true,
  "allow_download": true,
  "allow_signed_tokens": true,
  "default_allow_sql": true,
  "max_signed_tokens_ttl": 0,
  "suggest_facets": true,
  "default_cache_ttl": 5,
  "cache_size_kb": 0,
  "allow_csv_stream": true,
  "max_csv_mb": 100,
  "truncate_cells_html": 2048,
  "force_https_urls": false,
  "template_debug": false,
  "trace_debug": false,
  "base_url": "/",
};

Deno.test("Settings.toJSON() matches /-/settings.json of the reference, in order", () => {
  const json = new Settings().toJSON();
  const exampleKeys = Object.keys(example);
  assert.deepEqual(Object.keys(json).slice(0, exampleKeys.length), exampleKeys);
  for (const key of exampleKeys) assert.equal(json[key], example[key], key);
});

Deno.test("Settings adds the §8 settings the example lacks", () => {
  const settings = new Settings();
  assert.equal(settings.get("max_post_body_bytes"), 2097152);
  assert.equal(settings.get("max_insert_rows"), 100);
  assert.equal(settings.get("allow_signed_tokens"), true);
  assert.equal(settings.get("max_signed_tokens_ttl"), 0);
  for (const d of DEFAULT_SETTINGS) assert.ok(d.help.length > 10, d.name);
});

Deno.test("Settings.set() parses raw strings per type", async (t) => {
  await t.step("booleans accept on/off/true/false/1/0 in any case", () => {
    const settings = new Settings();
    for (
      const [raw, expected] of [["on", true], ["OFF", false], ["True", true], ["0", false], [
        "1",
        true,
      ], ["false", false]] as const
    ) {
      settings.set("allow_facet", raw);
      assert.equal(settings.get("allow_facet"), expected, raw);
    }
  });
  await t.step("integers and strings", () => {
    const settings = new Settings({ default_page_size: "50", base_url: "/prefix/" });
    assert.equal(settings.get("default_page_size"), 50);
    assert.equal(settings.get("base_url"), "/prefix/");
    settings.set("sql_time_limit_ms", 2500);
    assert.equal(settings.toJSON().sql_time_limit_ms, 2500);
  });
});

Deno.test("Settings rejects unknown names and bad values with clear messages", () => {
  const settings = new Settings();
  assert.throws(() => settings.set("page_size", "10"), (e: Error) => {
    assert.ok(e instanceof SettingsError);
    assert.match(e.message, /Unknown setting "page_size"/);
    assert.match(e.message, /default_page_size/);
    return true;
  });
  assert.throws(
    () => settings.set("default_page_size", "lots"),
    /Setting "default_page_size" must be an integer, got "lots"/,
  );
  assert.throws(() => settings.set("allow_facet", "maybe"), /must be on\/off, true\/false or 1\/0/);
  assert.throws(() => settings.get("nope"), SettingsError);
  assert.throws(() => new Settings({ trace_debug: "yes please" }), SettingsError);
});
