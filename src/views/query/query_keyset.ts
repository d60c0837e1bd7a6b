/**
 * When a query result's pages can be keyset pages (`table/query_keyset.ts`): only when its order
 * is provably total. The rule is conservative; anything it cannot prove pages by offset:
 *
 * - the outermost ORDER BY names result columns only (by name or position, ASC/DESC, NULLS
 *   FIRST/LAST), each a plain copy of a table column (SQLite's column metadata) in a table whose
 *   definition has no COLLATE (so the wrapped query compares as the query sorts);
 * - its last term's column is unique and never NULL: the rowid (or INTEGER PRIMARY KEY), a
 *   one-column primary key declared NOT NULL or of a WITHOUT ROWID table, or a NOT NULL column
 *   with a one-column unique index that is not partial;
 * - the query reads exactly one table (one SCAN or SEARCH in its plan), so a join cannot repeat
 *   that key.
 *
 * @module
 */

import { type DatabaseEngine as Database, sqliteConnection } from "../../db/engine.ts";
import type { BindParams, SqlValue } from "../../db/values.ts";
import { type OrderTerm, parseOrderBy, stableOrderBy } from "../../table/query_keyset.ts";

/** How a query's pages go by key: its ORDER BY terms and the result columns they name. */
export interface KeysetPlan {
  terms: OrderTerm[];
  /** The result column name of each term. */
  names: string[];
  /** The result column position of each term (to read the last row's values). */
  positions: number[];
}

/** The query body as `pagedQuerySql` wraps it (no trailing semicolons). */
export function queryBody(sql: string): string {
  return sql.trim().replace(/[;\s]+$/, "");
}

/** The keyset plan of `sql`, or null when its order is not provably total. */
export async function keysetPlan(db: Database, sql: string): Promise<KeysetPlan | null> {
  const terms = parseOrderBy(sql);
  // SQLite's column origins and query plans decide it; other engines page by offset.
  if (!terms || db.engine !== "sqlite") return null;
  try {
    return await db.execute_fn((engineConn) => {
      const conn = sqliteConnection(engineConn);
      let columns: string[];
      let origins: ({ schema: string; table: string; column: string } | null)[];
      {
        using statement = conn.prepare(sql);
        columns = statement.columns();
        origins = statement.columnOrigins();
      }
      const positions: number[] = [];
      for (const term of terms) {
        const position = typeof term.column === "number"
          ? term.column - 1
          : columns.findIndex((name) => name.toLowerCase() === String(term.column).toLowerCase());
        const name = columns[position];
        if (name === undefined) return null;
        // A name shared by two result columns is ambiguous once wrapped.
        if (columns.filter((other) => other.toLowerCase() === name.toLowerCase()).length > 1) {
          return null;
        }
        if (!origins[position]) return null;
        positions.push(position);
      }
      const all = (query: string, params: SqlValue[] = []) => {
        using statement = conn.prepare(query);
        statement.bind(params);
        return statement.all();
      };
      for (const position of positions) {
        const { schema, table } = origins[position]!;
        const master = schema === "temp" ? "sqlite_temp_master" : "sqlite_master";
        const [[definition] = [null]] = all(
          `select sql from "${
            schema.replaceAll('"', '""')
          }".${master} where type = 'table' and name = ?`,
          [table],
        );
        if (typeof definition !== "string" || /\bcollate\b/i.test(definition)) return null;
      }
      const last = origins[positions.at(-1)!]!;
      if (!uniqueNotNull(all, last.schema, last.table, last.column)) return null;
      const scans = all(`explain query plan ${sql}`)
        .filter((row) => /^(SCAN|SEARCH) /.test(String(row[3])));
      if (scans.length !== 1) return null;
      return { terms, names: positions.map((p) => columns[p]), positions };
    });
  } catch {
    // SQL that cannot be prepared here (the page reports its error) pages, if at all, by offset.
    return null;
  }
}

/**
 * The order the server adds to the offset pages of `sql` so they are read in one total order
 * (`stableOrderBy`), or null when the query's own ORDER BY cannot be said over its result
 * columns, or the SQL does not prepare (its pages then go as SQLite reads them). An engine other
 * than SQLite takes the result's `columns` when the caller has read them, else asks for none of
 * its rows to learn them (with the query's `params`).
 */
export async function stableOrder(
  db: Database,
  sql: string,
  { columns, params = {} }: { columns?: string[]; params?: Record<string, unknown> } = {},
): Promise<string | null> {
  if (db.dialect.name !== "sqlite") {
    try {
      const names = columns ?? (await db.execute(
        `select * from ${db.dialect.subquery(`\n${queryBody(sql)}\n`)} limit 0`,
        params as BindParams,
        { log_sql_errors: false },
      )).columns;
      return stableOrderBy(sql, names, db.dialect);
    } catch {
      return null;
    }
  }
  try {
    const columns = await db.execute_fn((conn) => {
      using statement = sqliteConnection(conn).prepare(sql);
      return statement.columns();
    });
    return stableOrderBy(sql, columns);
  } catch {
    return null;
  }
}

type All = (query: string, params?: SqlValue[]) => SqlValue[][];

/** Whether `column` of the table holds a different, non-NULL value in every row. */
function uniqueNotNull(all: All, schema: string, table: string, column: string): boolean {
  const info = all(`select name, type, "notnull", pk from pragma_table_info(?, ?)`, [
    table,
    schema,
  ]);
  const own = info.find((row) => String(row[0]).toLowerCase() === column.toLowerCase());
  const pks = info.filter((row) => Number(row[3]) > 0);
  const withoutRowid = all(`select wr from pragma_table_list where name = ? and schema = ?`, [
    table,
    schema,
  ])[0]?.[0];
  if (!own) {
    // The rowid under one of its names, where no column takes that name.
    return !withoutRowid && ["rowid", "oid", "_rowid_"].includes(column.toLowerCase());
  }
  const notNull = Number(own[2]) === 1;
  const indexes = all(`select name, "unique", partial, origin from pragma_index_list(?, ?)`, [
    table,
    schema,
  ]);
  if (pks.length === 1 && pks[0] === own) {
    // An INTEGER primary key is the rowid, unless SQLite made it an index (`INTEGER PRIMARY KEY
    // DESC`, a quirk): then it is an ordinary column that takes any number of NULLs.
    const rowidAlias = String(own[1]).toUpperCase() === "INTEGER" && !withoutRowid &&
      !indexes.some((index) => index[3] === "pk");
    if (rowidAlias || withoutRowid || notNull) return true;
  }
  if (!notNull) return false;
  return indexes.some(([name, unique, partial]) => {
    if (Number(unique) !== 1 || Number(partial) !== 0) return false;
    const parts = all(`select name from pragma_index_info(?, ?)`, [String(name), schema]);
    return parts.length === 1 && String(parts[0][0]).toLowerCase() === column.toLowerCase();
  });
}
