import assert from "node:assert/strict";
import {
  BadRequest,
  DatabaseNotFound,
  Forbidden,
  HttpError,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  RowNotFound,
  TableNotFound,
} from "../../src/http/errors.ts";

Deno.test("not-found errors carry the spec's messages and names", () => {
  const db = new DatabaseNotFound("shop");
  assert.equal(db.status, 404);
  assert.equal(db.message, "Database not found");
  assert.equal(db.database_name, "shop");
  assert.ok(db instanceof NotFound && db instanceof HttpError);

  const table = new TableNotFound("shop", "nope");
  assert.equal(table.message, "Table not found");
  assert.deepEqual([table.database_name, table.table], ["shop", "nope"]);

  const row = new RowNotFound("shop", "products", ["99"]);
  assert.equal(row.message, "Row not found");
  assert.deepEqual(row.pk_values, ["99"]);
});

Deno.test("status codes of the other errors", () => {
  assert.equal(new Forbidden().status, 403);
  assert.equal(new BadRequest("bad sort").status, 400);
  assert.equal(new BadRequest("bad sort").message, "bad sort");
  assert.equal(new MethodNotAllowed().status, 405);
  assert.deepEqual(new MethodNotAllowed("no", { allowed: ["GET"] }).allowed, ["GET"]);
  assert.equal(new PayloadTooLarge().status, 413);
  assert.equal(new NotFound().message, "Not found");
});

Deno.test("HttpError keeps title and extra", () => {
  const error = new HttpError(418, "teapot", { title: "Tea", extra: { hint: 1 } });
  assert.equal(error.status, 418);
  assert.equal(error.title, "Tea");
  assert.deepEqual(error.extra, { hint: 1 });
  assert.equal(new HttpError(400).message, "Bad Request");
  assert.equal(new HttpError(400).title, null);
});
