/**
 * The row page's foreign-key cells, rendered as the table page renders them: single- and
 * multi-column keys link to the referenced row, and single-column keys show the other table's
 * label next to the value (`Kitchen 1`) unless `_labels=off` or `_label=` says otherwise.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import type { SqlValue } from "../../db/values.ts";
import type { CellForeignKey } from "../../render/render_cell.ts";
import { columnsToExpand, expandableColumns, lookupLabels } from "../../table/labels.ts";
import { cellForeignKeys, compoundKeys, labelColumns } from "../table/table_foreign_keys.ts";

/** Cell-context parts for the foreign keys of one row: the keys and the labels of its values. */
export interface RowForeignKeyCells {
  foreign_keys: CellForeignKey[];
  labels: Map<string, Map<unknown, unknown>>;
}

/** Foreign keys and labels for rendering `row` (values in `columns` order) of `table`. */
export async function rowForeignKeyCells(
  svc: ViewHost,
  request: Request,
  db: Database,
  table: string,
  columns: string[],
  row: SqlValue[],
): Promise<RowForeignKeyCells> {
  const single = await db.foreign_keys_for_table(table);
  const foreign_keys = cellForeignKeys(single, await compoundKeys(db, table));
  const label_columns = await labelColumns(svc, request, db, single);
  const expandable = expandableColumns(single, (t) => label_columns.get(t) ?? null)
    .filter(([, label]) => label !== null);
  const labels = new Map<string, Map<unknown, unknown>>();
  for (const column of columnsToExpand(request.args, expandable, columns, true)) {
    const fk = single.find((key) => key.column === column);
    if (!fk) continue;
    const value = row[columns.indexOf(column)];
    labels.set(
      column,
      await lookupLabels(
        (sql, params) => db.execute(sql, params as SqlValue[]),
        fk,
        label_columns.get(fk.other_table) ?? null,
        [value],
        db.dialect,
      ),
    );
  }
  return { foreign_keys, labels };
}

/** Declared type of each column of `table` (REAL `12` then prints as `12.0`, as on the table page). */
export async function columnTypes(db: Database, table: string): Promise<Record<string, string>> {
  // The schema cache hands out the same details until the schema changes: built once per list.
  const details = await db.table_column_details(table);
  const known = typesOfDetails.get(details);
  if (known) return known;
  const types: Record<string, string> = {};
  for (const detail of details) {
    const { name, type } = detail.toObject();
    types[String(name)] = String(type ?? "");
  }
  typesOfDetails.set(details, types);
  return types;
}

const typesOfDetails = new WeakMap<object, Record<string, string>>();
