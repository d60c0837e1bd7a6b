/**
 * Rows read as cells (`Statement.readCells`) and written as export lines (`cellLines`) give the
 * text that rows read as values and written by `textRows` give, for every kind of value SQLite
 * can hold, and stop where the value path would.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { CellBatch } from "../../src/sqlite/cell_batch.ts";
import { SQLITE_TOOBIG } from "../../src/sqlite/constants.ts";
import { cellLines, validUtf8 } from "../../src/util/cell_lines.ts";
import { textRows, type TextRowsOptions } from "../../src/util/text_rows.ts";

/** A table holding the awkward values: quotes, breaks, bad UTF-8, NULs, big numbers. */
function awkwardTable(): Connection {
  const conn = Connection.open(":memory:");
  conn.exec(`
    create table t (id integer primary key, name text, price real, note, dup, dup2);
    insert into t values
      (1, 'plain', 12, null, 'a', 'b'),
      (2, 'comma, "quote"', 1.5, 'line' || char(13, 10) || 'break' || char(9) || 'tab', '', ''),
      (3, 'émoji 🌳', 9e999, '', 0, null),
      (4, '', -9e999, 'x', 1e21, 9007199254740993),
      (5, null, -0.0, '\\back' || char(1, 31, 127, 8, 12), 3.25, 1e-7),
      (6, cast(x'41ff42' as text), 0.1 + 0.2, cast(x'c0af' as text), cast(x'eda080' as text),
        cast(x'f4908080' as text)),
      (7, cast(x'610062' as text), 123456789012345678, cast(x'efbbbf41' as text), -5, 'é'),
      (8, 'tab' || char(9), 100.0, '"', -9223372036854775808, 9223372036854775807),
      (9, 'cr' || char(13) || 'only', 2.5e-8, 'lf' || char(10) || 'only', ',', 'x"y');
  `);
  return conn;
}

const SQL = "select id, name, price, note, dup, dup2, dup as dup, 7.0 as seven from t order by id";

/** The lines of every row of `sql`, read and written both ways. */
function bothWays(conn: Connection, sql: string, options: Omit<TextRowsOptions, "limit">) {
  const byValues = conn.prepare(sql);
  const rows = byValues.all();
  const columns = byValues.columns();
  const real = [...new Set([...options.real, ...byValues.realColumns()])];
  const expected = textRows(columns, rows, { ...options, real, limit: rows.length });
  byValues.finalize();
  const byCells = conn.prepare(sql);
  const batch = new CellBatch();
  let text = "";
  // Three rows at a time, so that batches end and start again mid-table.
  while (true) {
    const stop = byCells.readCells(batch, 3);
    const batchReal = [...new Set([...options.real, ...byCells.realColumns()])];
    text += new TextDecoder().decode(
      cellLines(batch, columns, { ...options, real: batchReal, limit: batch.rows }),
    );
    if (stop !== "full") break;
  }
  byCells.finalize();
  return { expected, text };
}

for (const format of ["csv", "tsv", "ndjson"] as const) {
  Deno.test(`${format} lines written from cells equal those written from values`, () => {
    using conn = awkwardTable();
    const { expected, text } = bothWays(conn, SQL, { format, real: [2] });
    assert.equal(text, expected);
    // The awkward cases are there: quoting, JSON escapes, U+FFFD for bad UTF-8, a kept BOM.
    if (format === "csv") assert.ok(text.includes('"comma, ""quote"""'));
    if (format === "ndjson") assert.ok(text.includes('"\\\\back\\u0001\\u001f\u007f\\b\\f"'));
    assert.ok(text.includes("A\uFFFDB"));
    assert.ok(text.includes("\uFEFFA"));
    assert.ok(text.includes(format === "ndjson" ? "a\\u0000b" : "a\0b"));
  });
}

