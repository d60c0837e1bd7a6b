/**
 * `deno run -A cli.ts data.db`, without Vitrine's V8 flags, restarts itself with them
 * (src/cli/v8_restart.ts): the same process (id, streams, signals, exit code), now bounded like
 * every other way of starting it.
 */
import assert from "node:assert/strict";
import { hasV8Flags, mayServe, V8_FLAGS_ENV, withVitrineFlags } from "../../src/cli/v8_restart.ts";
import { V8_FLAGS, V8_FLAGS_OPTION } from "../../src/util/v8_flags.ts";
import { buildShopDb } from "../fixtures/shop.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** Starts `deno run -A --no-lock [denoFlags] cli.ts shop.db -p 0`; resolves once it listens. */
async function serve(denoFlags: string[]) {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", ...denoFlags, "cli.ts", buildShopDb(), "-p", "0"],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const pattern = /http:\/\/127\.0\.0\.1:\d+\//;
  while (!pattern.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`The server exited before listening:\n${text}`);
    text += value;
  }
  const drained = (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })();
  return { child, url: pattern.exec(text)![0], drained, text };
}

/** The V8 flags variable in the environment of process `pid`, or null. */
function flagsOf(pid: number): string | null {
  const environ = Deno.readTextFileSync(`/proc/${pid}/environ`).split("\0");
  const entry = environ.find((item) => item.startsWith(`${V8_FLAGS_ENV}=`));
  return entry === undefined ? null : entry.slice(V8_FLAGS_ENV.length + 1);
}

Deno.test({
  name: "started without the V8 flags, a server restarts itself with them, as the same process",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const { child, url, drained, text } = await serve([]);
    try {
      // The process we started is the one serving (execve keeps its id) and it printed through
      // the same stdout.
      assert.equal(flagsOf(child.pid), V8_FLAGS.join(","));
      assert.match(text, /serving on/);
      const response = await fetch(`${url}shop.json`);
      assert.equal(response.status, 200);
      assert.equal((await response.json()).database, "shop");
    } finally {
      child.kill("SIGTERM");
    }
    // Stopped by a signal like any server: a clean stop, exit code 0.
    assert.equal((await child.status).code, 0);
    await drained;
  },
});

Deno.test({
  name: "a server started with the V8 flags is not restarted",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const { child, url, drained } = await serve([V8_FLAGS_OPTION]);
    try {
      assert.equal(flagsOf(child.pid), null);
      await (await fetch(`${url}shop.json`)).body?.cancel();
    } finally {
      child.kill("SIGTERM");
    }
    assert.equal((await child.status).code, 0);
    await drained;
  },
});

Deno.test("only commands that may serve restart, and only without the flags", () => {
  assert.equal(mayServe([]), true);
  assert.equal(mayServe(["data.db"]), true);
  assert.equal(mayServe(["serve", "data.db"]), true);
  for (const command of ["inspect", "--version", "--help", "create-token", "publish"]) {
    assert.equal(mayServe([command]), false, command);
  }
  assert.equal(hasV8Flags(V8_FLAGS.join(",")), true);
  // This test runs without --expose-gc: only the environment can say so.
  if (typeof (globalThis as { gc?: unknown }).gc !== "function") {
    assert.equal(hasV8Flags(undefined), false);
    assert.equal(hasV8Flags("--max-semi-space-size=8"), false);
  }
  assert.equal(withVitrineFlags(undefined), V8_FLAGS.join(","));
  assert.equal(
    withVitrineFlags("--stack-size=2000,--expose-gc"),
    ["--stack-size=2000", "--expose-gc", ...V8_FLAGS.filter((f) => f !== "--expose-gc")].join(","),
  );
});
