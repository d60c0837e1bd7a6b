/**
 * A row's related rows (`foreign_key_tables`): for every foreign key pointing at this table, how
 * many rows of the other table reference this row, with a link to them filtered. Only rows with
 * a single-column key have them; counts that run past the time limit give an empty list.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Actor } from "../../http/actor.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { QueryInterrupted } from "../../db/errors.ts";
import { urlencode } from "../../table/url_args.ts";

/** One table referencing the row. */
export interface ForeignKeyTable {
  other_table: string;
  column: string;
  other_column: string;
  count: number;
  link: string;
}

/** Incoming references of the row with key `pkValues`, with counts and filtered links. */
export async function foreignKeyTables(
  svc: ViewHost,
  db: Database,
  table: string,
  pkValues: string[],
  actor: Actor | null,
): Promise<ForeignKeyTable[]> {
  if (pkValues.length !== 1) return [];
  const incoming = [];
  // Counting references reveals rows of the other table: list only tables the actor may see.
  for (const fk of (await db.get_all_foreign_keys())[table]?.incoming ?? []) {
    const [visible] = await svc.check_visibility(actor, {
      action: "view-table",
      resource: [db.name, fk.other_table],
    });
    if (visible) incoming.push(fk);
  }
  if (incoming.length === 0) return [];
  const counts = incoming.map((fk) =>
    `(select count(*) from ${db.dialect.tableName(fk.other_table)} where ${
      db.dialect.escapeIdentifier(fk.other_column)
    } = :id)`
  );
  let values: unknown[];
  try {
    const results = await db.execute(`select ${counts.join(", ")}`, { id: pkValues[0] });
    values = [...(results.first() ?? [])];
  } catch (error) {
    if (error instanceof QueryInterrupted) return [];
    throw error;
  }
  return incoming.map((fk, i) => {
    // A leading underscore would make the argument look like a control argument.
    const key = fk.other_column.startsWith("_") ? `${fk.other_column}__exact` : fk.other_column;
    const link = `${svc.urls.table(db.name, fk.other_table)}?${urlencode([[key, pkValues[0]]])}`;
    return { ...fk, count: Number(values[i] ?? 0), link };
  });
}
