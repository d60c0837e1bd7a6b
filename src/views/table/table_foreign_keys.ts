/**
 * The foreign keys of a table page or row page: multi-column keys (which the introspection
 * members of `Database` do not group), the keys cells link through, and the label column of each
 * referenced table the actor may see.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import type { ForeignKey } from "../../table/filter_arguments.ts";
import type { CellForeignKey } from "../../render/render_cell.ts";

/**
 * The label column of each table the foreign keys point to (null when it has none). Labels
 * (cells, facets) are read from the other table: never from one the actor may not see.
 */
export async function labelColumns(
  svc: ViewHost,
  request: Request,
  db: Database,
  foreign_keys: ForeignKey[],
): Promise<Map<string, string | null>> {
  const label_columns = new Map<string, string | null>();
  for (const fk of foreign_keys) {
    if (label_columns.has(fk.other_table)) continue;
    const [visible] = await svc.check_visibility(request.actor, {
      action: "view-table",
      resource: [db.name, fk.other_table],
    });
    label_columns.set(
      fk.other_table,
      visible ? await db.label_column_for_table(fk.other_table) : null,
    );
  }
  return label_columns;
}

/** Foreign keys over several columns, from `pragma_foreign_key_list` grouped by id. */
export async function compoundKeys(db: Database, table: string): Promise<CellForeignKey[]> {
  // A key over n columns lists n columns referencing one table, so when the memoised key list
  // names no table twice there is none, and the page is spared this (uncached) query.
  const targets = (await db.foreign_keys_for_table(table)).map((fk) => fk.other_table);
  if (new Set(targets).size === targets.length) return [];
  // Only SQLite's pragma tells keys apart; elsewhere each column's key links on its own
  // (docs/postgres.md, "What does not work yet").
  if (db.dialect.name !== "sqlite") return [];
  const rows = await db.execute(
    `select id, "from", "table", "to" from pragma_foreign_key_list(?) order by id, seq`,
    [table],
  );
  const byId = new Map<number, CellForeignKey>();
  for (const [id, from, other, to] of rows.rows) {
    const key = byId.get(Number(id)) ??
      { columns: [], other_table: String(other), other_columns: [] };
    key.columns.push(String(from));
    key.other_columns.push(String(to));
    byId.set(Number(id), key);
  }
  return [...byId.values()].filter((key) => key.columns.length > 1);
}

/**
 * The keys cells link through: every compound key, then each single-column key that is not part
 * of one (a column of a compound key links to the row the whole key names).
 */
export function cellForeignKeys(
  single: ForeignKey[],
  compound: CellForeignKey[],
): CellForeignKey[] {
  const inCompound = (fk: ForeignKey) =>
    compound.some((key) => key.other_table === fk.other_table && key.columns.includes(fk.column));
  return [
    ...compound,
    ...single.filter((fk) => !inCompound(fk)).map((fk) => ({
      columns: [fk.column],
      other_table: fk.other_table,
      other_columns: [fk.other_column],
    })),
  ];
}
