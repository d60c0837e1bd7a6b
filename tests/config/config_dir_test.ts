import assert from "node:assert/strict";
import { isConfigDir, loadConfigDir } from "../../src/config/config_dir.ts";

async function withDir(fn: (dir: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("loadConfigDir() finds databases, metadata, settings and folders", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/b.db`, "");
    await Deno.writeTextFile(`${dir}/a.sqlite`, "");
    await Deno.writeTextFile(`${dir}/notes.txt`, "");
    await Deno.writeTextFile(`${dir}/metadata.yml`, "title: From dir\n");
    await Deno.writeTextFile(`${dir}/settings.json`, '{"default_page_size": 10}');
    await Deno.mkdir(`${dir}/templates`);
    await Deno.mkdir(`${dir}/plugins`);
    await Deno.mkdir(`${dir}/static`);
    assert.equal(await isConfigDir(dir), true);
    const options = await loadConfigDir(dir);
    assert.deepEqual(options.files, [`${dir}/a.sqlite`, `${dir}/b.db`]);
    assert.deepEqual(options.immutables, []);
    assert.deepEqual(options.metadata, { title: "From dir" });
    assert.equal(options.metadata_path, `${dir}/metadata.yml`);
    assert.deepEqual(options.settings, { default_page_size: 10 });
    assert.equal(options.template_dir, `${dir}/templates`);
    assert.equal(options.plugins_dir, `${dir}/plugins`);
    assert.deepEqual(options.static_mounts, [{ mount: "static", dir: `${dir}/static` }]);
    assert.equal(options.inspect_data, null);
  });
});

Deno.test("loadConfigDir() opens databases immutable when inspect-data.json exists", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/shop.db`, "");
    await Deno.writeTextFile(`${dir}/inspect-data.json`, '{"shop": {"hash": "x", "tables": {}}}');
    const options = await loadConfigDir(dir);
    assert.deepEqual(options.files, []);
    assert.deepEqual(options.immutables, [`${dir}/shop.db`]);
    assert.equal((options.inspect_data as Record<string, unknown>).shop !== undefined, true);
    assert.equal(options.template_dir, null);
  });
});

Deno.test("loadConfigDir() rejects a bad settings.json naming the file and setting", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/settings.json`, '{"no_such_setting": 1}');
    await assert.rejects(() => loadConfigDir(dir), /settings\.json.*no_such_setting/);
  });
  assert.equal(await isConfigDir("/definitely/not/here"), false);
});

Deno.test("loadConfigDir() merges datasette.yaml (or vitrine.yaml) over metadata.yml", async () => {
  await withDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/metadata.yml`, "title: From metadata\nsource: Us\n");
    await Deno.writeTextFile(
      `${dir}/datasette.yaml`,
      "title: From config\nsettings:\n  default_page_size: 5\n",
    );
    const options = await loadConfigDir(dir);
    assert.equal(options.config_path, `${dir}/datasette.yaml`);
    assert.deepEqual(options.metadata, {
      title: "From config",
      source: "Us",
      settings: { default_page_size: 5 },
    });
    // Checked like a -c file: an unknown top-level key names the file and line.
    await Deno.writeTextFile(`${dir}/datasette.yaml`, "title: x\nplugin:\n  a: 1\n");
    await assert.rejects(
      loadConfigDir(dir),
      /Unknown key "plugin" in ".*datasette\.yaml", line 2/,
    );
  });
});
