/**
 * What one write did to rows, found with SQLite's preupdate hook (`sqlite/preupdate.ts`): every
 * row of a `main` table inserted, updated or deleted while the capture runs — by the statement
 * itself, by its triggers or by foreign-key actions, whatever SQL did it (the write API,
 * `execute-write`, a writable canned query). The changes are summed up per row: a row's values
 * before its first change and after the write, read from the table itself at the end, so a change
 * a savepoint rolled back (a dry run) and a row changed and changed back leave nothing. A row
 * whose key changed is two changes: the old key deleted, the new one inserted.
 *
 * Not captured: virtual tables and their shadow tables (a full-text index follows its table),
 * SQLite's own tables, tables of attached databases, rows of a table whose column was dropped
 * by the same write (their old values no longer match the columns), and the changes a write made
 * to a table before it dropped it (or renamed it away) and created another under the same name:
 * those rows went with the old table, and only the new table's rows are recorded, by its own
 * columns and key (the guard of `protect.ts` tells the capture of each table a statement creates,
 * drops or alters, as it is compiled). A table renamed to the dropped one's name is not told
 * apart that way (the guard sees the old name of a rename): when one of the two keeps its rows by
 * rowid and the other not, none of that name's rows are recorded rather than keys that mean
 * nothing. Generated columns are left out of the values (they cannot be written back).
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import type { TableEdit } from "../../sqlite/table_guard.ts";
import { type Cell, preupdateAvailable, watchRowChanges } from "../../sqlite/preupdate.ts";
import { cellJson } from "../../util/json_rows.ts";
import { rowJson } from "./values.ts";
import type { SqlValue } from "../../sqlite/values.ts";
import { rowReader } from "./rows.ts";
import { quoteSqlIdentifier } from "../../util/sql.ts";

/** One row's change, as history records it. */
export interface ChangeRecord {
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
export const HISTORY_TABLE = "_vitrine_history";

interface RawChange {
  table: string;
  count: number;
  oldRowid: number | bigint;
  newRowid: number | bigint;
  old: Cell[] | null;
  /** Empty for a rowid table, whose key is the rowid; null for a delete. */
  new: Cell[] | null;
  /** How many times the write had made another table of this name when the row changed. */
  generation: number;
  /** Whether the table was taken for one keeping its rows by rowid when the row changed. */
  byRowid: boolean;
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
  /** How its rows are written, once needed. */
  writer?: RowWriter;
}

/**
 * What history learned of a connection's tables, for as long as the schema stays as it was (its
 * cookie, `pragma schema_version`, changes with every change of the schema, whoever makes it):
 * reading them again for each write costs more than a write of a hundred rows (`pragma_table_list`
 * looks at every table and view of the file).
 */
interface SchemaMemo {
  version: number;
  /** Every table and view of `main`, true for the tables that keep rows by rowid. */
  byRowid: Map<string, boolean> | null;
  /** Each table's shape; null for what is no table of `main`. */
  shapes: Map<string, TableShape | null>;
}

const memos = new WeakMap<Connection, SchemaMemo>();

function schemaMemo(conn: Connection): SchemaMemo {
  const version = Number(conn.query("pragma schema_version").rows[0][0]);
  let memo = memos.get(conn);
  if (memo?.version !== version) {
    memos.set(conn, memo = { version, byRowid: null, shapes: new Map() });
  }
  return memo;
}

/** A capture running on a write connection; `finish` ends it. */
export class ChangeCapture {
  readonly #changes: RawChange[] = [];
  readonly #stop: () => void;
  #stopped = false;

  /** Per lower-case table name, how many times the write made another table of that name. */
  readonly #generations = new Map<string, number>();

