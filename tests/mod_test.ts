/** The public library API: every name plugins and embedders rely on is exported by mod.ts. */
import assert from "node:assert/strict";
import * as vitrine from "../mod.ts";
import { buildShopDb } from "./fixtures/shop.ts";

const VALUES = [
  "Service",
  "Database",
  "Results",
  // What execute_fn / execute_write_fn / write_wrapper hand plugins on a PostgreSQL database.
  "PgConnection",
  "Request",
  "Response",
  "MultiParams",
  "NotFound",
  "Forbidden",
  "DatabaseNotFound",
  "TableNotFound",
  "RowNotFound",
  "QueryInterrupted",
  "MultipleValues",
  "hookimpl",
  "Permission",
  "PostgresDatabase",
  "actor_matches_allow",
  "tilde_encode",
  "tilde_decode",
  "Markup",
  "keyError",
  "FilterArguments",
  "Facet",
  "parse_metadata",
  "BadMetadataError",
  "trace",
  "trace_child_tasks",
  "HttpError",
  "StatusError",
  "DatabaseError",
  "SqliteError",
  // The reference's 1.0a37 plugin API: actions, events, column types.
  "Action",
  "Event",
  "LoginEvent",
  "LogoutEvent",
  "CreateTokenEvent",
  "CreateTableEvent",
  "AlterTableEvent",
  "RenameTableEvent",
  "DropTableEvent",
  "InsertRowsEvent",
  "UpsertRowsEvent",
  "UpdateRowEvent",
  "DeleteRowEvent",
  "ExecuteWriteEvent",
  "ColumnType",
];

Deno.test("mod.ts exports the public API as functions and classes", () => {
  const exports = vitrine as Record<string, unknown>;
  for (const name of VALUES) assert.equal(typeof exports[name], "function", name);
  assert.deepEqual(Object.keys(exports).sort(), [...VALUES].sort());
});

Deno.test("the errors keep their hierarchy and fields", () => {
  const error = new vitrine.TableNotFound("shop", "nope");
  assert.ok(error instanceof vitrine.NotFound);
  assert.equal(error.database_name, "shop");
  assert.equal(error.table, "nope");
  assert.ok(new vitrine.DatabaseNotFound("x") instanceof vitrine.NotFound);
  assert.ok(new vitrine.Forbidden() instanceof vitrine.HttpError);
  assert.ok(new vitrine.NotFound() instanceof vitrine.StatusError);
  assert.equal(vitrine.DatabaseError.prototype instanceof vitrine.SqliteError, true);
  assert.equal(vitrine.QueryInterrupted.prototype instanceof vitrine.DatabaseError, true);
  assert.equal(vitrine.keyError("k").name, "KeyError");
  assert.throws(() => vitrine.parse_metadata("[1, 2]"), vitrine.BadMetadataError);
  assert.equal(vitrine.tilde_decode(vitrine.tilde_encode("a/b.c")), "a/b.c");
  assert.equal(String(vitrine.Markup.escape("<b>")), "&lt;b&gt;");
});

Deno.test("the module's own example: embed a Service and call it in-process", async () => {
  await using svc = new vitrine.Service({ files: [buildShopDb()] });
  const response = await svc.client.get("/shop/categories.json?_shape=array");
  assert.deepEqual(response.json().map((row: { name: string }) => row.name), [
    "Kitchen",
    "Garden",
    "Tools",
  ]);
  const results = await svc.get_database("shop").execute("select count(*) from products");
  assert.ok(results instanceof vitrine.Results);
  assert.equal(results.single_value(), 9);
});
