import assert from "node:assert/strict";
import { hasGlibc } from "../fixtures/platform.ts";

// Run in a worker thread of its own: the nice value belongs to the thread that sets it, and the
// test runner's threads must keep theirs.
Deno.test({
  name: "lowerThreadPriority raises the calling thread's nice value, and only that thread's",
  ignore: Deno.build.os !== "linux" || !hasGlibc(),
  async fn() {
    const dir = Deno.makeTempDirSync();
    const module = `${dir}/renice.js`;
    const niceOf = `(path) => Number(Deno.readTextFileSync(path).split(") ")[1].split(" ")[16])`;
    Deno.writeTextFileSync(
      module,
      `import { lowerThreadPriority } from ${
        JSON.stringify(import.meta.resolve("../../src/util/thread_priority.ts"))
      };
      const nice = ${niceOf};
      const before = nice("/proc/thread-self/stat");
      const done = lowerThreadPriority(3);
      self.postMessage({ before, done, after: nice("/proc/thread-self/stat") });`,
    );
    const nice = (path: string) =>
      Number(Deno.readTextFileSync(path).split(") ")[1].split(" ")[16]);
    const mainBefore = nice("/proc/thread-self/stat");
    const worker = new Worker(new URL(`file://${module}`), { type: "module" });
    const answer = await new Promise<{ before: number; done: boolean; after: number }>((resolve) =>
      worker.onmessage = (event) => resolve(event.data)
    );
    worker.terminate();
    assert.equal(answer.done, true);
    assert.equal(answer.after, Math.min(19, answer.before + 3));
    assert.equal(nice("/proc/thread-self/stat"), mainBefore, "this thread kept its priority");
  },
});
