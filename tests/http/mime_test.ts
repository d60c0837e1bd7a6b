import assert from "node:assert/strict";
import { contentTypeFor } from "../../src/http/mime.ts";

Deno.test("contentTypeFor maps static asset extensions", () => {
  assert.equal(contentTypeFor("app.css"), "text/css; charset=utf-8");
  assert.equal(contentTypeFor("x/table.JS"), "text/javascript; charset=utf-8");
  assert.equal(contentTypeFor("font.woff2"), "font/woff2");
  assert.equal(contentTypeFor("logo.svg"), "image/svg+xml");
  assert.equal(contentTypeFor("photo.jpeg"), "image/jpeg");
});

Deno.test("unknown or missing extensions are octet-stream", () => {
  assert.equal(contentTypeFor("data.db"), "application/octet-stream");
  assert.equal(contentTypeFor("Makefile"), "application/octet-stream");
  assert.equal(contentTypeFor("dir.v2/README"), "application/octet-stream");
});
