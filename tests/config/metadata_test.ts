import assert from "node:assert/strict";
import {
  BadMetadataError,
  loadMetadataFile,
  merge,
  Metadata,
  parse_metadata,
} from "../../src/config/metadata.ts";

Deno.test("parse_metadata() reads JSON and YAML into the same object", () => {
  const fromJson = parse_metadata('{"title": "Shop", "databases": {"shop": {"tables": {}}}}');
  const fromYaml = parse_metadata("title: Shop\ndatabases:\n  shop:\n    tables: {}\n");
  assert.deepEqual(fromJson, fromYaml);
  assert.deepEqual(parse_metadata(""), {});
});

Deno.test("parse_metadata() raises BadMetadataError for broken or non-object text", () => {
  assert.throws(() => parse_metadata("title: [unclosed"), (e: Error) => {
    assert.ok(e instanceof BadMetadataError);
    assert.match(e.message, /^Metadata is not valid YAML: .+ at line 1, column \d+$/);
    return true;
  });
  assert.throws(() => parse_metadata("[1, 2]"), BadMetadataError);
  assert.throws(() => parse_metadata("just a string"), BadMetadataError);
});

/** The error `fn` throws, checked to be a BadMetadataError. */
function badMetadata(fn: () => unknown): BadMetadataError {
  try {
    fn();
  } catch (error) {
    assert.ok(error instanceof BadMetadataError, String(error));
    return error;
  }
  throw new Error("expected a BadMetadataError");
}

Deno.test("YAML syntax errors give the parser's line and column", () => {
  const cases: [string, number, number][] = [
    ["title: x\ndatabases:\n  d: [1, 2\n  e: 3", 4, 3],
    ['title: "unterminated\nfoo: 1', 2, 7],
    ["a:\n\t- b", 2, 1],
    ["a: 1\n b: 2\n", 1, 4],
  ];
  for (const [text, line, column] of cases) {
    const error = badMetadata(() => parse_metadata(text));
    assert.equal(error.line, line, text);
    assert.equal(error.column, column, text);
    assert.match(error.message, /^Metadata is not valid YAML: /);
    assert.ok(error.message.endsWith(` at line ${line}, column ${column}`), error.message);
    assert.ok(!error.message.includes("\n"), "one line, no source excerpt");
  }
});

Deno.test("JSON syntax errors give line and column, also where V8 reports no position", () => {
  // The last flag: YAML rejects the text too, so auto mode reports the JSON error as well.
  const cases: [string, number, number, RegExp, boolean][] = [
    ['{"a": 1,\n "b": 2\n "c": 3}', 3, 2, /Expected ',' or '}' after property value/, true],
    ['{\n  "title": "x",\n  "d": [1, 2,, 3]\n}', 3, 14, /Unexpected character ","/, true],
    ['{"a":\n\n   nope}', 3, 4, /Unexpected character "n"/, false],
    ['{"a": 1} x', 1, 10, /Unexpected non-whitespace character after JSON/, true],
    ['{"a": "x\ny"}', 1, 9, /Bad control character/, false],
    ["{", 1, 2, /Expected property name/, true],
  ];
  for (const [text, line, column, reason, yamlFails] of cases) {
    // Text starting with `{` is JSON: when YAML cannot read it either, auto mode reports the
    // JSON parser's error rather than YAML's.
    for (const format of yamlFails ? ["auto", "json"] as const : ["json"] as const) {
      const error = badMetadata(() => parse_metadata(text, { format }));
      assert.match(error.message, /^Metadata is not valid JSON: /);
      assert.match(error.message, reason);
      assert.ok(error.message.endsWith(` at line ${line}, column ${column}`), error.message);
      assert.deepEqual([error.line, error.column], [line, column]);
      assert.ok(!error.message.includes("position"), error.message);
    }
  }
});

Deno.test("format json refuses what only YAML accepts; auto keeps the YAML fallback", () => {
  assert.deepEqual(parse_metadata('{"a": tru}'), { a: "tru" });
  const error = badMetadata(() => parse_metadata('{"a": tru}', { format: "json" }));
  assert.equal(
    error.message,
    'Metadata is not valid JSON: Unexpected character "t" at line 1, column 7',
  );
  assert.deepEqual(parse_metadata("title: x", { format: "yaml" }), { title: "x" });
  assert.deepEqual(parse_metadata("  \n", { format: "json" }), {});
});

