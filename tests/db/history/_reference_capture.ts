/**
 * The history's capture as it was first written (issue 39), kept as the reference the faster
 * one in `src/db/history/capture.ts` must agree with, record for record: it names every value
 * and encodes each row through `rowJson`, one plain step after the other.
 *
 * @module
 */

import type { Connection } from "../../../src/sqlite/connection.ts";
import { type Cell, preupdateAvailable, watchRowChanges } from "../../../src/sqlite/preupdate.ts";
import { cellJson } from "../../../src/util/json_rows.ts";
import { type HistoryRow, rowJson } from "../../../src/db/history/values.ts";
import { rowReader } from "../../../src/db/history/rows.ts";
import { quoteSqlIdentifier } from "../../../src/util/sql.ts";

/** One row's change, as history records it. */
interface ChangeRecord {
  /** The table. */
  table: string;
  /** JSON array of the row's primary key values (its rowid for a table without one). */
  pks: string;
  /** `insert`, `update` or `delete`. */
  operation: "insert" | "update" | "delete";
  /** JSON object of the row before; null for an insert. */
  before: string | null;
  /** JSON object of the row after; null for a delete. */
  after: string | null;
}

/** The name of the table history keeps in a database file (and in the internal database). */
const HISTORY_TABLE = "_vitrine_history";

interface RawChange {
  table: string;
  count: number;
  oldRowid: number | bigint;
  newRowid: number | bigint;
  old: Cell[] | null;
  /** Empty for a rowid table, whose key is the rowid; null for a delete. */
  new: Cell[] | null;
}

/** What history needs to know of a table. */
interface TableShape {
  name: string;
  withoutRowid: boolean;
  /** Every column in table order, generated ones too (`pragma table_xinfo`). */
  columns: { name: string; pk: number; hidden: number }[];
  /** Column indexes in the order the preupdate hook hands values (virtual columns are absent). */
  stored: number[];
  /** Declared primary key columns, in key order. */
  pks: string[];
}

/** A capture running on a write connection; `finish` ends it. */
export class ReferenceCapture {
  readonly #changes: RawChange[] = [];
  readonly #stop: () => void;
  #stopped = false;

  private constructor(conn: Connection) {
    // Which tables keep rows by rowid: their new values need not be read in the hook (the key is
    // the rowid, and the values after are read back at the end). A table created by the write
    // itself is not known here, so its values are read.
    const byRowid = new Set(
      conn.query("select name from pragma_table_list where schema = 'main' and wr = 0").rows
        .map(([name]) => String(name)),
    );
    this.#stop = watchRowChanges(conn, (change) => {
      if (change.schema !== "main" || change.table.startsWith("sqlite_")) return;
      if (change.table === HISTORY_TABLE) return;
      const cells = (read: (i: number) => Cell) =>
        Array.from({ length: change.count }, (_, i) => read(i));
      this.#changes.push({
        table: change.table,
        count: change.count,
        oldRowid: change.oldRowid,
        newRowid: change.newRowid,
        old: change.operation === "insert" ? null : cells(change.before),
        new: change.operation === "delete"
          ? null
          : byRowid.has(change.table)
          ? []
          : cells(change.after),
      });
    });
  }

  /** Starts watching `conn`; null when the SQLite library has no preupdate hook. */
  static start(conn: Connection): ReferenceCapture | null {
    return preupdateAvailable() ? new ReferenceCapture(conn) : null;
  }

  /** Stops watching (again: no harm); throws what the watcher failed with, if anything. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#stop();
  }

  /** Stops watching and sums the changes up per row (read on `conn`, inside the write). */
  finish(conn: Connection): ChangeRecord[] {
    this.stop();
    const byTable = new Map<string, RawChange[]>();
    for (const change of this.#changes) {
      const list = byTable.get(change.table) ?? [];
      if (!list.length) byTable.set(change.table, list);
      list.push(change);
    }
    const records: ChangeRecord[] = [];
    for (const [table, changes] of byTable) {
      const shape = tableShape(conn, table);
      if (shape === null) continue;
      // More values than columns: a column was dropped since, so the values cannot be named.
      if (changes.some((change) => change.count > shape.columns.length)) continue;
      records.push(...tableRecords(conn, shape, changes));
    }
    return records;
  }
}

/** A row's identity within one write: its rowid, or its key values in a WITHOUT ROWID table. */
interface RowKey {
  key: string;
  rowid: number | bigint | null;
  pkCells: Cell[];
}

