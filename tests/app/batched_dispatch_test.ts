/** Requests started in batches (`src/app/batched_dispatch.ts`), alone and behind `serve()`. */
import assert from "node:assert/strict";
import { inBatches } from "../../src/app/batched_dispatch.ts";
import { Service } from "../../src/service.ts";
import { serve } from "../../src/app/server.ts";
import { Connection } from "../../src/sqlite/mod.ts";

Deno.test("calls made in one turn start together at its end, in order, each with its own answer", async () => {
  const started: number[] = [];
  const handler = inBatches(async (n: number) => {
    started.push(n);
    await Promise.resolve();
    if (n === 2) throw new Error("two failed");
    return n * 10;
  });
  const answers = [1, 2, 3].map((n) => handler(n));
  assert.deepEqual(started, [], "nothing starts while the turn that made the calls runs");
  const settled = await Promise.allSettled(answers);
  assert.deepEqual(started, [1, 2, 3]);
  assert.deepEqual(settled.map((s) => s.status === "fulfilled" ? s.value : s.reason.message), [
    10,
    "two failed",
    30,
  ]);
  // The next turn's calls form a batch of their own.
  assert.equal(await handler(4), 40);
  assert.deepEqual(started, [1, 2, 3, 4]);
});

Deno.test("a handler that throws before returning a promise fails only its own call", async () => {
  const handler = inBatches((n: number): Promise<number> => {
    if (n === 1) throw new TypeError("thrown at once");
    return Promise.resolve(n);
  });
  const [first, second] = await Promise.allSettled([handler(1), handler(2)]);
  assert.equal(first.status, "rejected");
  assert.equal((first as PromiseRejectedResult).reason.message, "thrown at once");
  assert.deepEqual(second, { status: "fulfilled", value: 2 });
});

Deno.test("a lone call does not wait for a timer", async () => {
  const handler = inBatches(() => Promise.resolve("done"));
  let timerFirst = false;
  const timer = setTimeout(() => timerFirst = true, 0);
  assert.equal(await handler(), "done");
  clearTimeout(timer);
  assert.equal(timerFirst, false);
});

Deno.test("a served batch of concurrent requests: every client gets its own page", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-batches-" });
  const path = `${dir}/numbers.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec("create table numbers (id integer primary key, square integer)");
  conn.exec(
    "with recursive n(i) as (select 1 union all select i + 1 from n where i < 200) " +
      "insert into numbers select i, i * i from n",
  );
  conn.close();
  const svc = new Service({ immutables: [path] });
  const lines: string[] = [];
  const server = await serve(svc, { port: 0, access_log: (line) => lines.push(line) });
  try {
    const base = `http://127.0.0.1:${(server.addr as Deno.NetAddr).port}`;
    const ids = Array.from({ length: 64 }, (_, i) => 1 + (i * 37) % 200);
    const pages = await Promise.all(ids.map(async (id) => {
      const response = await fetch(`${base}/numbers/numbers/${id}.json?_shape=objects`);
      return [response.status, (await response.json()).rows] as const;
    }));
    assert.deepEqual(pages, ids.map((id) => [200, [{ id, square: id * id }]]));
    const missing = await fetch(`${base}/numbers/numbers/999.json`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    // Each request is logged once, with its own path.
    while (lines.length < ids.length + 1) await new Promise((resolve) => setTimeout(resolve, 10));
    for (const id of ids) {
      assert.ok(
        lines.some((line) => line.includes(`/numbers/numbers/${id}.json?_shape=objects" 200`)),
      );
    }
  } finally {
    await server.shutdown();
    await svc.close();
    Deno.removeSync(dir, { recursive: true });
  }
});
