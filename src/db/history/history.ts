/**
 * The history of writes made through Vitrine, for one service: which databases record where
 * (`history` in a database's configuration: `internal`, `database` or `off`; by default the
 * database's own `_vitrine_history` table when the file has one, else the internal database),
 * the recording of one write, and the reading of what was recorded.
 *
 * A write in `database` mode is recorded in its own transaction: it commits or rolls back with
 * the history rows. In `internal` mode the rows are written to the internal database right after
 * the write committed, in one transaction of their own, and only then: a write that rolled back
 * leaves no history, and a half-written history cannot happen (a crash between the two commits
 * could lose the history of the last write, which `database` mode cannot). An internal database
 * kept in memory holds at most {@link MEMORY_BUDGET} of history: the oldest changes go first.
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import { type DatabaseEngine as Database, sqliteConnection } from "../engine.ts";
import { StatusError } from "../../util/errors.ts";
import { ChangeCapture, type ChangeRecord, HISTORY_TABLE } from "./capture.ts";
import { tableEdits } from "./protect.ts";
import {
  type ChangeContext,
  type HistoryEntry,
  type HistoryFilter,
  type HistoryMode,
  rawChanges,
  type RawEntry,
  readChanges,
  type RevertSelection,
  trimChanges,
  writeChanges,
} from "./store.ts";

/**
 * The most the history may hold in an internal database kept in memory (no `--internal FILE`):
 * beyond it the oldest changes are dropped, so that a big import cannot fill SQLite's heap, which
 * every database of the process shares (`sqlite_heap_limit_mb`).
 */
export const MEMORY_BUDGET = 32 * 1024 * 1024;

/** The recording of one write: `start` and `finish` run inside it, `committed` after it. */
export interface WriteRecording {
  /** Starts watching the write connection (inside the write, before its statements). */
  start(conn: Connection): void;
  /** Sums up what changed and, in `database` mode, records it (inside the write's transaction). */
  finish(conn: Connection): void;
  /** Stops watching a write that failed. */
  abort(): void;
  /** In `internal` mode, records what changed, once the write committed. */
  committed(): Promise<void>;
}

/** Where writes of each database are recorded, and the reading of the records. */
export class WriteHistory {
  readonly #internal: () => Database;
  readonly #configured: (database: string) => HistoryMode | null;

  /**
   * @param internal the internal database
   * @param configured the `history` a database's configuration names, or null
   */
  constructor(internal: () => Database, configured: (database: string) => HistoryMode | null) {
    this.#internal = internal;
    this.#configured = configured;
  }

  /**
   * Refuses a `history` that `db`'s engine cannot keep: `database` is a table in the SQLite file
   * itself, and a server's database (PostgreSQL) is no such file. Run at start-up (and by
   * {@link mode}, should the configuration change while serving), so the history is never kept
   * elsewhere than asked without a word.
   */
  check(db: Database): void {
    if (db.engine === "sqlite" || this.#configured(db.name) !== "database") return;
    const engine = db.engine === "postgres" ? "PostgreSQL" : db.engine;
    throw new StatusError(
      500,
      `"history": "database" of database "${db.name}" cannot be kept on ${engine}: it means a ` +
        `_vitrine_history table in the SQLite file itself. Use "internal" (the default: the ` +
        `internal database, kept across restarts with --internal FILE) or "off".`,
      { title: "History not available" },
    );
  }

  /** Where `db`'s writes are recorded. */
  async mode(db: Database): Promise<HistoryMode> {
    if (!db.is_mutable || db.name === "_internal") return "off";
    this.check(db);
    const configured = this.#configured(db.name);
    // A server's database keeps no SQLite table: its history is the internal database's.
    if (db.engine !== "sqlite") return configured === "off" ? "off" : "internal";
    if (configured) return configured;
    return await db.table_exists(HISTORY_TABLE) ? "database" : "internal";
  }

  /** A recording for one write of `db`, or null when its writes are not recorded. */
  async recording(db: Database, context: ChangeContext): Promise<WriteRecording | null> {
    const mode = await this.mode(db);
    if (mode === "off") return null;
    let capture: ChangeCapture | null = null;
    let records: ChangeRecord[] = [];
    return {
      start: (conn) => void (capture = ChangeCapture.start(conn, () => tableEdits(conn))),
      finish: (conn) => {
        records = capture?.finish(conn) ?? [];
        if (mode === "database") writeChanges(conn, records, context);
      },
      abort: () => {
        try {
          capture?.stop();
        } catch { /* the write's own error matters more */ }
      },
      committed: async () => {
        if (mode === "internal") await this.#storeInternal(records, context);
      },
    };
  }

  /**
   * A recording for one write of `db` on an engine whose row writes note the rows they change
   * themselves (PostgreSQL: `postgres_history.ts`): `record` takes them inside the write's
   * transaction, `committed` stores them in the internal database once it committed. Null when
   * `db`'s writes are not recorded.
   */
  async rowRecording(
    db: Database,
    context: ChangeContext,
  ): Promise<{ record(records: ChangeRecord[]): void; committed(): Promise<void> } | null> {
    if ((await this.mode(db)) === "off") return null;
    const noted: ChangeRecord[] = [];
    return {
      record: (records) => void noted.push(...records),
      committed: () => this.#storeInternal(noted, context),
    };
  }

  /** Writes `records` to the internal database, in a transaction of their own. */
  async #storeInternal(records: ChangeRecord[], context: ChangeContext): Promise<void> {
    if (!records.length) return;
    try {
      const internal = this.#internal();
      await internal.execute_write_fn((engineConn) => {
        const conn = sqliteConnection(engineConn);
        writeChanges(conn, records, context);
        if (internal.is_memory) trimChanges(conn, MEMORY_BUDGET);
      }, { transaction: true });
    } catch (error) {
      // The write itself is done: failing its request now would make a client send it
      // again. The lost history is told where an operator looks.
      console.error(
        `The history of a write to ${context.database} could not be recorded: ${error}`,
      );
    }
  }

  /** Recorded changes of `db`, newest first. */
  async changes(db: Database, filter: Omit<HistoryFilter, "database">): Promise<HistoryEntry[]> {
    const mode = await this.mode(db);
    if (mode === "database") return await readChanges(db, { ...filter, database: null });
    return await readChanges(this.#internal(), { ...filter, database: db.name });
  }

  /**
   * The exact records of the changes of `db` that `which` selects, oldest first (for a revert),
   * at most `limit`; none when one of the ids asked for is not `db`'s.
   */
  async rawChanges(db: Database, which: RevertSelection, limit: number): Promise<RawEntry[]> {
    if ("ids" in which && !which.ids.length) return [];
    const inFile = (await this.mode(db)) === "database";
    const source = inFile ? db : this.#internal();
    const found = await rawChanges(source, inFile ? null : db.name, which, limit);
    return "ids" in which && found.length !== which.ids.length ? [] : found;
  }
}
