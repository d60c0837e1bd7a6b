import assert from "node:assert/strict";
import { measuresThreadCpu, threadCpuMs } from "../../src/util/thread_clock.ts";

Deno.test({
  name: "a thread's CPU time counts its work, not the time it waits",
  ignore: !measuresThreadCpu(),
  async fn() {
    const before = threadCpuMs();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const asleep = threadCpuMs() - before;
    assert.ok(asleep < 100, `${asleep} ms of CPU while sleeping 200 ms`);
    const start = threadCpuMs();
    let x = 0;
    while (threadCpuMs() - start < 30) x++;
    assert.ok(x > 0);
    assert.ok(threadCpuMs() - start >= 30);
  },
});

Deno.test("the thread clock never goes back", () => {
  let last = threadCpuMs();
  for (let i = 0; i < 1000; i++) {
    const now = threadCpuMs();
    assert.ok(now >= last);
    last = now;
  }
});