function tableRecords(conn: Connection, shape: TableShape, changes: RawChange[]): ChangeRecord[] {
  const first = new Map<string, { at: RowKey; before: Cell[] | null }>();
  const note = (at: RowKey, before: Cell[] | null) => {
    if (!first.has(at.key)) first.set(at.key, { at, before });
  };
  for (const change of changes) {
    if (change.old) note(rowKey(shape, change.old, change.oldRowid), change.old);
    if (change.new) note(rowKey(shape, change.new, change.newRowid), null);
  }
  const read = afterReader(conn, shape, [...first.values()].map(({ at }) => at));
  const records: ChangeRecord[] = [];
  for (const { at, before } of first.values()) {
    const beforeRow = before ? namedRow(shape, before) : null;
    const afterRow = read(at);
    const beforeText = beforeRow ? rowJson(beforeRow) : null;
    const afterText = afterRow ? rowJson(afterRow) : null;
    if (beforeText === afterText) continue;
    const row = (afterRow ?? beforeRow)!;
    const pks = shape.pks.length
      ? shape.pks.map((pk) =>
        row.find(([name]) => name === pk)?.[1] ?? { value: null, real: false }
      )
      : [{ value: at.rowid, real: false }];
    records.push({
      table: shape.name,
      pks: `[${pks.map((cell) => cellJson(cell.value, cell.real, false)).join(",")}]`,
      operation: beforeText === null ? "insert" : afterText === null ? "delete" : "update",
      before: beforeText,
      after: afterText,
    });
  }
  return records;
}

function rowKey(shape: TableShape, cells: Cell[], rowid: number | bigint): RowKey {
  if (!shape.withoutRowid) return { key: String(rowid), rowid, pkCells: [] };
  const pkCells = shape.pks.map((pk) => {
    const column = shape.columns.findIndex((c) => c.name === pk);
    return cells[shape.stored.indexOf(column)] ?? { value: null, real: false };
  });
  return {
    key: rowJson(pkCells.map((cell, i) => [shape.pks[i], cell])),
    rowid: null,
    pkCells,
  };
}

/** The hook's values named by column, generated columns left out. */
function namedRow(shape: TableShape, cells: Cell[]): HistoryRow {
  const row: HistoryRow = [];
  shape.stored.forEach((column, i) => {
    const { name, hidden } = shape.columns[column];
    if (hidden === 0) row.push([name, cells[i] ?? { value: null, real: false }]);
  });
  return row;
}

/** Rows read back at a time (their rowids go in as one JSON array). */
const CHUNK = 2000;

/**
 * Reads rows as they are now (null when gone), with each value's storage class: a rowid table's
 * rows all at once, a chunk of rowids a query, since one query per row costs more than the row.
 */
function afterReader(
  conn: Connection,
  shape: TableShape,
  keys: RowKey[],
): (at: RowKey) => HistoryRow | null {
  const names = shape.columns.filter((c) => c.hidden === 0).map((c) => c.name);
  if (shape.withoutRowid) {
    const read = rowReader(conn, shape.name, names, shape.pks);
    return (at) => read(at.pkCells.map((cell) => cell.value));
  }
  const select = names.map((name) => {
    const q = quoteSqlIdentifier(name);
    return `, ${q}, typeof(${q}) = 'real'`;
  }).join("");
  // query() keeps the compiled statement for the next write to this table.
  const sql = `select rowid${select} from ${quoteSqlIdentifier(shape.name)}
    where rowid in (select value from json_each(?))`;
  const found = new Map<string, HistoryRow>();
  for (let i = 0; i < keys.length; i += CHUNK) {
    const rowids = keys.slice(i, i + CHUNK).map((key) => String(key.rowid));
    for (const values of conn.query(sql, [`[${rowids.join(",")}]`]).rows) {
      found.set(
        String(values[0]),
        names.map((name, j) => [name, { value: values[1 + 2 * j], real: values[2 + 2 * j] === 1 }]),
      );
    }
  }
  return (at) => found.get(String(at.rowid)) ?? null;
}

function tableShape(conn: Connection, table: string): TableShape | null {
  const listed = conn.query(
    "select type, wr from pragma_table_list where schema = 'main' and name = ?",
    [table],
  ).rows[0];
  if (!listed || listed[0] !== "table") return null;
  const columns = conn.query(
    "select name, pk, hidden from pragma_table_xinfo(?) order by cid",
    [table],
  ).rows.map(([name, pk, hidden]) => ({
    name: String(name),
    pk: Number(pk),
    hidden: Number(hidden),
  }));
  return {
    name: table,
    withoutRowid: listed[1] === 1,
    columns,
    stored: columns.flatMap((column, i) => column.hidden === 2 ? [] : [i]),
    pks: columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name),
  };
}
