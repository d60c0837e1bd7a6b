/**
 * Reading one row of a table as history keeps it: each value with its storage class, so a REAL
 * `12.0` is not taken for the INTEGER `12`.
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import type { SqlValue } from "../../sqlite/values.ts";
import { quoteSqlIdentifier } from "../../util/sql.ts";
import type { HistoryRow } from "./values.ts";

/**
 * A reader of rows of `table` by `keys` (column names, or `rowid`): `columns` of the row found,
 * or null when there is none.
 */
export function rowReader(
  conn: Connection,
  table: string,
  columns: readonly string[],
  keys: readonly string[],
): (keyValues: SqlValue[]) => HistoryRow | null {
  const select = columns.map((name) => {
    const q = quoteSqlIdentifier(name);
    return `${q}, typeof(${q}) = 'real'`;
  }).join(", ");
  const where = keys.map((key) => `${key === "rowid" ? key : quoteSqlIdentifier(key)} = ?`)
    .join(" and ");
  const sql = `select ${select || "null"} from ${quoteSqlIdentifier(table)} where ${where}`;
  return (keyValues) => {
    const values = conn.query(sql, keyValues).rows[0];
    if (!values) return null;
    return columns.map((
      name,
      i,
    ) => [name, { value: values[2 * i], real: values[2 * i + 1] === 1 }]);
  };
}
