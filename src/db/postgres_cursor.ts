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
import { pgCell } from "./postgres_values.ts";

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
  let buffered: SqlValue[][] = [];
  let done = false;
  let stop = false;
  let failure: Error | null = null;
  let current: Driver = null;
  const data = new Signal();
  const space = new Signal();
  const cancel = () => current?.cancel();
  const names = (query: Driver) =>
    (query.statement?.columns ?? []).map((column: { name: string }) => column.name);
  const transaction = source.begin(async (tx) => {
    const query = tx.unsafe(source.text, source.values, source.options).values();
    current = query;
    for await (const chunk of query.cursor(CURSOR_BATCH)) {
      columns = names(query);
      for (const row of chunk as unknown[][]) buffered.push(row.map(pgCell));
      data.notify();
      while (!stop && buffered.length >= HIGH_WATER) await space.wait();
      if (stop) break;
    }
    columns = names(query);
  }).catch((error) => {
    if (!stop) failure = source.fail(error);
  }).finally(() => {
    done = true;
    data.notify();
  });
  return {
    next: async (request: ChunkRequest): Promise<CursorChunk> => {
      while (!done && buffered.length < request.rows) {
        const timer = source.limitMs === null
          ? null
          : setTimeout(cancel, source.limitMs + CANCEL_GRACE_MS);
        await data.wait();
        if (timer !== null) clearTimeout(timer);
      }
      if (failure) throw failure;
      const rows = buffered.slice(0, request.rows);
      buffered = buffered.slice(request.rows);
      space.notify();
      const finished = done && buffered.length === 0;
      return { columns, lines: null, rows: () => rows, real_columns: [], done: finished };
    },
    close: async () => {
      stop = true;
      if (!done) cancel();
      space.notify();
      await transaction;
    },
  };
}
