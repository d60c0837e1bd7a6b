/**
 * `inspectFiles()` (what `vitrine inspect` prints) and its use at start-up: an immutable file
 * whose size matches its inspect entry takes the recorded hash instead of being hashed again.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { inspectFiles } from "../../src/db/inspect_files.ts";
import { Service } from "../../src/service.ts";
import { buildShopDb } from "../fixtures/shop.ts";

Deno.test("inspectFiles reports hash, size, path and row counts per database", async () => {
  const db = buildShopDb();
  const data = await inspectFiles([db]);
  assert.deepEqual(Object.keys(data), ["shop"]);
  assert.equal(data.shop.hash, createHash("sha256").update(Deno.readFileSync(db)).digest("hex"));
  assert.equal(data.shop.size, Deno.statSync(db).size);
  assert.equal(data.shop.file, db);
  assert.equal(data.shop.tables.categories.count, 3);
});

Deno.test("inspect data spares immutable files a hash at start-up, if their size matches", async () => {
  const db = buildShopDb();
  const size = Deno.statSync(db).size;
  const recorded = "f".repeat(64);
  await using trusted = new Service({
    immutables: [db],
    inspect_data: { shop: { hash: recorded, size, tables: {} } },
  });
  await using stale = new Service({
    immutables: [db],
    inspect_data: { shop: { hash: recorded, size: size + 1, tables: {} } },
  });
  assert.equal(trusted.get_database("shop").hash, recorded);
  const real = createHash("sha256").update(Deno.readFileSync(db)).digest("hex");
  assert.equal(stale.get_database("shop").hash, real);
  const page = await trusted.client.get("/-/databases.json");
  assert.equal(page.json<{ databases: { hash: string }[] }>().databases[0].hash, recorded);
});
