/**
 * `vitrine serve` collects what starting up left in its heap once it listens (`cli/serve.ts`):
 * reading the program's modules, compiling them and opening the databases leave several MB of
 * garbage that V8 would otherwise keep committed for the server's whole life (from source,
 * 87–91 MB before the load benchmark's exports instead of 94).
 */
import assert from "node:assert/strict";
import { buildShopDb } from "../fixtures/shop.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;
const SERVING = /http:\/\/127\.0\.0\.1:\d+\//;
/** One line of `--trace-gc`: the isolate, then what kind of collection and why. */
const GC_LINE = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: (.*)$/;

Deno.test("serve runs a full, shrinking collection of the main thread's heap once it listens", async () => {
  const db = buildShopDb();
  const child = new Deno.Command(Deno.execPath(), {
    // --trace-gc prints every collection; one asked for with gc() gives "testing" as its reason.
    args: ["run", "-A", "--no-lock", "--v8-flags=--expose-gc,--trace-gc", CLI, db, "-p", "0"],
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const output = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const stop = setTimeout(() => child.kill("SIGTERM"), 30_000);
  try {
    while (!SERVING.test(text)) {
      const { value, done } = await output.read();
      if (done) break;
      text += value;
    }
    // An answered request means serve has passed the synchronous steps after listening, its
    // signal handlers included. V8 buffers its trace when stdout is a pipe: the lines come out
    // as the process ends.
    await (await fetch(new URL("-/versions.json", SERVING.exec(text)![0]))).body?.cancel();
    child.kill("SIGTERM");
    while (true) {
      const { value, done } = await output.read();
      if (done) break;
      text += value;
    }
  } finally {
    clearTimeout(stop);
    await child.status;
  }
  assert.match(text, SERVING, "the server did not start");
  const collections = text.split("\n").map((line) => GC_LINE.exec(line)).filter((m) => m !== null);
  assert.ok(collections.length > 0, `no collection reported:\n${text}`);
  // The main thread starts first, and loading the program makes it collect: the first isolate
  // that reports a collection is the main thread's. Nothing else asks it for one (gc()).
  const main = collections[0]![1];
  const asked = collections.filter((m) => m![1] === main && /testing/.test(m![2]));
  assert.ok(
    asked.some((m) => /^Mark-Compact \(reduce\)/.test(m![2])),
    `no shrinking collection asked for on the main thread:\n${text}`,
  );
});
