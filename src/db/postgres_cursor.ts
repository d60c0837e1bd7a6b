/**
 * An export's query read through a PostgreSQL server-side cursor (a portal the driver reads
 * {@link CURSOR_BATCH} rows at a time) inside one `READ ONLY` transaction: one snapshot, and
 * memory bounded whatever the size — at most {@link HIGH_WATER} rows wait here for the page
 * writer, and the driver reads one batch ahead while it writes.
 *
 * Each chunk asked for may take the query's time limit: a cancel request goes to the server
 * when one takes longer, and when the export is closed early (a client that went away).
 * There is no `statement_timeout` here: the server counts it over the whole portal, every
 * wait for a slow client included.
 *
 * @module
 */

import type { SqlValue } from "../sqlite/values.ts";
import type { ChunkRequest, CursorChunk, PoolCursor } from "./pool.ts";
import { pgArrayColumns, pgArraysInPlace, pgRealColumns } from "./postgres_values.ts";
import { withRealColumns } from "./read_query.ts";
import type { TextRowsOptions } from "../util/text_rows.ts";
import { valueLines } from "../util/value_lines.ts";

/** Rows the driver fetches per round trip. */
const CURSOR_BATCH = 5000;
/** Rows read ahead at most before the reader waits for the writer. */
const HIGH_WATER = 10000;
/** Time after a chunk's limit before the cancel request is sent. */
const CANCEL_GRACE_MS = 50;

/** Wakes whoever waits, once per `notify`. */
class Signal {
  #waiters: (() => void)[] = [];
  wait(): Promise<void> {
    return new Promise((resolve) => this.#waiters.push(resolve));
  }
  notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const wake of waiters) wake();
  }
}

// deno-lint-ignore no-explicit-any
type Driver = any;

/** What the export reads: a started transaction runs `read(tx)`; errors become `fail(error)`. */
export interface PgExportSource {
  /** `sql.begin("read only", fn)` of the database's pool. */
  begin(fn: (tx: Driver) => Promise<void>): Promise<unknown>;
  /** The statement and its values, already in PostgreSQL's form. */
  text: string;
  values: unknown[];
  /** Driver options for one statement (extended protocol). */
  options: Record<string, unknown>;
  /** The chunk's time limit in ms, or null. */
  limitMs: number | null;
  /** The data layer's error for a driver error. */
  fail(error: unknown): Error;
}

/** Opens the cursor at once; chunks are read as `next` asks. */
export function openPgExport(source: PgExportSource): PoolCursor {
  let columns: string[] = [];
  let real: number[] = [];
  let arrays: number[] = [];
  /** How the writer asks for lines, once it has (then batches are written as they come). */
  let format: TextRowsOptions | null = null;
  const buffered = new PieceQueue();
  let done = false;
  let stop = false;
  let failure: Error | null = null;
  let current: Driver = null;
  const data = new Signal();
  const space = new Signal();
  const cancel = () => current?.cancel();
  const describe = (query: Driver) => {
    const described = query.statement?.columns ?? [];
    columns = described.map((column: { name: string }) => column.name);
    real = pgRealColumns(described);
    arrays = pgArrayColumns(described);
  };
  /** Rows as lines, or null when they hold a cell lines cannot (a BLOB in CSV/TSV). */
  const write = (rows: SqlValue[][], text: TextRowsOptions): Uint8Array | null => {
    const options = { ...text, real: withRealColumns(text.real, real), limit: rows.length };
    return valueLines(columns, rows, options);
  };
  const transaction = source.begin(async (tx) => {
    const query = tx.unsafe(source.text, source.values, source.options).values();
    current = query;
    for await (const chunk of query.cursor(CURSOR_BATCH)) {
      describe(query);
      const rows = chunk as unknown[][] as SqlValue[][];
      if (arrays.length) { for (const row of rows) pgArraysInPlace(row, arrays); }
      // Written at once when the writer wants lines: the rows are then garbage before the next
      // batch comes, young, where rows kept waiting outlived collections and were collected as
      // old objects (the most expensive part of an export).
      const lines = format && rows.length ? write(rows, format) : null;
      buffered.push(lines ? { lines, count: rows.length } : { rows });
      data.notify();
      while (!stop && buffered.length >= HIGH_WATER) await space.wait();
      if (stop) break;
    }
    describe(query);
  }).catch((error) => {
    if (!stop) failure = source.fail(error);
  }).finally(() => {
    done = true;
    data.notify();
  });
  return {
    next: async (request: ChunkRequest): Promise<CursorChunk> => {
      format ??= request.text;
      while (!done && buffered.length < request.rows) {
        const timer = source.limitMs === null
          ? null
          : setTimeout(cancel, source.limitMs + CANCEL_GRACE_MS);
        await data.wait();
        if (timer !== null) clearTimeout(timer);
      }
      if (failure) throw failure;
      let lines = buffered.takeLines(request.rows);
      const rows = lines ? [] : buffered.takeRows(request.rows);
      space.notify();
      // Rows read before the writer asked for lines are written now.
      if (!lines && request.text && rows.length) lines = write(rows, request.text);
      return {
        columns,
        lines,
        rows: () => rows,
        real_columns: real,
        done: done && buffered.length === 0,
      };
    },
    close: async () => {
      stop = true;
      if (!done) cancel();
      space.notify();
      await transaction;
    },
  };
}

/** A batch waiting for the writer: its rows, or the lines they were written as. */
type Piece = { rows: SqlValue[][] } | { lines: Uint8Array; count: number };

/**
 * Batches waiting for the writer, in order; {@link length} counts their rows. Taking rows copies
 * only the references taken, never the rows left behind.
 */
class PieceQueue {
  #pieces: Piece[] = [];
  /** Rows of the first piece already taken (a piece of rows only). */
  #offset = 0;
  length = 0;

  push(piece: Piece): void {
    const count = "rows" in piece ? piece.rows.length : piece.count;
    if (count === 0) return;
    this.#pieces.push(piece);
    this.length += count;
  }

  /** The lines at the head, up to about `count` rows of them (null when rows come first). */
  takeLines(count: number): Uint8Array | null {
    const parts: Uint8Array[] = [];
    let rows = 0;
    while (this.#pieces.length && rows < count) {
      const piece = this.#pieces[0];
      if ("rows" in piece) break;
      this.#pieces.shift();
      parts.push(piece.lines);
      rows += piece.count;
    }
    this.length -= rows;
    if (parts.length <= 1) return parts[0] ?? null;
    const joined = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of parts) {
      joined.set(part, at);
      at += part.length;
    }
    return joined;
  }

  /** The first `count` rows (or all the rows before the next lines), removed. */
  takeRows(count: number): SqlValue[][] {
    const first = this.#pieces[0];
    if (this.#offset === 0 && first && "rows" in first && first.rows.length === count) {
      // The usual case: a whole batch of the driver, taken as it is.
      this.#pieces.shift();
      this.length -= count;
      return first.rows;
    }
    const rows: SqlValue[][] = [];
    while (rows.length < count && this.#pieces.length) {
      const piece = this.#pieces[0];
      if (!("rows" in piece)) break;
      const end = Math.min(piece.rows.length, this.#offset + count - rows.length);
      for (let i = this.#offset; i < end; i++) rows.push(piece.rows[i]);
      this.length -= end - this.#offset;
      this.#offset = end;
      if (end === piece.rows.length) {
        this.#pieces.shift();
        this.#offset = 0;
      }
    }
    return rows;
  }
}
