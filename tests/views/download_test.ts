import assert from "node:assert/strict";
import { buildShopDb, shopService } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("an immutable database downloads with its SHA-256 as ETag; a match is a 304", async () => {
  const path = buildShopDb();
  await using svc = new Service({ immutables: [path] });
  const bytes = Deno.readFileSync(path);
  const response = await svc.client.get("/shop.db");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "application/octet-stream");
  const etag = `"${await sha256Hex(bytes)}"`;
  assert.equal(response.headers.get("etag"), etag);
  assert.deepEqual(response.content, bytes);
  const cached = await svc.client.get("/shop.db", { headers: { "if-none-match": etag } });
  assert.equal(cached.status, 304);
  assert.equal(cached.content.length, 0);
  const page = await svc.client.get("/shop");
  assert.match(page.text, /<a href="\/shop.db">Download SQLite database<\/a>/);
});

Deno.test("a mutable database cannot be downloaded", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/shop.db", { headers: { accept: "application/json" } });
  assert.equal(response.status, 403);
  assert.equal((response.json() as { error: string }).error, "Database download is forbidden");
  assert.doesNotMatch((await svc.client.get("/shop")).text, /Download SQLite database/);
});

Deno.test("allow_download off or view-database-download denied forbids the download", async () => {
  await using off = new Service({
    immutables: [buildShopDb()],
    settings: { allow_download: false },
  });
  await using denied = new Service({
    immutables: [buildShopDb()],
    metadata: { permissions: { "view-database-download": { id: "admin" } } },
  });
  assert.equal((await off.client.get("/shop.db")).status, 403);
  assert.equal((await denied.client.get("/shop.db")).status, 403);
  assert.doesNotMatch((await denied.client.get("/shop")).text, /Download SQLite database/);
});

Deno.test("an in-memory database cannot be downloaded", async () => {
  await using svc = new Service({ memory: true });
  assert.equal((await svc.client.get("/_memory.db")).status, 403);
});

Deno.test("HEAD on the download answers the headers, with the size, without opening the file", async () => {
  const path = buildShopDb();
  await using svc = new Service({ immutables: [path] });
  // Descriptors of this process open on the database file itself (Linux). Other tests run in
  // the same process, so only descriptors naming this file say anything about HEAD.
  const real = Deno.realPathSync(path);
  const openFiles = () =>
    [...Deno.readDirSync("/proc/self/fd")].filter((entry) => {
      try {
        return Deno.readLinkSync(`/proc/self/fd/${entry.name}`) === real;
      } catch {
        return false;
      }
    }).length;
  await svc.client.get("/shop");
  const before = Deno.build.os === "linux" ? openFiles() : 0;
  for (let i = 0; i < 10; i++) {
    const response = await svc.client.head("/shop.db");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "application/octet-stream");
    assert.equal(response.headers.get("content-disposition"), 'attachment; filename="shop.db"');
    assert.match(String(response.headers.get("etag")), /^"[0-9a-f]{64}"$/);
    assert.equal(response.headers.get("content-length"), String(Deno.statSync(path).size));
  }
  if (Deno.build.os === "linux") assert.equal(openFiles(), before, "HEAD leaks a file handle");
});
