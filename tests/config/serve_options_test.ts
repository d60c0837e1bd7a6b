/**
 * `vitrine serve` options that point at files and folders: a missing or wrong one is a clear
 * CLI error (exit 1) before anything starts.
 */
import assert from "node:assert/strict";
import { type ServeFlags, serviceOptionsFrom } from "../../src/cli/serve.ts";

function flags(extra: Partial<ServeFlags> = {}): ServeFlags {
  return {
    immutable: [],
    host: "127.0.0.1",
    port: "8001",
    plugin: [],
    static: [],
    setting: [],
    loadExtension: [],
    param: [],
    ...extra,
  };
}

async function cliError(extra: Partial<ServeFlags>, message: RegExp): Promise<void> {
  await assert.rejects(() => serviceOptionsFrom([], flags(extra)), (e: Error) => {
    assert.equal(e.name, "CliExit");
    assert.equal((e as Error & { code: number }).code, 1);
    assert.match(e.message, message);
    return true;
  });
}

Deno.test("--template-dir and --plugins-dir must be existing directories", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(`${dir}/file.txt`, "x");
    await cliError({ templateDir: `${dir}/nope` }, /--template-dir directory not found: .*nope/);
    await cliError({ templateDir: `${dir}/file.txt` }, /--template-dir directory not found/);
    await cliError({ pluginsDir: `${dir}/nope` }, /--plugins-dir directory not found: .*nope/);
    const options = await serviceOptionsFrom([], flags({ templateDir: dir, pluginsDir: dir }));
    assert.equal(options.template_dir, dir);
    assert.equal(options.plugins_dir, dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--load-extension must name a library that loads, before the server starts", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    await cliError(
      { loadExtension: [`${dir}/nope.so`] },
      /SQLite extension not found: .*nope\.so$/,
    );
    Deno.writeTextFileSync(`${dir}/text.so`, "not a library");
    await cliError(
      { loadExtension: [`${dir}/text.so`] },
      /Could not load SQLite extension .*text\.so: not a library this system can load/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--inspect-file must be readable JSON of the inspect shape", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    await cliError(
      { inspectFile: `${dir}/nope.json` },
      /cannot read --inspect-file .*: file not found/,
    );
    Deno.writeTextFileSync(`${dir}/list.json`, "[1, 2]");
    await cliError(
      { inspectFile: `${dir}/list.json` },
      /is not the JSON object that `vitrine inspect`/,
    );
    Deno.writeTextFileSync(`${dir}/broken.json`, "{");
    await cliError({ inspectFile: `${dir}/broken.json` }, /is not the JSON object/);
    const data = { shop: { hash: "abc", size: 1, file: "shop.db", tables: {} } };
    Deno.writeTextFileSync(`${dir}/ok.json`, JSON.stringify(data));
    const options = await serviceOptionsFrom([], flags({ inspectFile: `${dir}/ok.json` }));
    assert.deepEqual(options.inspect_data, data);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--metadata: a canned query without SQL is found at start-up, naming it", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(`${dir}/m.yaml`, "databases:\n  data:\n    queries:\n      q: 5\n");
    await assert.rejects(
      () => serviceOptionsFrom([], flags({ metadata: [`${dir}/m.yaml`] })),
      /m\.yaml": Canned query "q" of database "data" must be SQL text, or a mapping with its SQL/,
    );
    // A params entry must name its parameter (issue 37 item 16: it became `name="[object Object]"`).
    Deno.writeTextFileSync(
      `${dir}/m.yaml`,
      "databases:\n  data:\n    queries:\n      q:\n        sql: select :x\n" +
        "        params:\n          - options: [a, b]\n",
    );
    await assert.rejects(
      () => serviceOptionsFrom([], flags({ metadata: [`${dir}/m.yaml`] })),
      /m\.yaml": "params" of canned query "q" of database "data": entry 1 must be a parameter name, or a mapping with its "name"/,
    );
    Deno.writeTextFileSync(`${dir}/m.yaml`, "databases:\n  data:\n    queries: [select 1]\n");
    await assert.rejects(
      () => serviceOptionsFrom([], flags({ metadata: [`${dir}/m.yaml`] })),
      /"queries" of database "data" must be a mapping by name/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a settings: block in the metadata sets settings, checked like -s; -s wins", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = `${dir}/m.yaml`;
    Deno.writeTextFileSync(path, "settings:\n  default_page_size: 7\n  allow_download: off\n");
    const options = await serviceOptionsFrom([], flags({ metadata: [path] }));
    assert.equal(options.settings?.default_page_size, 7);
    assert.equal(options.settings?.allow_download, false);
    const overridden = await serviceOptionsFrom(
      [],
      flags({ metadata: [path], setting: ["default_page_size\u00009"] }),
    );
    assert.equal(overridden.settings?.default_page_size, 9);
    Deno.writeTextFileSync(path, "settings:\n  page_size: 7\n");
    await cliError({ metadata: [path] }, /metadata settings: Unknown setting "page_size"/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--metadata errors name the file with the parser's line and column", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    Deno.writeTextFileSync(`${dir}/metadata.json`, '{\n  "title": "x"\n  "license": "y"\n}');
    await assert.rejects(
      () => serviceOptionsFrom([], flags({ metadata: [`${dir}/metadata.json`] })),
      /metadata\.json": Metadata is not valid JSON: Expected ',' or '}' after property value at line 3, column 3/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--default-deny reaches the service options", async () => {
  assert.equal((await serviceOptionsFrom([], flags({ defaultDeny: true }))).default_deny, true);
  assert.equal((await serviceOptionsFrom([], flags())).default_deny, undefined);
});
