import assert from "node:assert/strict";
import { WriteQueue } from "../../src/db/write_queue.ts";

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) { /* a write's work */ }
}

Deno.test("a long queue of writes lets other work run between them, in order", async () => {
  const queue = new WriteQueue("test");
  const order: string[] = [];
  const tasks = Array.from({ length: 30 }, (_, i) =>
    queue.run(() => {
      busy(5);
      order.push(`w${i}`);
    }));
  // A timer set now is other work (a health check, a read): it must not wait for all 30.
  const timer = new Promise((resolve) => setTimeout(() => resolve(order.push("timer")), 0));
  await Promise.all([...tasks, timer]);
  const at = order.indexOf("timer");
  assert.ok(at > 0 && at < order.length - 1, `the timer ran at position ${at} of ${order.length}`);
  assert.deepEqual(order.filter((entry) => entry !== "timer"), tasks.map((_, i) => `w${i}`));
});

Deno.test("a write arriving at an idle queue starts without waiting for the event loop", async () => {
  const queue = new WriteQueue("test");
  await queue.run(() => {});
  await new Promise((resolve) => setTimeout(resolve, 10));
  const order: string[] = [];
  const timer = new Promise((resolve) => setTimeout(() => resolve(order.push("timer")), 0));
  await Promise.all([queue.run(() => order.push("write")), timer]);
  assert.deepEqual(order, ["write", "timer"]);
});
