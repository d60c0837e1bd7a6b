/**
 * A table's column types: what configuration gives its columns (`column_types` of its table
 * block), overridden and extended by what actors set with `/-/set-column-type` (kept in the
 * internal database), as instances of the registered {@link ColumnType} classes: cells render
 * through them and written values are checked by them.
 *
 * @module
 */

import type { ViewHost } from "./host.ts";
import type { ColumnType } from "../plugins/column_types.ts";
import { BadRequest } from "../http/errors.ts";

/** One column's type as the JSON API reports it (`_extra=column_types`). */
export interface ColumnTypeAssignment {
  /** The type's name. */
  type: string;
  /** The options it was given, or null. */
  config: Record<string, unknown> | null;
}

/**
 * Column → assignment for one table: configuration's, then the stored ones over them (a stored
 * null removes the column). Stored names no registered type has (a plugin since removed) are
 * left out; configuration's are an error when the types are built ({@link typedColumns}).
 */
export async function columnTypeAssignments(
  svc: ViewHost,
  database: string,
  table: string,
): Promise<Map<string, ColumnTypeAssignment>> {
  const assignments = new Map<string, ColumnTypeAssignment>();
  const config = svc.metadata().table(database, table) as Record<string, unknown> | null;
  const configured = config?.column_types;
  if (configured && typeof configured === "object") {
    for (const [column, spec] of Object.entries(configured as Record<string, unknown>)) {
      const type = typeof spec === "string" ? spec : String((spec as { type?: unknown })?.type);
      const options = typeof spec === "object" && spec !== null
        ? (spec as { config?: Record<string, unknown> }).config ?? null
        : null;
      assignments.set(column, { type, config: options });
    }
  }
  for (const [column, stored] of await svc.column_type_store.forTable(database, table)) {
    if (stored === null) assignments.delete(column);
    else if (svc.columnTypes.find(stored.type)) assignments.set(column, stored);
  }
  return assignments;
}

/** Column → type instance for one table; empty when none of its columns has a type. */
export async function typedColumns(
  svc: ViewHost,
  database: string,
  table: string,
): Promise<Map<string, ColumnType>> {
  const assignments = await columnTypeAssignments(svc, database, table);
  if (!assignments.size) return new Map<string, ColumnType>();
  const column_types = Object.fromEntries(
    [...assignments].map(([column, { type, config }]) => [column, { type, config: config ?? {} }]),
  );
  return svc.columnTypes.forTable(
    { column_types },
    `table "${table}" of database "${database}"`,
  );
}

/** `_extra=column_types`: `{column: {"type": name, "config": options or null}}`. */
export async function columnTypesExtra(
  svc: ViewHost,
  database: string,
  table: string,
): Promise<Record<string, ColumnTypeAssignment>> {
  return Object.fromEntries(await columnTypeAssignments(svc, database, table));
}

/**
 * Checks written rows against the table's column types and applies their `transform_value`;
 * every problem is listed in one 400 (`Row 0 column "home": Must be a URL ...`).
 */
export async function checkTypedValues(
  svc: ViewHost,
  database: string,
  table: string,
  rows: Record<string, unknown>[],
): Promise<void> {
  await checkTypedRows(await typedColumns(svc, database, table), database, table, rows);
}

/** {@link checkTypedValues} with the column types given (a table being created has none stored). */
export async function checkTypedRows(
  types: Map<string, ColumnType>,
  database: string,
  table: string,
  rows: Record<string, unknown>[],
): Promise<void> {
  if (!types.size) return;
  const problems: string[] = [];
  for (const [index, row] of rows.entries()) {
    for (const [column, type] of types) {
      if (!(column in row)) continue;
      const args = { value: row[column], column, table, database };
      const problem = await type.validate(args);
      if (problem) problems.push(`Row ${index} column "${column}": ${problem}`);
      else row[column] = await type.transform_value(args);
    }
  }
  if (problems.length) throw new BadRequest(problems.join("; "), { extra: { errors: problems } });
}
