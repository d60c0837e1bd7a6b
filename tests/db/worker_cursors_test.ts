/**
 * Export cursors as a read worker runs them (`readChunk`, `readAhead`), called here on this
 * thread: a chunk read ahead is the chunk that would have been read, a failure read ahead reaches
 * the request that follows, and a cursor that is gone is never opened again from its first row.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { closeCursor, readAhead, readChunk } from "../../src/db/worker_cursors.ts";
import { pretendNoCellReading } from "../../src/sqlite/cell_batch.ts";
import { csvCellText, csvLine } from "../../src/render/csv.ts";
import type { ReadRequest } from "../../src/db/read_query.ts";
import type { TextRowsOptions } from "../../src/util/text_rows.ts";

function numbers(rows: number): Connection {
  const conn = Connection.open(":memory:");
  conn.exec(`create table n (id integer primary key, label text);
    with recursive s(i) as (select 1 union all select i + 1 from s where i < ${rows})
    insert into n select i, 'n' || i from s;`);
  return conn;
}

const text: TextRowsOptions = { format: "csv", real: [], limit: 0 };

function request(sql: string): ReadRequest {
  return { sql, params: null, maxRows: null, timeLimitMs: 1000, deadline: null, maxBytes: null };
}

const decode = (lines: Uint8Array | null) => new TextDecoder().decode(lines ?? new Uint8Array());

Deno.test("chunks read ahead are the chunks that would have been read, in order", () => {
  using conn = numbers(25);
  let calls = 0;
  conn.create_function("tick", 0, () => ++calls && null, { innocuous: true });
  const ask = request("select id, label, tick() from n order by id");
  const direct: string[] = [];
  for (let done = false; !done;) {
    const chunk = readChunk(conn, 1, ask, text, 10, direct.length === 0);
    direct.push(decode(chunk.lines));
    done = chunk.done;
  }
  const ahead: string[] = [];
  for (let done = false; !done;) {
    const chunk = readChunk(conn, 2, ask, text, 10, ahead.length === 0);
    ahead.push(decode(chunk.lines));
    done = chunk.done;
    if (done) break;
    // The next chunk's rows are read now, before it is asked for.
    const before = calls;
    readAhead(2, ask, text, 10);
    assert.equal(calls - before, Math.min(10, 25 - 10 * ahead.length));
  }
  assert.deepEqual(ahead, direct);
  assert.equal(direct.length, 3);
  assert.ok(direct[2].startsWith("21,n21,\r\n") && direct[2].endsWith("25,n25,\r\n"));
});

Deno.test("a failure read ahead reaches the next request, and the cursor is closed", () => {
  using conn = numbers(30);
  // Row 15 overflows: the first chunk (10 rows) is fine, the second fails.
  const ask = request(
    "select id, case when id = 15 then abs(-9223372036854775808) else id end from n order by id",
  );
  const first = readChunk(conn, 3, ask, text, 10, true);
  assert.equal(first.done, false);
  readAhead(3, ask, text, 10);
  assert.throws(() => readChunk(conn, 3, ask, text, 10, false), /integer overflow/);
  assert.throws(() => readChunk(conn, 3, ask, text, 10, false), /stopped/);
});

Deno.test("a request for a cursor that is gone fails instead of starting again", () => {
  using conn = numbers(30);
  const ask = request("select id from n order by id");
  assert.equal(decode(readChunk(conn, 4, ask, text, 10, true).lines).split("\r\n")[0], "1");
  closeCursor(4);
  assert.throws(() => readChunk(conn, 4, ask, text, 10, false), /nothing asked for its next rows/);
  // The first request of a cursor opens it as before.
  assert.equal(decode(readChunk(conn, 5, ask, text, 10, true).lines).split("\r\n")[0], "1");
  closeCursor(5);
});

Deno.test("the chunks of a slow query are not read ahead", () => {
  using conn = numbers(30);
  let calls = 0;
  // 3 ms a row: a 10-row chunk takes 30 ms, more than a read-ahead may hold the worker.
  conn.create_function("slow", 0, () => {
    calls++;
    const until = performance.now() + 3;
    while (performance.now() < until);
    return null;
  }, { innocuous: true });
  const ask = request("select id, slow() from n order by id");
  assert.equal(readChunk(conn, 6, ask, text, 10, true).done, false);
  const before = calls;
  readAhead(6, ask, text, 10);
  assert.equal(calls, before);
  assert.match(decode(readChunk(conn, 6, ask, text, 10, false).lines), /^11,\r\n/);
  closeCursor(6);
});

Deno.test("without sqlite3_str (SQLite before 3.25), chunks are read as values, to the same bytes", () => {
  using conn = Connection.open(":memory:");
  conn.exec(`create table m (id integer primary key, name text, price real, data);
    with recursive s(i) as (select 1 union all select i + 1 from s where i < 1400)
    insert into m select i, case i % 3 when 0 then 'a, "b"' when 1 then 'émoji 🌳' end,
      case when i % 2 = 0 then i else i / 4.0 end,
      case when i in (3, 700, 701, 1399) then x'00ff' when i % 5 = 0 then 9007199254740993 end
    from s;`);
  const ask = request("select * from m order by id");
  // Each row as a line: lines as the worker wrote them, rows (sent for the main thread to write,
  // around a BLOB) written here the same way, the BLOB marked.
  const read = (id: number) => {
    const lines: string[] = [];
    let rowChunks = 0;
    for (let done = false, first = true; !done; first = false) {
      const chunk = readChunk(conn, id, ask, { ...text, real: [2] }, 300, first);
      if (chunk.lines) lines.push(...decode(chunk.lines).split("\r\n").slice(0, -1));
      else {
        rowChunks++;
        for (const row of chunk.rows!) {
          const cells = row.map((value, i) =>
            value instanceof Uint8Array ? "<blob>" : csvCellText(value, i === 2 ? "REAL" : null)
          );
          lines.push(csvLine(cells).slice(0, -2));
        }
      }
      done = chunk.done;
    }
    return { lines, rowChunks };
  };
  const fromCells = read(7);
  pretendNoCellReading(true);
  let fromValues;
  try {
    fromValues = read(8);
  } finally {
    pretendNoCellReading(false);
  }
  assert.deepEqual(fromValues.lines, fromCells.lines);
  assert.equal(fromCells.lines.length, 1400);
  assert.equal(fromCells.lines[699], "700,émoji 🌳,700.0,<blob>");
  assert.equal(fromCells.lines[602], '603,"a, ""b""",150.75,');
  // Both sent the BLOBs' batches as rows; the cell path only from the BLOB's row on.
  assert.ok(fromCells.rowChunks >= 3 && fromValues.rowChunks >= 3);
});

Deno.test("a chunk of a wide table holds fewer rows than asked for, and the export goes on", () => {
  using conn = Connection.open(":memory:");
  const columns = Array.from({ length: 200 }, (_, i) => `c${i}`);
  conn.exec(`create table wide (${columns.join(", ")});
    with recursive s(i) as (select 1 union all select i + 1 from s where i < 1000)
    insert into wide (c0) select i from s;`);
  const ask = request("select * from wide");
  const sizes: number[] = [];
  for (let done = false, first = true; !done; first = false) {
    const chunk = readChunk(conn, 9, ask, text, 5000, first);
    sizes.push(decode(chunk.lines).split("\r\n").length - 1);
    done = chunk.done;
  }
  // 65,536 cells: 327 rows of 200 columns, then the rest.
  assert.deepEqual(sizes, [327, 327, 327, 19]);
});
