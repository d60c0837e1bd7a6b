/**
 * Vitrine's own events and column types, registered through the public hooks like a plugin's:
 * `register_events` lists the event classes core sends, `register_column_types` the four
 * built-in column types, and a `write_wrapper` notices tables a write renamed or altered (a
 * writable canned query's `ALTER TABLE`, an insert with `alter`) by comparing the schema before
 * and after it, as the reference does, so `rename-table` and `alter-table` are sent wherever the
 * change came from.
 *
 * That comparison is skipped when it cannot find anything: the schema cookie (`PRAGMA
 * schema_version`, moved by every change of the schema, whoever makes it) is read before and
 * after, and the schema table after the write only when it moved. The tables before a write are
 * kept per connection with the cookie they were read under: read at the start of a write, they
 * are the committed schema, which a cookie names once and for all (the tables after a write are
 * not kept: the write may still roll back, and a later change could then reach the same cookie
 * with another schema). Reading the schema table twice for every write (most of
 * them rows, which never move the cookie) cost about 4.5% of a write's CPU (bench/write_api.ts).
 *
 * @module
 */

import type { HookArgs } from "../hookspecs.ts";
import { AlterTableEvent, CORE_EVENTS, type Event, RenameTableEvent } from "../events.ts";
import { CORE_COLUMN_TYPES } from "../column_types.ts";
import type { WriteConnection } from "../../db/row_writes.ts";
import type { EngineConnection } from "../../db/engine.ts";

export function register_events() {
  return [...CORE_EVENTS];
}

export function register_column_types() {
  return [...CORE_COLUMN_TYPES];
}

export function write_wrapper({ database, request }: HookArgs<"write_wrapper">) {
  const actor = request?.actor ?? null;
  return function* schemaChanges(
    { conn: engineConn, track_event }: {
      conn: EngineConnection;
      track_event: (event: Event) => void;
    },
  ) {
    // SQLite's schema table tells; on PostgreSQL the writes that change a schema say so
    // themselves (`WriteScope.altered`, `/-/alter`), and write SQL is not compared (docs/postgres.md).
    if (engineConn.engine !== "sqlite") {
      yield;
      return;
    }
    const conn = engineConn;
    const version = schemaVersion(conn);
    const before = tablesAt(conn, version);
    yield;
    const moved = schemaVersion(conn);
    if (moved === version) return;
    const after = readTables(conn);
    const byPage = new Map([...after.values()].map((table) => [table.rootpage, table]));
    for (const [name, old] of before) {
      const now = after.get(name);
      if (now) {
        if (now.sql !== old.sql) {
          track_event(
            new AlterTableEvent({
              actor,
              database,
              table: name,
              before_schema: old.sql,
              after_schema: now.sql,
            }),
          );
        }
        continue;
      }
      // Same b-tree under another name: renamed, not dropped and created.
      const renamed = byPage.get(old.rootpage);
      if (renamed && !before.has(renamed.name)) {
        track_event(
          new RenameTableEvent({ actor, database, old_table: name, new_table: renamed.name }),
        );
      }
    }
  };
}

interface TableEntry {
  name: string;
  rootpage: number;
  sql: string;
}

/** The schema table's tables under one value of the schema cookie. */
interface SchemaTables {
  version: number;
  tables: Map<string, TableEntry>;
}

const kept = new WeakMap<WriteConnection, SchemaTables>();

function schemaVersion(conn: WriteConnection): number {
  return Number(conn.query("pragma schema_version").rows[0][0]);
}

/** The tables of `conn` before a write, at schema cookie `version`: kept while it stays. */
function tablesAt(conn: WriteConnection, version: number): Map<string, TableEntry> {
  const known = kept.get(conn);
  if (known?.version === version) return known.tables;
  const tables = readTables(conn);
  kept.set(conn, { version, tables });
  return tables;
}

function readTables(conn: WriteConnection): Map<string, TableEntry> {
  // `query` keeps the compiled statement on the connection for the next time.
  const rows = conn.query(
    "select name, rootpage, sql from sqlite_master where type = 'table' and rootpage != 0",
  ).rows;
  return new Map(rows.map((row) => {
    const [name, rootpage, sql] = row as unknown as [string, number, string];
    return [name, { name, rootpage: Number(rootpage), sql: String(sql ?? "") }];
  }));
}
