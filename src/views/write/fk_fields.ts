/**
 * Foreign-key fields of the row forms: the label of the row a value points to (`Kitchen` beside
 * `category_id` 1), and where the form's lookup searches the referenced table by its label column
 * (static/write.js fills the field's suggestions from that table's JSON as one types). Only
 * single-column keys into tables the actor may see get either.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Actor } from "../../auth/allow.ts";
import { escapeSqlIdentifier } from "../../util/sql.ts";
import { cellForeignKeys, compoundKeys } from "../table/table_foreign_keys.ts";

/** What a form knows about one foreign-key column. */
export interface EditorForeignKey {
  /** The referenced table and column. */
  table: string;
  column: string;
  /** The referenced table's label column, when it has one. */
  label_column: string | null;
  /** That table's JSON URL, which the lookup queries (`<label>__contains=`); null without a label. */
  lookup_url: string | null;
  /** Row pages: the label of the row the current value points to ("" when none). */
  label?: string;
}

/** The foreign-key columns of `table`, by column name; labels for `row`'s values when given. */
export async function foreignKeyFields(
  svc: ViewHost,
  actor: Actor | null,
  database: string,
  table: string,
  row: Record<string, unknown> | null,
): Promise<Map<string, EditorForeignKey>> {
  const db = svc.databases.get(database)!;
  const single = await db.foreign_keys_for_table(table);
  const keys = cellForeignKeys(single, await compoundKeys(db, table))
    .filter((key) => key.columns.length === 1);
  const fields = new Map<string, EditorForeignKey>();
  for (const key of keys) {
    const [visible] = await svc.check_visibility(actor, {
      action: "view-table",
      resource: [database, key.other_table],
    });
    if (!visible || !(await db.table_exists(key.other_table))) continue;
    const labelColumn = await db.label_column_for_table(key.other_table);
    const field: EditorForeignKey = {
      table: key.other_table,
      column: key.other_columns[0],
      label_column: labelColumn,
      lookup_url: labelColumn
        ? String(svc.urls.table(database, key.other_table, { format: "json" }))
        : null,
    };
    const value = row?.[key.columns[0]];
    if (row && labelColumn && value !== null && value !== undefined) {
      const found = await db.execute(
        `select ${escapeSqlIdentifier(labelColumn)} from ${escapeSqlIdentifier(key.other_table)} ` +
          `where ${escapeSqlIdentifier(field.column)} = :value limit 1`,
        { value: value as never },
      );
      const label = found.first()?.[0];
      field.label = label === null || label === undefined ? "" : String(label);
    }
    fields.set(key.columns[0], field);
  }
  return fields;
}
