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

Deno.test("integer settings refuse negative values; base_url is normalised to /path/", () => {
  const settings = new Settings();
  assert.throws(
    () => settings.set("default_cache_ttl", "-3"),
    /Setting "default_cache_ttl" must be 0 or more, got "-3"/,
  );
  assert.throws(() => settings.set("num_sql_threads", -1), /must be 0 or more/);
  settings.set("sql_time_limit_ms", "0");
  assert.equal(settings.get("sql_time_limit_ms"), 0);
  for (
    const [raw, expected] of [
      ["prefix", "/prefix/"],
      ["/prefix", "/prefix/"],
      [
        "/a/b/",
        "/a/b/",
      ],
      ["", "/"],
      ["/", "/"],
    ]
  ) {
    settings.set("base_url", raw);
    assert.equal(settings.get("base_url"), expected, raw);
  }
  assert.throws(() => settings.set("base_url", "https://example.com/x/"), /must be a path/);
});

/** `vitrine serve` flags with every option at its default. */
function flags(setting: string[]): import("../../src/cli/serve.ts").ServeFlags {
  return {
    immutable: [],
    host: "127.0.0.1",
    port: "8001",
    plugin: [],
    static: [],
    setting,
    loadExtension: [],
    param: [],
  };
}

Deno.test("--setting NAME VALUE: every setting of §8 typed from its CLI string", async () => {
  const { serviceOptionsFrom } = await import("../../src/cli/serve.ts");
  const { joinMultiValueOptions } = await import("../../src/cli/argv.ts");
  const raw: Record<string, [string, unknown]> = {};
  for (const d of DEFAULT_SETTINGS) {
    raw[d.name] = d.type === "int"
      ? [String(Number(d.default) + 7), Number(d.default) + 7]
      : d.type === "bool"
      ? [d.default ? "off" : "on", !d.default]
      // String settings with their own form: base_url gains a trailing slash, public_url is
      // an origin, frame_ancestors CSP sources.
      : d.name === "base_url"
      ? ["/somewhere", "/somewhere/"]
      : d.name === "public_url"
      ? ["https://data.example.org/", "https://data.example.org"]
      : d.name === "frame_ancestors"
      ? ["'none'", "'none'"]
      : ["/somewhere", "/somewhere"];
  }
  const argv = joinMultiValueOptions(
    Object.entries(raw).flatMap(([name, [value]]) => ["--setting", name, value]),
  );
  const joined = argv.filter((_, i) => i % 2 === 1);
  const options = await serviceOptionsFrom([], flags(joined));
  for (const [name, [, expected]] of Object.entries(raw)) {
    assert.strictEqual(options.settings?.[name], expected, name);
  }
  assert.equal(Object.keys(options.settings ?? {}).length, DEFAULT_SETTINGS.length);
});

Deno.test("--setting errors name the setting before anything else is checked", async () => {
  const { serviceOptionsFrom } = await import("../../src/cli/serve.ts");
  const { joinMultiValueOptions } = await import("../../src/cli/argv.ts");
  const attempt = (...argv: string[]) => {
    const joined = joinMultiValueOptions(argv).filter((_, i) => i % 2 === 1);
    // A file that does not exist: the setting's error must win over "file not found".
    return serviceOptionsFrom(["/no/such/file.db"], flags(joined));
  };
  const cases: [string[], RegExp][] = [
    [
      ["-s", "no_such_setting", "1"],
      /Unknown setting "no_such_setting"; known settings: .*base_url/,
    ],
    [["-s", "default_page_size", "lots"], /"default_page_size" must be an integer, got "lots"/],
    [["-s", "sql_time_limit_ms", "2.5"], /must be an integer, got "2\.5"/],
    [["-s", "default_cache_ttl", "-1"], /must be 0 or more/],
    [["-s", "allow_facet", "maybe"], /must be on\/off, true\/false or 1\/0, got "maybe"/],
    [["-s", "base_url", "http://x/"], /must be a path/],
    [["-s", "public_url", "/x"], /"public_url" must be a scheme and host/],
    [["-s", "frame_ancestors", "'self'; script-src *"], /"frame_ancestors" must be CSP sources/],
    // `-s NAME` with its value missing would swallow the next option.
    [["-s", "default_page_size", "--get", "/"], /--setting default_page_size needs a value/],
  ];
  for (const [argv, message] of cases) {
    await assert.rejects(() => attempt(...argv), (e: Error) => {
      assert.equal(e.name, "CliExit", argv.join(" "));
      assert.equal((e as Error & { code: number }).code, 1);
      assert.match(e.message, message, argv.join(" "));
      return true;
    });
  }
});
