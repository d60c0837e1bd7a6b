/** Every error with a status extends `StatusError`, whichever layer raises it. */
import assert from "node:assert/strict";
import { StatusError } from "../../src/util/errors.ts";
import { BadRequest, Forbidden, HttpError, TableNotFound } from "../../src/http/errors.ts";
import { TableArgsError } from "../../src/table/errors.ts";
import { InvalidSql } from "../../src/util/sql.ts";
import { SqliteError } from "../../src/sqlite/errors.ts";
import {
  asDatabaseError,
  DatabaseError,
  QueryError,
  QueryInterrupted,
  QueryTooLarge,
} from "../../src/db/errors.ts";

Deno.test("each layer's errors carry status, title and headers from one base", () => {
  const cases: [StatusError, number, string | null][] = [
    [new TableNotFound("shop", "nope"), 404, null],
    [new Forbidden(), 403, null],
    [new BadRequest("bad"), 400, null],
    [new TableArgsError("_size must be a positive integer"), 400, null],
    [new TableArgsError("_where= is not allowed", 403), 403, null],
    [new InvalidSql("Statement must be a SELECT"), 400, "Invalid SQL"],
    [new QueryInterrupted("select 1", null), 400, "SQL Interrupted"],
    [new QueryTooLarge("select 1", null, "The query returns more data", 18), 400, null],
    [new SqliteError("disk I/O error", 10), 500, null],
  ];
  for (const [error, status, title] of cases) {
    assert.ok(error instanceof StatusError, error.name);
    assert.equal(error.status, status, error.name);
    assert.equal(error.title, title, error.name);
    assert.deepEqual(error.headers, {}, error.name);
  }
  assert.ok(new Forbidden() instanceof HttpError);
  assert.ok(new QueryTooLarge("select 1", null, "too large", 18) instanceof DatabaseError);
  assert.equal(new StatusError(418).message, "HTTP 418");
});

Deno.test("the data layer wraps SQLite's failures, keeping message, codes and cause", () => {
  const cause = new SqliteError("UNIQUE constraint failed: t.id", 2067);
  const wrapped = asDatabaseError(cause, "insert into t values (1)", [1]);
  assert.ok(wrapped instanceof QueryError && wrapped instanceof DatabaseError);
  assert.equal(wrapped.message, "UNIQUE constraint failed: t.id");
  assert.deepEqual([wrapped.code, wrapped.extendedCode, wrapped.status], [19, 2067, 500]);
  assert.equal(wrapped.sql, "insert into t values (1)");
  assert.equal(wrapped.cause, cause);
  // Code written against the binding still recognises it.
  assert.ok(wrapped instanceof SqliteError);

  const interrupt = asDatabaseError(new SqliteError("interrupted", 9), "select 1", null);
  assert.ok(interrupt instanceof QueryInterrupted);
  assert.match(interrupt.message, /SQL query took too long/);

  const other = new TypeError("not SQLite's");
  assert.equal(asDatabaseError(other, "select 1", null), other);
  assert.equal(asDatabaseError(wrapped, "select 2", null), wrapped);
});
