/**
 * Issue 37 item 15: custom SQL pages link BLOB cells to `/<db>/-/query.blob?sql=…&_blob_column=…
 * &_blob_hash=…`, which downloads that cell as the reference's blob renderer does.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { referenceService } from "../fixtures/reference.ts";

const SQL = "select rowid, data from binary_data";
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

Deno.test("a query page links each BLOB cell to its .blob download", async () => {
  await using svc = referenceService();
  const page = await svc.client.get(`/fixtures/-/query?sql=${encodeURIComponent(SQL)}`);
  assert.equal(page.status, 200);
  const hash = sha256(new Uint8Array([0x15]));
  const links = [...page.text.matchAll(/<a class="blob-download" href="([^"]+)">([^<]+)<\/a>/g)];
  assert.equal(links.length, 2);
  const href = links[0][1].replaceAll("&amp;", "&");
  assert.equal(links[0][2], "&lt;Binary:&nbsp;1&nbsp;byte&gt;");
  assert.ok(href.startsWith("/fixtures/-/query.blob?"), href);
  const args = new URL(href, "http://x").searchParams;
  assert.equal(args.get("sql"), SQL);
  assert.equal(args.get("_blob_column"), "data");
  assert.equal(args.get("_blob_hash"), hash);
  // The link downloads the cell.
  const blob = await svc.client.get(href);
  assert.equal(blob.status, 200);
  assert.equal(blob.headers.get("content-type"), "application/binary");
  assert.equal(blob.headers.get("x-content-type-options"), "nosniff");
  assert.equal(
    blob.headers.get("content-disposition"),
    `attachment; filename="data-${hash.slice(0, 6)}.blob"`,
  );
  assert.deepEqual(blob.content, new Uint8Array([0x15]));
});

Deno.test("query.blob refuses a missing column, a wrong one and a hash no row has", async () => {
  await using svc = referenceService();
  const base = `/fixtures/-/query.blob?sql=${encodeURIComponent(SQL)}`;
  const cases: [string, string][] = [
    ["", "?_blob_column= is required"],
    ["&_blob_column=nope", "nope is not a valid column"],
    [
      `&_blob_column=data&_blob_hash=${"0".repeat(64)}`,
      "Link has expired - the requested binary content has changed or could not be found.",
    ],
  ];
  for (const [extra, message] of cases) {
    const response = await svc.client.get(base + extra, {
      headers: { accept: "application/json" },
    });
    assert.equal(response.status, 400, extra);
    assert.equal(response.json().error, message, extra);
  }
  // Without a hash, the first row's cell.
  const first = await svc.client.get(`${base}&_blob_column=data`);
  assert.equal(first.status, 200);
  assert.deepEqual(first.content, new Uint8Array([0x15]));
});

Deno.test("query.blob needs execute-sql like the query page", async () => {
  await using svc = referenceService({ metadata: { allow_sql: false } });
  const response = await svc.client.get(
    `/fixtures/-/query.blob?sql=${encodeURIComponent(SQL)}&_blob_column=data`,
  );
  assert.equal(response.status, 403);
});

Deno.test("a canned query page links BLOB cells to <query>.blob, which downloads them", async () => {
  await using svc = referenceService({
    metadata: { databases: { fixtures: { queries: { blobs: SQL } } } },
  });
  const page = await svc.client.get("/fixtures/blobs");
  assert.equal(page.status, 200);
  const href = /<a class="blob-download" href="([^"]+)">/.exec(page.text)?.[1]
    .replaceAll("&amp;", "&");
  const hash = sha256(new Uint8Array([0x15]));
  assert.equal(href, `/fixtures/blobs.blob?_blob_column=data&_blob_hash=${hash}`);
  const blob = await svc.client.get(href!);
  assert.equal(blob.status, 200);
  assert.equal(blob.headers.get("content-type"), "application/binary");
  assert.deepEqual(blob.content, new Uint8Array([0x15]));
});
