import assert from "node:assert/strict";
import { buildShopDb } from "../fixtures/shop.ts";
import { vitrine } from "./run_vitrine.ts";
import { configurationOf, redactSecrets } from "../../src/config/config_file.ts";

function tempDir(): string {
  return Deno.makeTempDirSync({ prefix: "vitrine-config-" });
}

Deno.test("-c holds settings, permissions, queries and plugin configuration beside -m", async () => {
  const db = buildShopDb();
  const dir = tempDir();
  try {
    Deno.writeTextFileSync(
      `${dir}/metadata.yaml`,
      "title: Shop data\ndatabases:\n  shop:\n    tables:\n      products:\n" +
        "        description: Things we sell\n",
    );
    Deno.writeTextFileSync(
      `${dir}/config.yaml`,
      [
        "settings:",
        "  default_page_size: 2",
        "databases:",
        "  shop:",
        "    queries:",
        "      cheap: select name from products order by price limit 1",
        "    tables:",
        "      products:",
        "        allow: false",
        "plugins:",
        "  some-plugin:",
        "    api_key: abc123",
        "    colour: red",
      ].join("\n"),
    );
    const args = [db, "-m", `${dir}/metadata.yaml`, "-c", `${dir}/config.yaml`];
    const categories = await vitrine([...args, "--get", "/shop/categories.json?_shape=array"]);
    assert.equal(categories.code, 0, categories.stderr);
    assert.equal(JSON.parse(categories.stdout).length, 2, "default_page_size from -c");
    const query = await vitrine([...args, "--get", "/shop/cheap.json?_shape=array"]);
    assert.equal(query.code, 0, query.stderr);
    assert.equal(JSON.parse(query.stdout).length, 1);
    const products = await vitrine([...args, "--get", "/shop/products.json"]);
    assert.equal(products.code, 1, "allow: false from -c hides the table");

    const config = await vitrine([...args, "--get", "/-/config.json"]);
    assert.equal(config.code, 0, config.stderr);
    const shown = JSON.parse(config.stdout);
    assert.equal(shown.ok, true);
    assert.equal(shown.settings.default_page_size, 2);
    assert.equal(shown.settings.sql_time_limit_ms, 1000, "every setting in effect");
    assert.deepEqual(shown.plugins, { "some-plugin": { api_key: "***", colour: "red" } });
    assert.equal(shown.title, undefined, "metadata stays on /-/metadata");
    assert.match(shown.databases.shop.queries.cheap, /select name from products/);
    assert.equal(shown.databases.shop.tables, undefined, "the hidden table is not shown");
    assert.doesNotMatch(config.stdout, /abc123/);

    const page = await vitrine([...args, "--get", "/-/config"]);
    assert.equal(page.code, 0, page.stderr);
    assert.match(page.stdout, /some-plugin/);
    assert.doesNotMatch(page.stdout, /abc123/);

    const metadata = await vitrine([...args, "--get", "/-/metadata.json"]);
    assert.equal(JSON.parse(metadata.stdout).title, "Shop data");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("repeated -m and -c merge in order, -c after -m; one merged file works with either", async () => {
  const db = buildShopDb();
  const dir = tempDir();
  try {
    Deno.writeTextFileSync(`${dir}/m.json`, JSON.stringify({ title: "From m", source: "m" }));
    Deno.writeTextFileSync(`${dir}/c1.yaml`, "title: From c1\nsettings:\n  default_page_size: 3\n");
    Deno.writeTextFileSync(
      `${dir}/c2.json`,
      JSON.stringify({ settings: { default_page_size: 1 } }),
    );
    const args = [db, "-c", `${dir}/c1.yaml`, "-m", `${dir}/m.json`, "--config", `${dir}/c2.json`];
    const metadata = await vitrine([...args, "--get", "/-/metadata.json"]);
    assert.equal(metadata.code, 0, metadata.stderr);
    assert.equal(JSON.parse(metadata.stdout).title, "From c1");
    assert.equal(JSON.parse(metadata.stdout).source, "m");
    const settings = await vitrine([...args, "--get", "/-/settings.json"]);
    assert.equal(JSON.parse(settings.stdout).default_page_size, 1);

    // Pre-1.0 style: everything in the one metadata file.
    const merged = `${dir}/merged.yaml`;
    Deno.writeTextFileSync(merged, "title: All in one\nsettings:\n  default_page_size: 2\n");
    for (const flag of ["-m", "-c"]) {
      const page = await vitrine([db, flag, merged, "--get", "/shop/categories.json?_shape=array"]);
      assert.equal(page.code, 0, page.stderr);
      assert.equal(JSON.parse(page.stdout).length, 2);
    }
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("an unknown top-level key is an error naming the file and line", async () => {
  const db = buildShopDb();
  const dir = tempDir();
  try {
    Deno.writeTextFileSync(
      `${dir}/config.yaml`,
      "settings: {}\n# who may see\npermisions:\n  x: 1\n",
    );
    const yaml = await vitrine([db, "-c", `${dir}/config.yaml`, "--get", "/"]);
    assert.equal(yaml.code, 1);
    assert.match(yaml.stderr, /Unknown key "permisions" in ".*config\.yaml", line 3/);
    assert.match(yaml.stderr, /permissions/, "lists the keys it knows");
    assert.doesNotMatch(yaml.stderr, / {4}at /, "no stack trace");
    Deno.writeTextFileSync(`${dir}/metadata.json`, '{\n  "title": "x",\n  "titel": "y"\n}\n');
    const json = await vitrine([db, "-m", `${dir}/metadata.json`, "--get", "/"]);
    assert.equal(json.code, 1);
    assert.match(json.stderr, /Unknown key "titel" in ".*metadata\.json", line 3/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("configurationOf keeps what configures; redactSecrets hides secret-looking keys", () => {
  const data = {
    title: "T",
    allow: { id: "root" },
    databases: {
      shop: {
        description: "d",
        tables: { a: { description: "only metadata" }, b: { units: {}, sort: "name" } },
      },
      docs: { title: "only metadata" },
    },
  };
  assert.deepEqual(configurationOf(data), {
    allow: { id: "root" },
    databases: { shop: { tables: { b: { sort: "name" } } } },
  });
  assert.deepEqual(
    redactSecrets({
      plugins: { p: { secret: "s", api_keys: ["k"], nested: [{ password_hash: "h" }] } },
      settings: { hash_urls: false },
      dsn: null,
    }),
    {
      plugins: { p: { secret: "***", api_keys: "***", nested: [{ password_hash: "***" }] } },
      settings: { hash_urls: false },
      dsn: null,
    },
  );
});