Deno.test("loadMetadataFile() names the file in its errors", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/m.yml`, "title: Good\n");
    assert.deepEqual(await loadMetadataFile(`${dir}/m.yml`), { title: "Good" });
    await Deno.writeTextFile(`${dir}/bad.json`, "{: nope");
    await assert.rejects(() => loadMetadataFile(`${dir}/bad.json`), /bad\.json/);
    await assert.rejects(() => loadMetadataFile(`${dir}/missing.json`), BadMetadataError);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("loadMetadataFile() parses .json as JSON only and keeps line and column", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/metadata.json`, '{\n  "title": "x",\n  "license": tru\n}\n');
    await assert.rejects(() => loadMetadataFile(`${dir}/metadata.json`), (e: Error) => {
      assert.ok(e instanceof BadMetadataError);
      assert.equal(
        e.message,
        `Cannot load metadata file "${dir}/metadata.json": ` +
          'Metadata is not valid JSON: Unexpected character "t" at line 3, column 14',
      );
      assert.deepEqual([e.line, e.column], [3, 14]);
      return true;
    });
    await Deno.writeTextFile(`${dir}/metadata.yaml`, "title: x\n  bad: indent\n");
    await assert.rejects(
      () => loadMetadataFile(`${dir}/metadata.yaml`),
      /metadata\.yaml": Metadata is not valid YAML: .* at line \d+, column \d+$/,
    );
    await Deno.writeTextFile(`${dir}/metadata.json`, "");
    assert.deepEqual(await loadMetadataFile(`${dir}/metadata.json`), {});
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

// The canned queries of examples/metadata.json.
const metadata = new Metadata(parse_metadata(`
databases:
  shop:
    queries:
      products_by_category:
        sql: select * from products where category = :category
        title: Products in a category
      add_log_entry:
        sql: insert into log (message) values (:message)
        write: true
`));

Deno.test("Metadata.query() normalises canned queries and includes the name", () => {
  const query = metadata.query("shop", "products_by_category");
  assert.equal(query?.name, "products_by_category");
  assert.equal(query?.title, "Products in a category");
  assert.match(query!.sql, /:category/);
  assert.equal(metadata.query("shop", "nope"), null);
  assert.deepEqual(Object.keys(metadata.queries("shop")), [
    "products_by_category",
    "add_log_entry",
  ]);
  assert.equal(metadata.queries("shop").add_log_entry.write, true);
  const short = new Metadata({ databases: { db: { queries: { q: "select 1" } } } });
  assert.deepEqual(short.query("db", "q"), { name: "q", sql: "select 1" });
});

Deno.test("Metadata.table() and database() return config or empty objects", () => {
  const m = new Metadata({
    databases: { db: { description: "D", tables: { t: { label_column: "name", hidden: true } } } },
  });
  assert.equal(m.table("db", "t").label_column, "name");
  assert.equal(m.table("db", "t").hidden, true);
  assert.deepEqual(m.table("db", "other"), {});
  assert.deepEqual(m.database("missing"), {});
  assert.equal(m.database("db").description, "D");
});

Deno.test("Metadata.plugin_config(): table beats database beats instance; null when absent", () => {
  const m = new Metadata({
    plugins: { "my-plugin": { level: "instance" } },
    databases: {
      db: {
        plugins: { "my-plugin": { level: "database" } },
        tables: { t: { plugins: { "my-plugin": { level: "table" } } } },
      },
    },
  });
  assert.deepEqual(m.plugin_config("my-plugin"), { level: "instance" });
  assert.deepEqual(m.plugin_config("my-plugin", { database: "db" }), { level: "database" });
  assert.deepEqual(m.plugin_config("my-plugin", { database: "db", table: "t" }), {
    level: "table",
  });
  assert.deepEqual(m.plugin_config("my-plugin", { database: "db", table: "u" }), {
    level: "database",
  });
  assert.equal(m.plugin_config("other-plugin"), null);
});

Deno.test("Metadata.plugin_config() resolves $env and $file values recursively", async () => {
  const dir = await Deno.makeTempDir();
  Deno.env.set("VITRINE_TEST_SECRET", "s3cret");
  try {
    await Deno.writeTextFile(`${dir}/key.txt`, "from-file");
    const m = new Metadata({
      plugins: {
        auth: {
          secret: { $env: "VITRINE_TEST_SECRET" },
          nested: [{ key: { $file: `${dir}/key.txt` } }],
          plain: { a: 1 },
        },
      },
    });
    assert.deepEqual(m.plugin_config("auth"), {
      secret: "s3cret",
      nested: [{ key: "from-file" }],
      plain: { a: 1 },
    });
  } finally {
    Deno.env.delete("VITRINE_TEST_SECRET");
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("merge() deep-merges objects and lets the override win", () => {
  const hook = { title: "Hook", databases: { db: { description: "hook", source: "S" } } };
  const local = { title: "Local", databases: { db: { description: "local" } } };
  assert.deepEqual(merge(hook, local), {
    title: "Local",
    databases: { db: { description: "local", source: "S" } },
  });
  assert.deepEqual(merge({ list: [1, 2] }, { list: [3] }), { list: [3] });
});

Deno.test("Metadata.display() inherits licence/source/about groups from the closest level", () => {
  const m = new Metadata({
    title: "Instance",
    license: "CC0",
    license_url: "https://cc0",
    source: "Instance source",
    databases: {
      db: {
        source: "DB source",
        tables: { t: { license: "MIT", description: "Table desc" } },
      },
    },
  });
  const display = m.display("db", "t");
  assert.equal(display.license, "MIT");
  assert.equal(display.license_url, undefined, "the instance URL must not pair with MIT");
  assert.equal(display.source, "DB source");
  assert.equal(display.description, "Table desc");
  assert.equal(display.title, "Instance");
  assert.equal(m.display().license_url, "https://cc0");
});
