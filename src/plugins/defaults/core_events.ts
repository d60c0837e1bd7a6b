/**
 * Vitrine's own events and column types, registered through the public hooks like a plugin's:
 * `register_events` lists the event classes core sends, `register_column_types` the four
 * built-in column types, and a `write_wrapper` notices tables a write renamed or altered (a
 * writable canned query's `ALTER TABLE`, an insert with `alter`) by comparing the schema before
 * and after it, as the reference does, so `rename-table` and `alter-table` are sent wherever the
 * change came from.
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
    const before = tables(conn);
    yield;
    const after = tables(conn);
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

function tables(conn: WriteConnection): Map<string, TableEntry> {
  const rows = conn.execute(
    "select name, rootpage, sql from sqlite_master where type = 'table' and rootpage != 0",
  ).fetchall();
  return new Map(rows.map((row) => {
    const [name, rootpage, sql] = row as unknown as [string, number, string];
    return [name, { name, rootpage: Number(rootpage), sql: String(sql ?? "") }];
  }));
}
