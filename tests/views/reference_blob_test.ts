/**
 * Issue 16 class 5: `.blob` downloads as the reference answers them, on its `binary_data` shape
 * (two one-byte BLOBs and a NULL, a rowid table).
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";

Deno.test(".blob of a NULL cell answers 200 with an empty body", async () => {
  await using svc = referenceService();
  const response = await svc.client.get("/fixtures/binary_data/3.blob?_blob_column=data");
  assert.equal(response.status, 200);
  assert.equal(response.content.length, 0);
  assert.equal(response.headers.get("content-type"), "application/binary");
  assert.equal(
    response.headers.get("content-disposition"),
    'attachment; filename="binary_data-3.blob"',
  );
  assert.equal(response.headers.get("x-content-type-options"), "nosniff");
});

Deno.test(".blob of a BLOB cell answers its bytes; a bad column stays a 400", async () => {
  await using svc = referenceService();
  const response = await svc.client.get("/fixtures/binary_data/1.blob?_blob_column=data");
  assert.equal(response.status, 200);
  assert.deepEqual([...response.content], [0x15]);
  const bad = await svc.client.get("/fixtures/binary_data/1.blob?_blob_column=nope");
  assert.equal(bad.status, 400);
  const text = await svc.client.get("/fixtures/simple_primary_key/1.blob?_blob_column=content");
  assert.equal(text.status, 400);
});
