/**
 * `collectYoungGarbage()`: with `--expose-gc` (the shipped V8 flags) it frees the memory of
 * buffers nobody holds any more at once; without the flag it does nothing and does not fail.
 */
import assert from "node:assert/strict";
import { V8_FLAGS_OPTION } from "../../src/util/v8_flags.ts";

const MODULE = new URL("../../src/util/young_garbage.ts", import.meta.url).href;

/**
 * In a child process with `flags`, as an export does: 40 buffers of 1 MB, each dropped once the
 * next is made, with a collection asked for every 4 MB. Returns the most external memory seen
 * and what is left at the end (MB).
 */
async function externalAfterStreaming(flags: string[]): Promise<{ most: number; after: number }> {
  const script = `
    import { collectYoungGarbage } from "${MODULE}";
    const MB = 2 ** 20;
    let current = null;
    let most = 0;
    for (let i = 0; i < 40; i++) {
      current = new Uint8Array(MB).fill(i);
      most = Math.max(most, Deno.memoryUsage().external);
      if (i % 4 === 3) collectYoungGarbage();
    }
    current = null;
    collectYoungGarbage();
    // V8 frees the buffers' memory on a background thread just after the collection.
    for (let i = 0; i < 20 && Deno.memoryUsage().external > 10 * MB; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    console.log(JSON.stringify({ most: most / MB, after: Deno.memoryUsage().external / MB }));
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", ...flags, script],
    stderr: "inherit",
  }).output();
  assert.ok(output.success);
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

Deno.test("collectYoungGarbage frees dropped buffers as a stream goes, under the shipped V8 flags", async () => {
  const { most, after } = await externalAfterStreaming([V8_FLAGS_OPTION]);
  assert.ok(most < 16, `at most a few MB held at a time: ${most} MB`);
  assert.ok(after < 10, `freed after the collection: ${after} MB left`);
});

Deno.test("collectYoungGarbage is a no-op without --expose-gc", async () => {
  const { most, after } = await externalAfterStreaming([]);
  // Nothing collected them: they wait for V8's own schedule (64 MB of external memory).
  assert.ok(most >= 39, `${most} MB`);
  assert.ok(after >= 39, `${after} MB`);
});
