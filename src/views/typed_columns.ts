/**
 * The column types configuration gives a table's columns (`column_types` of its table block),
 * as instances of the registered {@link ColumnType} classes: cells render through them and
 * written values are checked by them.
 *
 * @module
 */

import type { ViewHost } from "./host.ts";
import type { ColumnType } from "../plugins/column_types.ts";
import { BadRequest } from "../http/errors.ts";

/** Column → type instance for one table; empty when configuration types none of its columns. */
export function typedColumns(svc: ViewHost, database: string, table: string) {
  const config = svc.metadata().table(database, table) as Record<string, unknown>;
  if (!config?.column_types) return new Map<string, ColumnType>();
  return svc.columnTypes.forTable(config, `table "${table}" of database "${database}"`);
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
  const types = typedColumns(svc, database, table);
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
