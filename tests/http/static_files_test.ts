import assert from "node:assert/strict";
import zlib from "node:zlib";
import { compressResponse } from "../../src/app/compression.ts";
import { Request as VitrineRequest } from "../../src/http/request.ts";
import type { Response } from "../../src/http/response.ts";
import { safeRelativePath, serveFile } from "../../src/http/static_files.ts";
import { byteRange } from "../../src/http/byte_range.ts";

const root = await Deno.makeTempDir({ prefix: "vitrine_static_" });
await Deno.mkdir(`${root}/static/sub`, { recursive: true });
await Deno.writeTextFile(`${root}/static/app.css`, "body { color: red }\n");
await Deno.writeTextFile(`${root}/static/sub/data.json`, '{"a":1}');
await Deno.writeTextFile(`${root}/static/hello world.txt`, "0123456789");
await Deno.writeTextFile(`${root}/secret.txt`, "top secret");
await Deno.symlink(`${root}/secret.txt`, `${root}/static/link.txt`);
const staticRoot = `${root}/static`;
const big = new Uint8Array(300_000).map((_, i) => i % 251);
await Deno.writeFile(`${staticRoot}/big.bin`, big);

const get = (headers: Record<string, string> = {}) => ({ method: "GET", headers });

Deno.test("serves a file with content type, length, ETag and Last-Modified", async () => {
  const response = await serveFile(staticRoot, "app.css", get(), { cacheControl: "max-age=3600" });
  const web = response.toWebResponse();
  assert.equal(web.status, 200);
  assert.equal(web.headers.get("content-type"), "text/css; charset=utf-8");
  assert.equal(web.headers.get("content-length"), "20");
  assert.equal(web.headers.get("cache-control"), "max-age=3600");
  assert.ok(web.headers.get("etag"));
  assert.ok(web.headers.get("last-modified"));
  assert.equal(await web.text(), "body { color: red }\n");
});

Deno.test("nested and percent-encoded names resolve", async () => {
  const nested = await serveFile(staticRoot, "sub/data.json", get());
  assert.equal(nested.content_type, "application/json; charset=utf-8");
  const spaced = (await serveFile(staticRoot, "hello%20world.txt", get())).toWebResponse();
  assert.equal(await spaced.text(), "0123456789");
});

Deno.test("traversal attempts and oddities are 404", async () => {
  const attempts = [
    "../secret.txt",
    "%2e%2e/secret.txt",
    "..%2fsecret.txt",
    "%2E%2E%2Fsecret.txt",
    "sub/../../secret.txt",
    `${root}/secret.txt`,
    "/etc/passwd",
    "..\\secret.txt",
    "app.css%00.png",
    "link.txt",
    "sub",
    "missing.css",
    "%E0%A4%A",
    "",
  ];
  for (const attempt of attempts) {
    const response = await serveFile(staticRoot, attempt, get());
    assert.equal(response.status, 404, attempt);
    assert.ok(!String(response.body).includes("secret"), attempt);
  }
});

Deno.test("safeRelativePath rejects dot segments, absolute paths and backslashes", () => {
  assert.equal(safeRelativePath("a/b.css"), "a/b.css");
  assert.equal(safeRelativePath("a/./b.css"), null);
  assert.equal(safeRelativePath("a//b.css"), null);
  assert.equal(safeRelativePath("%2e%2e"), null);
  assert.equal(safeRelativePath("a%5cb"), null);
});

Deno.test("If-None-Match with the ETag gives 304 without a body", async () => {
  const first = await serveFile(staticRoot, "app.css", get());
  const etag = first.headers["ETag"];
  const second = await serveFile(staticRoot, "app.css", get({ "if-none-match": etag }));
  assert.equal(second.status, 304);
  assert.equal(second.toWebResponse().body, null);
  const other = await serveFile(staticRoot, "app.css", get({ "if-none-match": '"nope"' }));
  assert.equal(other.status, 200);
  await other.toWebResponse().body?.cancel();
});

Deno.test("If-Modified-Since at or after the mtime gives 304", async () => {
  const first = await serveFile(staticRoot, "app.css", get());
  const since = first.headers["Last-Modified"];
  assert.equal(
    (await serveFile(staticRoot, "app.css", get({ "if-modified-since": since }))).status,
    304,
  );
  await first.toWebResponse().body?.cancel();
});

