/**
 * The V8 flags Vitrine's launch commands pass (src/util/v8_flags.ts): every documented or
 * generated command carries them, this Deno accepts them, and they do bound the young
 * generation (an upgrade of Deno whose V8 dropped or renamed a flag would otherwise refuse to
 * start every server, or silently stop bounding its memory).
 */
import assert from "node:assert/strict";
import { V8_FLAGS_OPTION } from "../../src/util/v8_flags.ts";
import { dockerfile } from "../../src/plugins/defaults/publish/dockerfile.ts";
import { buildShopDb } from "../fixtures/shop.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

Deno.test("deno task serve, start and compile, the install command and the image pass the V8 flags", () => {
  const config = JSON.parse(Deno.readTextFileSync(`${ROOT}deno.json`));
  for (const task of ["serve", "start", "compile"]) {
    assert.ok(config.tasks[task].includes(` ${V8_FLAGS_OPTION} `), `deno task ${task}`);
  }
  const readme = Deno.readTextFileSync(`${ROOT}README.md`);
  const install = /deno install -A -g -n vitrine --config deno\.json \\\n\s+(\S+) cli\.ts/.exec(
    readme,
  );
  assert.equal(install?.[1], V8_FLAGS_OPTION, "README's install command");
  const image = dockerfile({
    serveArgs: ["serve"],
    env: {},
    cachePlugins: false,
    pluginsDir: null,
  });
  const entrypoint = /^ENTRYPOINT (.*)$/m.exec(image)![1];
  assert.ok(JSON.parse(entrypoint).includes(V8_FLAGS_OPTION), entrypoint);
});

Deno.test("vitrine serve starts and answers with the V8 flags", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-v8-" });
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--no-lock",
        V8_FLAGS_OPTION,
        `${ROOT}cli.ts`,
        "serve",
        buildShopDb(dir),
        "--get",
        "/shop/products.json?_shape=array",
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    assert.equal(JSON.parse(new TextDecoder().decode(output.stdout)).length, 9);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("the V8 flags keep an isolate's young generation small under allocation", async () => {
  // Objects that survive a few scavenges make V8 grow the young generation to its maximum.
  const script = `
    import v8 from "node:v8";
    let keep = [], max = 0;
    for (let i = 0; i < 3e6; i++) {
      keep.push({ i, s: "x" + i });
      if (keep.length > 200000) keep = [];
      if (i % 50000 === 0) {
        const space = v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space");
        max = Math.max(max, space.space_size);
      }
    }
    console.log(max / 1048576);`;
  const youngMiB = async (flags: string[]) => {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["eval", ...flags, script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
    return Number(new TextDecoder().decode(output.stdout).trim());
  };
  const bounded = await youngMiB([V8_FLAGS_OPTION]);
  const unbounded = await youngMiB([]);
  // About 17 MiB with the flags and 64 without on a quiet machine; concurrent scavenges on a busy
  // one add a few pages, so the bound is half of V8's default rather than the quiet figure.
  assert.ok(bounded <= 32, `young generation with the flags: ${bounded} MiB`);
  assert.ok(unbounded > bounded, `without: ${unbounded} MiB, with: ${bounded} MiB`);
});