Deno.test("integers written digit by digit equal their JavaScript text, at every length", () => {
  using conn = Connection.open(":memory:");
  conn.exec("create table n (i integer, r real)");
  const values = [0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 2 ** 31, -(2 ** 31) - 1, 2 ** 53 - 1];
  for (let power = 10; power <= 1e15; power *= 10) values.push(power - 1, power, -power, power + 1);
  for (const value of values) conn.run("insert into n values (?, ?)", [value, value]);
  for (const format of ["csv", "ndjson"] as const) {
    const { expected, text } = bothWays(conn, "select i, r from n", { format, real: [1] });
    assert.equal(text, expected);
    // Column r is REAL: its integral numbers keep their ".0"; column i's never get one.
    assert.ok(text.includes(format === "csv" ? "-2147483649,-2147483649.0" : '"i":999999999,'));
  }
});

Deno.test("one-column lines from cells: an empty or NULL field is written as two quotes", () => {
  using conn = Connection.open(":memory:");
  conn.exec("create table one (v); insert into one values (''), (null), ('x');");
  const { expected, text } = bothWays(conn, "select v from one", { format: "csv", real: [] });
  assert.equal(text, '""\r\n""\r\nx\r\n');
  assert.equal(text, expected);
});

Deno.test("reading cells stops before a row with a BLOB, leaving it for values()", () => {
  using conn = Connection.open(":memory:");
  conn.exec(`create table b (id integer primary key, data);
    insert into b values (1, 'a'), (2, 'b'), (3, x'0102'), (4, 'd');`);
  using statement = conn.prepare("select id, data from b order by id");
  const batch = new CellBatch();
  assert.equal(statement.readCells(batch, 10), "blob");
  assert.equal(batch.rows, 2);
  assert.equal(
    new TextDecoder().decode(
      cellLines(batch, ["id", "data"], { format: "csv", real: [], limit: 2 }),
    ),
    "1,a\r\n2,b\r\n",
  );
  assert.deepEqual(statement.values(), [3, new Uint8Array([1, 2])]);
  assert.equal(statement.readCells(batch, 10), "done");
  assert.equal(batch.rows, 1);
  assert.equal(
    new TextDecoder().decode(
      cellLines(batch, ["id", "data"], { format: "csv", real: [], limit: 1 }),
    ),
    "4,d\r\n",
  );
});

Deno.test("reading cells past the byte cap fails as reading values does", () => {
  using conn = Connection.open(":memory:");
  conn.exec("create table big (v); insert into big values ('0123456789'), ('0123456789');");
  using statement = conn.prepare("select v from big");
  const batch = new CellBatch();
  assert.throws(() => statement.readCells(batch, 10, 15), (error: { code: number }) => {
    assert.equal(error.code, SQLITE_TOOBIG);
    return true;
  });
  // The statement was reset: it reads from the start again.
  assert.equal(statement.readCells(batch, 10, 100), "done");
  assert.equal(batch.rows, 2);
});

Deno.test("validUtf8 agrees with a fatal TextDecoder on every short byte sequence kind", () => {
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const interesting = [
    0x00,
    0x41,
    0x7f,
    0x80,
    0x8f,
    0x90,
    0x9f,
    0xa0,
    0xbf,
    0xc0,
    0xc1,
    0xc2,
    0xdf,
    0xe0,
    0xe1,
    0xec,
    0xed,
    0xee,
    0xef,
    0xf0,
    0xf1,
    0xf3,
    0xf4,
    0xf5,
    0xff,
  ];
  const bytes = new Uint8Array(4);
  let checked = 0;
  // Every 1-, 2- and 3-byte sequence of interesting bytes, and 4-byte ones after a lead byte.
  const check = (length: number) => {
    let valid = true;
    try {
      strict.decode(bytes.subarray(0, length));
    } catch {
      valid = false;
    }
    assert.equal(validUtf8(bytes, 0, length), valid, [...bytes.subarray(0, length)].join(","));
    checked++;
  };
  for (const a of interesting) {
    bytes[0] = a;
    check(1);
    for (const b of interesting) {
      bytes[1] = b;
      check(2);
      for (const c of interesting) {
        bytes[2] = c;
        check(3);
        if (a < 0xf0) continue;
        for (const d of interesting) {
          bytes[3] = d;
          check(4);
        }
      }
    }
  }
  assert.ok(checked > 15_000);
});
