/**
 * Where each column of a query's result comes from: SQLite's column metadata
 * (`sqlite3_column_table_name` / `sqlite3_column_origin_name`), read by preparing the statement
 * without running it. A column computed from an expression has no origin; neither has any column
 * when the system library was built without column metadata (then every origin is null and query
 * results simply have no links).
 *
 * @module
 */

import { type DatabaseEngine, sqliteConnection } from "./engine.ts";

/** The table column a result column is a plain copy of. */
export interface ColumnOrigin {
  /** The attached database's schema name (`main` for the database itself). */
  schema: string;
  table: string;
  column: string;
}

/** The origin of each result column of `sql` (null where there is none or it cannot be known). */
export async function columnOrigins(
  db: DatabaseEngine,
  sql: string,
): Promise<(ColumnOrigin | null)[]> {
  // Only SQLite tells where a prepared statement's columns come from.
  if (db.engine !== "sqlite") return [];
  try {
    return await db.execute_fn((conn) => {
      using statement = sqliteConnection(conn).prepare(sql);
      return statement.columnOrigins();
    });
  } catch {
    // SQL the statement cannot be prepared for here: the page has shown its error already.
    return [];
  }
}
