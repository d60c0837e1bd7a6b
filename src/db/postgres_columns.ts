/**
 * Catalog reads inside a PostgreSQL write transaction, for the writes that change a table's
 * shape: they see what the transaction did so far (a table just created, a column just added),
 * which the pool's read-only catalog queries (`postgres_introspection.ts`) would not. And
 * `"alter": true`'s added columns, typed from the rows as SQLite's are (`row_writes.ts`).
 *
 * @module
 */

import type { SqlDialect } from "./dialect.ts";
import { definition, type PgRelation, type PgRunner } from "./postgres_introspect.ts";
import type { PgWriteRun } from "./postgres_writes.ts";
import { pgType } from "./postgres_ddl.ts";
import { columnsOf, columnValues, inferColumnType, type WriteRow } from "./write_values.ts";

/** The catalog runner of `postgres_introspect.ts` over a write transaction's `run`. */
export function catalogOf(run: PgWriteRun): PgRunner {
  return async (sql, params = []) => (await run(sql, params)).values;
}

/** `table` (Vitrine's name) as the catalogs know it in this transaction, or null. */
export async function relationIn(
  run: PgWriteRun,
  dialect: SqlDialect,
  table: string,
): Promise<PgRelation | null> {
  const [row] = (await run(
    `select c.oid::int8, n.nspname, c.relname from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
    where c.oid = to_regclass($1) and c.relkind in ('r', 'p')`,
    [dialect.tableName(table)],
  )).values;
  if (!row) return null;
  return {
    name: table,
    oid: Number(row[0]),
    schema: String(row[1]),
    relname: String(row[2]),
    type: "table",
  };
}

/** Told of a table whose columns were added: its definition before and after (the event's). */
export type AlteredTable = (table: string, before_schema: string, after_schema: string) => void;

/**
 * Adds the columns `rows` name that `table` lacks (names compared without case, as the write API
 * checks them), each typed from its values; the names added. When some were added, `altered`
 * hears of it with the table's definition before and after (read only then: two catalog reads
 * for a write that changes the schema, none for one that does not).
 */
export async function addPgColumns(
  run: PgWriteRun,
  dialect: SqlDialect,
  table: string,
  rows: readonly WriteRow[],
  altered?: AlteredTable,
): Promise<string[]> {
  const existing = new Set(
    (await run(
      `select attname from pg_attribute
      where attrelid = to_regclass($1) and attnum > 0 and not attisdropped`,
      [dialect.tableName(table)],
    )).values.map(([name]) => String(name).toLowerCase()),
  );
  const added = columnsOf(rows).filter((column) => !existing.has(column.toLowerCase()));
  if (!added.length) return added;
  const relation = altered ? await relationIn(run, dialect, table) : null;
  const before = relation ? await definition(catalogOf(run), relation) : "";
  for (const column of added) {
    const type = pgType(inferColumnType(columnValues(rows, column)));
    await run(
      `ALTER TABLE ${dialect.tableName(table)} ADD COLUMN ${
        dialect.quoteIdentifier(column)
      } ${type}`,
      [],
    );
  }
  if (relation) altered!(table, before, await definition(catalogOf(run), relation));
  return added;
}

/**
 * For each table of `schemas` (named as Vitrine names them), its columns, its primary key and
 * the columns a new foreign key may point at: a single-column primary key or unique constraint
 * or index (not partial, not on an expression), as PostgreSQL requires.
 */
export async function tableKeys(
  run: PgRunner,
  schemas: readonly string[],
): Promise<Map<string, { columns: string[]; pks: string[]; keys: string[] }>> {
  const rows = await run(
    `select n.nspname, c.relname,
      array(select a.attname::text from pg_attribute a
        where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped order by a.attnum),
      array(select a.attname::text from pg_index i
          cross join lateral unnest(i.indkey) with ordinality as k(attnum, ord)
          join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
        where i.indrelid = c.oid and i.indisprimary order by k.ord),
      array(select a.attname::text from pg_index i
          join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
        where i.indrelid = c.oid and i.indisunique and i.indnatts = 1
          and i.indpred is null and i.indexprs is null order by i.indisprimary desc, a.attnum)
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any($1::text[]) and c.relkind in ('r', 'p') and not c.relispartition
    order by c.relname`,
    [schemas],
  );
  const qualified = schemas.length > 1;
  const tables = new Map<string, { columns: string[]; pks: string[]; keys: string[] }>();
  for (const [schema, name, columns, pks, keys] of rows) {
    tables.set(qualified ? `${schema}.${name}` : String(name), {
      columns: textList(columns),
      pks: textList(pks),
      keys: [...new Set(textList(keys))],
    });
  }
  return tables;
}

/** A text array as the driver reads it: a list, or its JSON text (`pgCell`'s arrays). */
export function textList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(String);
  if (typeof value === "string" && value.startsWith("[")) return JSON.parse(value);
  return [];
}
