/**
 * Custom SQL that gives the same rows for the same data is run once for every client asking it
 * at the same time, and an immutable file's answer is kept (issue 42: sixteen clients asking one
 * count failed at the time limit, each running it). SQL that may answer differently each time
 * (`random()`, the clock) runs for every request.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { buildShopDb } from "../fixtures/shop.ts";

const PLUGIN = new URL("../fixtures/plugins/counted_runs.ts", import.meta.url).href;

async function withCountedRuns(
  options: { immutable: boolean },
  test: (svc: Service, runs: () => number) => Promise<void>,
): Promise<void> {
  const file = await Deno.makeTempFile();
  Deno.env.set("VITRINE_TEST_COUNTED_FILE", file);
  const path = buildShopDb();
  try {
    await using svc = new Service({
      ...(options.immutable ? { immutables: [path] } : { files: [path] }),
      plugins: [PLUGIN],
    });
    const runs = () => Deno.readTextFileSync(file).split("\n").filter(Boolean).length;
    await test(svc, runs);
  } finally {
    Deno.env.delete("VITRINE_TEST_COUNTED_FILE");
    await Deno.remove(file);
  }
}

const query = (sql: string) => `/shop/-/query.json?sql=${encodeURIComponent(sql)}&_shape=array`;

Deno.test("sixteen clients asking one repeatable query at once run it once, and all get its answer", async () => {
  await withCountedRuns({ immutable: true }, async (svc, runs) => {
    const url = query("select counted(count(*)) as n from products");
    const answers = await Promise.all(Array.from({ length: 16 }, () => svc.client.get(url)));
    assert.deepEqual(answers.map((r) => r.status), Array(16).fill(200));
    const counts = answers.map((r) => r.json<{ n: number }[]>()[0].n);
    assert.ok(counts.every((n) => n === counts[0] && n > 0), String(counts));
    assert.equal(runs(), 1);
    // The file never changes: the next client is answered without running it again.
    assert.equal((await svc.client.get(url)).json<{ n: number }[]>()[0].n, counts[0]);
    assert.equal(runs(), 1);
  });
});

Deno.test("a mutable file's shared answer is never served after a write", async () => {
  await withCountedRuns({ immutable: false }, async (svc, runs) => {
    const url = query("select counted(count(*)) as n from products");
    const before = (await svc.client.get(url)).json<{ n: number }[]>()[0].n;
    await svc.get_database("shop").execute_write(
      "insert into products (name, category_id, price) values ('new', 1, 1)",
    );
    assert.equal((await svc.client.get(url)).json<{ n: number }[]>()[0].n, before + 1);
    assert.equal(runs(), 2);
  });
});

Deno.test("SQL that may answer differently each time runs for every client", async () => {
  await withCountedRuns({ immutable: true }, async (svc, runs) => {
    for (
      const sql of [
        "select counted(count(*)) as n, random() as r from products",
        "select counted(count(*)) as n, datetime('now') as t from products",
        "select counted(count(*)) as n, strftime('%s') as t from products",
      ]
    ) {
      const before = runs();
      const answers = await Promise.all(
        Array.from({ length: 4 }, () => svc.client.get(query(sql))),
      );
      assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 200]);
      assert.equal(runs() - before, 4, sql);
    }
  });
});
