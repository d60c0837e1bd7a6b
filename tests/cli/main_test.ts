/**
 * The command line with plugins: `register_commands` (installed plugins only),
 * `publish_subcommand` with the common options, and a failing `startup` stopping `serve`.
 * Each case runs `deno run -A cli.ts` in a subprocess, so `VITRINE_PLUGINS` never leaks into
 * tests running in parallel.
 */
import assert from "node:assert/strict";
import { fromFileUrl } from "../plugins/test_paths.ts";
import { scanInstalledPluginArgs } from "../../src/cli/installed_plugins.ts";

const cli = fromFileUrl(new URL("../../cli.ts", import.meta.url));
const root = fromFileUrl(new URL("../..//", import.meta.url));
const kitchenSink = fromFileUrl(new URL("../fixtures/plugins/kitchen_sink.ts", import.meta.url));

async function run(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", cli, ...args],
    cwd: root,
    env: { VITRINE_PLUGINS: "", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

Deno.test("register_commands: a plugin in VITRINE_PLUGINS adds a working command", async () => {
  const result = await run(["kitchen-sink-hello", "Ada", "--shout"], {
    VITRINE_PLUGINS: kitchenSink,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "HELLO ADA FROM THE KITCHEN SINK\n");
  const help = await run(["--help"], { VITRINE_PLUGINS: kitchenSink });
  assert.match(help.stdout, /kitchen-sink-hello.*Say hello from the kitchen sink/);
});

Deno.test("register_commands: --plugin on the command line installs the command's plugin", async () => {
  const result = await run(["kitchen-sink-hello", "Grace", "--plugin", kitchenSink]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, "Hello Grace from the kitchen sink\n");
});

Deno.test("register_commands: --plugins-dir plugins add no commands", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vitrine-plugins-dir-" });
  try {
    await Deno.writeTextFile(
      `${dir}/kitchen_sink.ts`,
      `export * from ${JSON.stringify(new URL(`file://${kitchenSink}`).href)};\n`,
    );
    const listed = await run(["plugins", "--plugins-dir", dir]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout).map((p: { name: string }) => p.name), [
      "kitchen_sink",
    ]);
    const result = await run(["kitchen-sink-hello", "Ada", "--plugins-dir", dir]);
    assert.notEqual(result.code, 0);
    assert.doesNotMatch(result.stdout, /Hello/);
    const help = await run(["--help", "--plugins-dir", dir]);
    assert.doesNotMatch(help.stdout, /kitchen-sink-hello/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("publish_subcommand: the provider gets the common options and its own", async () => {
  const result = await run([
    "publish",
    "kitchen-sink",
    "one.db",
    "two.db",
    "-m",
    "metadata.json",
    "--title",
    "My data",
    "--install",
    "npm:a",
    "--install",
    "npm:b",
    "--about_url",
    "https://example.com/about",
    "--region",
    "attic",
  ], { VITRINE_PLUGINS: kitchenSink });
  assert.equal(result.code, 0, result.stderr);
  const printed = JSON.parse(result.stdout);
  assert.equal(printed.provider, "kitchen-sink");
  assert.deepEqual(printed.files, ["one.db", "two.db"]);
  assert.equal(printed.options.metadata, "metadata.json");
  assert.equal(printed.options.title, "My data");
  assert.deepEqual(printed.options.install, ["npm:a", "npm:b"]);
  assert.equal(printed.options.about_url, "https://example.com/about");
  assert.equal(printed.options.region, "attic");

  const help = await run(["publish", "kitchen-sink", "--help"], { VITRINE_PLUGINS: kitchenSink });
  for (
    const option of [
      "--metadata",
      "--extra-options",
      "--branch",
      "--template-dir",
      "--plugins-dir",
      "--static",
      "--install",
      "--plugin-secret",
      "--version-note",
      "--secret",
      "--title",
      "--license",
      "--license_url",
      "--source",
      "--source_url",
      "--about",
      "--about_url",
      "--region",
    ]
  ) {
    assert.ok(help.stdout.includes(option), `${option} in:\n${help.stdout}`);
  }
  const list = await run(["publish", "--help"], { VITRINE_PLUGINS: kitchenSink });
  assert.match(list.stdout, /kitchen-sink/);
});

Deno.test("serve: a startup hook that throws stops the server with a non-zero exit", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vitrine-startup-" });
  try {
    const metadata = `${dir}/metadata.json`;
    await Deno.writeTextFile(
      metadata,
      JSON.stringify({ plugins: { kitchen_sink: { fail_startup: true } } }),
    );
    const result = await run([
      "serve",
      "--plugin",
      kitchenSink,
      "-m",
      metadata,
      "--port",
      "0",
    ]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /Plugin "kitchen_sink" failed in startup: The kitchen sink refuses to start/,
    );
    assert.doesNotMatch(result.stdout, /serving on/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve: a plugin that fails to load is an error naming it", async () => {
  const broken = fromFileUrl(new URL("../fixtures/plugins/typo_hook.ts", import.meta.url));
  const result = await run(["serve", "--plugin", broken, "--port", "0"]);
  assert.equal(result.code, 1);
  assert.match(
    result.stderr,
    /Cannot load plugin "typo_hook": unknown hook "actor_from_requst" \(did you mean "actor_from_request"\?\)/,
  );
});

Deno.test("serve: --port must be a port number", async () => {
  for (const port of ["abc", "70000", "-1"]) {
    const result = await run(["serve", `--port=${port}`]);
    assert.equal(result.code, 1, port);
    assert.match(result.stderr, new RegExp(`--port takes a number from 0 to 65535, not "${port}"`));
    assert.doesNotMatch(result.stdout, /serving on/);
  }
});

Deno.test("installed plugins are read from --plugin and -m/--metadata before parsing", () => {
  assert.deepEqual(
    scanInstalledPluginArgs([
      "serve",
      "--plugin",
      "a.ts",
      "--plugin=b.ts",
      "-m",
      "meta.yml",
      "data.db",
      "--",
      "--plugin",
      "ignored.ts",
    ]),
    { specifiers: ["a.ts", "b.ts"], metadataFiles: ["meta.yml"] },
  );
  // Every -m counts: they are merged in order (issue 37 item 16).
  assert.deepEqual(scanInstalledPluginArgs(["--metadata=x.json", "-m", "y.yml"]), {
    specifiers: [],
    metadataFiles: ["x.json", "y.yml"],
  });
});