  private constructor(conn: Connection, edits: () => readonly TableEdit[] | null) {
    // Which tables keep rows by rowid: their new values need not be read in the hook (the key is
    // the rowid, and the values after are read back at the end).
    const known = schemaMemo(conn).byRowid ??= new Map(
      conn.query("select name, wr from pragma_table_list where schema = 'main'").rows
        .map(([name, wr]) => [String(name), wr === 0]),
    );
    // A table the write itself created (an upload's first part) is asked about when its first
    // row comes, once: reading every value of every row instead made its rows cost about twice
    // what any other table's do (bench/history_capture.ts).
    const created = new Map<string, boolean>();
    const generations = this.#generations;
    const byRowid = (table: string): boolean => {
      // A table made again under its name may keep its rows otherwise than the one listed.
      if (!generations.size || !generations.has(table.toLowerCase())) {
        const listed = known.get(table);
        if (listed !== undefined) return listed;
      }
      let answer = created.get(table);
      if (answer === undefined) created.set(table, answer = keepsRowid(conn, table));
      return answer;
    };
    // The tables the write's statements create, drop or alter, read as the rows come: a table
    // dropped or altered (renamed away) then created under the same name is another table, whose
    // rows are not those changed before (SQLite compares names without regard to case).
    let log: readonly TableEdit[] | null = null;
    let seen = 0;
    const leaving = new Set<string>();
    const follow = () => {
      const now = edits();
      if (now !== log) [log, seen] = [now, 0];
      for (; log && seen < log.length; seen++) {
        const { action, schema, table } = log[seen];
        if (schema !== "main") continue;
        const name = table.toLowerCase();
        if (action !== "create") leaving.add(name);
        else if (leaving.delete(name)) {
          generations.set(name, (generations.get(name) ?? 0) + 1);
          for (const known of created.keys()) {
            if (known.toLowerCase() === name) created.delete(known);
          }
        }
      }
    };
    this.#stop = watchRowChanges(conn, (change) => {
      if (change.schema !== "main" || change.table.startsWith("sqlite_")) return;
      if (change.table === HISTORY_TABLE) return;
      follow();
      const cells = (read: (i: number) => Cell) =>
        Array.from({ length: change.count }, (_, i) => read(i));
      const rowid = byRowid(change.table);
      this.#changes.push({
        table: change.table,
        count: change.count,
        oldRowid: change.oldRowid,
        newRowid: change.newRowid,
        old: change.operation === "insert" ? null : cells(change.before),
        new: change.operation === "delete" ? null : rowid ? [] : cells(change.after),
        byRowid: rowid,
        generation: generations.size ? generations.get(change.table.toLowerCase()) ?? 0 : 0,
      });
    });
  }

  /**
   * Starts watching `conn`; null when the SQLite library has no preupdate hook. `edits` gives the
   * tables the write's statements created, dropped or altered so far (`protect.ts` `tableEdits`),
   * or null outside such a watch.
   */
  static start(
    conn: Connection,
    edits: () => readonly TableEdit[] | null = () => null,
  ): ChangeCapture | null {
    return preupdateAvailable() ? new ChangeCapture(conn, edits) : null;
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
    for (const [table, all] of byTable) {
      // Only the rows of the table that now has the name: the others' table is gone.
      const latest = this.#generations.get(table.toLowerCase()) ?? 0;
      const changes = all.some((change) => change.generation !== latest)
        ? all.filter((change) => change.generation === latest)
        : all;
      if (!changes.length) continue;
      const memo = schemaMemo(conn);
      if (!memo.shapes.has(table)) memo.shapes.set(table, tableShape(conn, table));
      const shape = memo.shapes.get(table)!;
      if (shape === null) continue;
      // More values than columns: a column was dropped since, so the values cannot be named.
      if (changes.some((change) => change.count > shape.columns.length)) continue;
      // Rows taken for another kind of table than the one of that name now (another table was
      // renamed to it): neither their keys nor their values can be told.
      if (changes.some((change) => change.byRowid === shape.withoutRowid)) continue;
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

/**
 * A row as read back, as the query hands it: its rowid, its recorded columns' values, then which
 * of them were REAL, one bit each, {@link MASK_BITS} columns an integer.
 */
type ReadRow = SqlValue[];

function tableRecords(conn: Connection, shape: TableShape, changes: RawChange[]): ChangeRecord[] {
  const writer = shape.writer ??= new RowWriter(shape);
  const records: ChangeRecord[] = [];
  const record = (rowid: number | bigint | null, before: Cell[] | null, now: ReadRow | null) => {
    const beforeText = before ? writer.beforeText(before) : null;
    const afterText = now ? writer.afterText(now) : null;
    if (beforeText === afterText) return;
    records.push({
      table: shape.name,
      pks: !shape.pks.length
        ? `[${cellJson(rowid, false, false)}]`
        : now
        ? writer.afterPks(now)
        : writer.beforePks(before!),
      operation: beforeText === null ? "insert" : afterText === null ? "delete" : "update",
      before: beforeText,
      after: afterText,
    });
  };
  if (shape.withoutRowid) {
    const first = new Map<string, { at: RowKey; before: Cell[] | null }>();
    const note = (at: RowKey, before: Cell[] | null) => {
      if (!first.has(at.key)) first.set(at.key, { at, before });
    };
    for (const change of changes) {
      if (change.old) note(rowKey(shape, change.old, change.oldRowid), change.old);
      if (change.new) note(rowKey(shape, change.new, change.newRowid), null);
    }
    const read = rowReader(conn, shape.name, writer.names, shape.pks);
    for (const { at, before } of first.values()) {
      const now = read(at.pkCells.map((cell) => cell.value));
      const real = new Array(Math.ceil(writer.names.length / MASK_BITS)).fill(0);
      now?.forEach(([, cell], k) => {
        if (cell.real) real[Math.floor(k / MASK_BITS)] |= 1 << k % MASK_BITS;
      });
      record(null, before, now ? [null, ...now.map(([, cell]) => cell.value), ...real] : null);
    }
    return records;
  }
  // A rowid table's rows go by rowid (the hook hands it; a key change is two rows).
  const first = new Map<number | bigint, Cell[] | null>();
  for (const change of changes) {
    if (change.old && !first.has(change.oldRowid)) first.set(change.oldRowid, change.old);
    if (change.new && !first.has(change.newRowid)) first.set(change.newRowid, null);
  }
  const now = readRowidRows(conn, shape, writer.names, first);
  for (const [rowid, before] of first) record(rowid, before, now.get(rowid) ?? null);
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

const NO_CELL: Cell = { value: null, real: false };

/**
 * Writes a table's rows as history keeps them (`values.ts` `rowJson`: a JSON object of the
 * recorded columns), straight from the hook's values or a query's, with each column's text
 * before its value worked out once per table rather than once per row.
 */
class RowWriter {
  /** The recorded columns' names: generated ones left out, in table order. */
  readonly names: string[];
  /** `{"name":` for the first column, `,"name":` for the others. */
  readonly #before: string[];
  /** Where each recorded column's value is among the hook's values (virtual columns absent). */
  readonly #hookAt: number[];
  /** Where each key column is among the recorded columns. */
  readonly #pkAt: number[];

  constructor(shape: TableShape) {
    const recorded = shape.columns.flatMap((column, i) => column.hidden === 0 ? [i] : []);
    this.names = recorded.map((i) => shape.columns[i].name);
    this.#before = this.names.map((name, k) => `${k ? "," : "{"}${JSON.stringify(name)}:`);
    this.#hookAt = recorded.map((column) => shape.stored.indexOf(column));
    this.#pkAt = shape.pks.map((pk) => this.names.indexOf(pk));
  }

  #cell(cells: Cell[], k: number): Cell {
    return cells[this.#hookAt[k]] ?? NO_CELL;
  }

  beforeText(cells: Cell[]): string {
    if (!this.names.length) return "{}";
    let out = "";
    for (let k = 0; k < this.names.length; k++) {
      const cell = this.#cell(cells, k);
      out += this.#before[k] + cellJson(cell.value, cell.real, false);
    }
    return out + "}";
  }

  afterText(row: ReadRow): string {
    if (!this.names.length) return "{}";
    let out = "";
    for (let k = 0; k < this.names.length; k++) {
      out += this.#before[k] + cellJson(row[1 + k], this.#isReal(row, k), false);
    }
    return out + "}";
  }

  #isReal(row: ReadRow, k: number): boolean {
    const mask = row[1 + this.names.length + Math.floor(k / MASK_BITS)] as number;
    return (mask & (1 << k % MASK_BITS)) !== 0;
  }

  beforePks(cells: Cell[]): string {
    return `[${
      this.#pkAt.map((k) => {
        const cell = k < 0 ? NO_CELL : this.#cell(cells, k);
        return cellJson(cell.value, cell.real, false);
      }).join(",")
    }]`;
  }

  afterPks(row: ReadRow): string {
    return `[${
      this.#pkAt.map((k) => k < 0 ? "null" : cellJson(row[1 + k], this.#isReal(row, k), false))
        .join(",")
    }]`;
  }
}

/** Columns whose REAL-ness one integer of a query's row tells, a bit each. */
const MASK_BITS = 30;

/** Rowids read back by one query when they lie scattered (they go in as one JSON array). */
const CHUNK = 2000;

/** Rows of a stretch of rowids read back by one query (bounds the rows held at a time). */
const SPAN = 4000;

/**
 * The rows of `wanted` rowids as they are now, with which values are REAL (the query tells that
 * with a bit mask per 30 columns, not a column per column). Rowids close together (the rows an
 * insert added, an update of a range) are read as a stretch of the table, which costs less than
 * looking each up; scattered ones a chunk at a time, by a JSON array of them.
 */
function readRowidRows(
  conn: Connection,
  shape: TableShape,
  names: string[],
  wanted: ReadonlyMap<number | bigint, unknown>,
): Map<number | bigint, ReadRow> {
  const quoted = names.map(quoteSqlIdentifier);
  const masks: string[] = [];
  for (let m = 0; m < quoted.length; m += MASK_BITS) {
    masks.push(
      quoted.slice(m, m + MASK_BITS).map((q, b) => `((typeof(${q}) = 'real') << ${b})`).join(
        " | ",
      ),
    );
  }
  const select = `select rowid${quoted.map((q) => `, ${q}`).join("")}${
    masks.map((mask) => `, ${mask}`).join("")
  } from ${quoteSqlIdentifier(shape.name)}`;
  const found = new Map<number | bigint, ReadRow>();
  const take = (rows: SqlValue[][]) => {
    for (const row of rows) {
      const rowid = row[0] as number | bigint;
      if (!wanted.has(rowid)) continue;
      found.set(rowid, row);
    }
  };
  const sorted = [...wanted.keys()];
  // An insert's rowids come in order already: sorting them again is wasted.
  if (sorted.some((rowid, i) => i > 0 && rowid < sorted[i - 1])) {
    sorted.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
  const scattered: (number | bigint)[] = [];
  // query() keeps the compiled statements for the next write to this table.
  for (let i = 0; i < sorted.length;) {
    // A stretch: as long as its rowids fill at least half of it, and at most SPAN long.
    let j = i;
    while (
      j + 1 < sorted.length && Number(sorted[j + 1]) - Number(sorted[i]) < SPAN &&
      Number(sorted[j + 1]) - Number(sorted[i]) < 2 * (j + 2 - i)
    ) j++;
    if (j - i + 1 >= 16) {
      take(conn.query(`${select} where rowid between ? and ?`, [sorted[i], sorted[j]]).rows);
    } else scattered.push(...sorted.slice(i, j + 1));
    i = j + 1;
  }
  for (let i = 0; i < scattered.length; i += CHUNK) {
    const rowids = scattered.slice(i, i + CHUNK).map(String);
    take(
      conn.query(`${select} where rowid in (select value from json_each(?))`, [
        `[${rowids.join(",")}]`,
      ]).rows,
    );
  }
  return found;
}

/**
 * True when `table` is a table of `main` that keeps rows by rowid; asked inside the preupdate hook
 * (a read on the connection while its write runs, as an SQL function may make). When the answer
 * cannot be had, false: the hook then reads the row's values, which is right for every table.
 */
function keepsRowid(conn: Connection, table: string): boolean {
  try {
    const { rows } = conn.query(
      "select wr from pragma_table_list where schema = 'main' and type = 'table' and name = ?",
      [table],
    );
    return rows.length > 0 && rows[0][0] === 0;
  } catch {
    return false;
  }
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