Deno.test("Range gives 206 with the slice and Content-Range", async () => {
  const web = (await serveFile(staticRoot, "hello%20world.txt", get({ range: "bytes=2-5" })))
    .toWebResponse();
  assert.equal(web.status, 206);
  assert.equal(web.headers.get("content-range"), "bytes 2-5/10");
  assert.equal(web.headers.get("content-length"), "4");
  assert.equal(await web.text(), "2345");
  const suffix = (await serveFile(staticRoot, "hello%20world.txt", get({ range: "bytes=-3" })))
    .toWebResponse();
  assert.equal(await suffix.text(), "789");
});

Deno.test("an unsatisfiable Range is 416", async () => {
  const response = await serveFile(staticRoot, "hello%20world.txt", get({ range: "bytes=50-" }));
  assert.equal(response.status, 416);
  assert.equal(response.headers["Content-Range"], "bytes */10");
});

Deno.test("HEAD sends headers only", async () => {
  const response = await serveFile(staticRoot, "app.css", { method: "HEAD", headers: {} });
  assert.equal(response.status, 200);
  assert.equal(response.headers["Content-Length"], "20");
  assert.equal(response.body, null);
});

Deno.test("large files stream in full, and ranges inside them are exact", async () => {
  const whole = (await serveFile(staticRoot, "big.bin", get())).toWebResponse();
  assert.equal(whole.headers.get("content-type"), "application/octet-stream");
  assert.deepEqual(new Uint8Array(await whole.arrayBuffer()), big);
  const part = (await serveFile(staticRoot, "big.bin", get({ range: "bytes=100000-200009" })))
    .toWebResponse();
  assert.deepEqual(new Uint8Array(await part.arrayBuffer()), big.subarray(100000, 200010));
});

Deno.test("a web Request works as the request argument", async () => {
  const raw = new Request("http://localhost/-/static/app.css", { headers: { range: "bytes=0-3" } });
  const web = (await serveFile(staticRoot, "app.css", raw)).toWebResponse();
  assert.equal(await web.text(), "body");
});

Deno.test("byteRange parsing", () => {
  assert.deepEqual(byteRange("bytes=0-0", 10), [0, 0]);
  assert.deepEqual(byteRange("bytes=5-100", 10), [5, 9]);
  assert.equal(byteRange("bytes=0-1,4-5", 10), null);
  assert.equal(byteRange("items=0-1", 10), null);
  assert.equal(byteRange("bytes=3-1", 10), "unsatisfiable");
  assert.equal(byteRange("bytes=-0", 10), "unsatisfiable");
  assert.equal(byteRange("bytes=0-1", 10, '"old"', '"new"'), null);
  assert.equal(byteRange(null, 10), null);
});

Deno.test("a small file is read once and sent as the same bytes, compressed once, until it changes", async () => {
  const path = `${staticRoot}/kept.js`;
  const script = "console.log('kept');\n".repeat(200);
  await Deno.writeTextFile(path, script);
  const first = await serveFile(staticRoot, "kept.js", get());
  const again = await serveFile(staticRoot, "kept.js", get());
  assert.ok(first.body instanceof Uint8Array);
  assert.equal(again.body, first.body, "the kept bytes, not a second read");
  assert.equal(new TextDecoder().decode(first.body as Uint8Array), script);
  // Compressed once per coding: the same copy for every response that asks for it.
  const brotli = (response: Response) => {
    const asking = new VitrineRequest(
      new globalThis.Request("http://localhost/-/static/kept.js", {
        headers: { "accept-encoding": "br" },
      }),
    );
    compressResponse(asking, response);
    assert.equal(response.headers["content-encoding"], "br");
    return response.body as Uint8Array;
  };
  const compressed = brotli(first);
  assert.equal(brotli(again), compressed);
  assert.equal(new TextDecoder().decode(zlib.brotliDecompressSync(compressed)), script);
  // A changed file (another size, so another tag) is read again.
  await Deno.writeTextFile(path, "console.log('changed');\n");
  const changed = await serveFile(staticRoot, "kept.js", get());
  assert.notEqual(changed.headers["ETag"], first.headers["ETag"]);
  assert.equal(new TextDecoder().decode(changed.body as Uint8Array), "console.log('changed');\n");
});

Deno.test("files over 1 MB are streamed, not kept", async () => {
  const huge = new Uint8Array(1_500_000).map((_, i) => i % 253);
  await Deno.writeFile(`${staticRoot}/huge.bin`, huge);
  const response = await serveFile(staticRoot, "huge.bin", get());
  assert.ok(response.body instanceof ReadableStream);
  const received = new Uint8Array(await response.toWebResponse().arrayBuffer());
  assert.deepEqual(received, huge);
});
