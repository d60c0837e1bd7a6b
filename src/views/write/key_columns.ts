/**
 * What the create-table and alter-table pages offer as foreign key targets: for each table of a
 * database the actor may see (hidden tables left out), the columns a key may point at.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Actor } from "../../http/actor.ts";
import { type DatabaseEngine as Database, sqliteConnection } from "../../db/engine.ts";
import { keyColumns } from "../../db/table_writes.ts";

/** `{table: [column, ...]}`, tables in name order. */
export async function foreignKeyTargets(
  svc: ViewHost,
  actor: Actor | null,
  db: Database,
): Promise<Record<string, string[]>> {
  const keys = db.table_writes
    ? await db.table_writes.keyColumns()
    : await db.execute_fn((conn) => keyColumns(sqliteConnection(conn)));
  const hidden = new Set(await db.hidden_table_names());
  const targets: Record<string, string[]> = {};
  for (const table of Object.keys(keys).sort()) {
    if (hidden.has(table)) continue;
    const [visible] = await svc.check_visibility(actor, {
      action: "view-table",
      resource: [db.name, table],
    });
    if (visible) targets[table] = keys[table];
  }
  return targets;
}
