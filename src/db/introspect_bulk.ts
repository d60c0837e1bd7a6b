/**
 * Introspection of every table at once: one query for all tables' columns and one for all their
 * foreign keys, joined with `sqlite_master`, instead of a few queries per table. A database page
 * of a file with 100 tables asked about 400 introspection queries one after another (260–410 ms
 * for its first view on a loaded machine, bench/big_files.ts); the answers are the same.
 *
 * Only tables of the main schema are read this way; a table that cannot be read (a virtual table
 * whose module is not loaded) fails the whole query, and the caller then asks table by table.
 *
 * @module
 */

import type { SqlValue } from "./values.ts";
import { type ForeignKey, primaryKeys, type SqlRunner } from "./introspect.ts";
import { makeRows, type Row } from "./results.ts";

/** What `columnDetails` and `primaryKeys` say of one table. */
export interface TableShape {
  /** Rows with `cid`, `name`, `type`, `notnull`, `default_value`, `is_pk`, `hidden`. */
  details: Row[];
  /** Declared primary key columns in key order. */
  primary_keys: string[];
}

/** Column names of {@link TableShape.details}, as `columnDetails` returns them. */
const DETAIL_COLUMNS = ["cid", "name", "type", "notnull", "default_value", "is_pk", "hidden"];

/** Every table's columns and primary key, by table name. */
export async function allTableShapes(run: SqlRunner): Promise<Map<string, TableShape>> {
  const rows = await run(
    `select m.name, p.cid, p.name, p.type, p."notnull", p.dflt_value,
      case when p.pk > 0 then 1 else 0 end, p.hidden, p.pk
    from sqlite_master as m join pragma_table_xinfo(m.name) as p
    where m.type = 'table' order by m.name, p.cid`,
  );
  const shapes = new Map<string, TableShape>();
  const keys = new Map<string, [number, string][]>();
  for (const row of rows as SqlValue[][]) {
    const table = String(row[0]);
    let shape = shapes.get(table);
    if (!shape) shapes.set(table, shape = { details: [], primary_keys: [] });
    shape.details.push(row.slice(1, 8) as Row);
    const position = Number(row[8]);
    if (position > 0) {
      if (!keys.has(table)) keys.set(table, []);
      keys.get(table)!.push([position, String(row[2])]);
    }
  }
  for (const [table, shape] of shapes) {
    makeRows(DETAIL_COLUMNS, shape.details as unknown as SqlValue[][]);
    shape.primary_keys = (keys.get(table) ?? []).sort((a, b) => a[0] - b[0]).map(([, n]) => n);
  }
  return shapes;
}

/**
 * Every table's outgoing foreign keys, by table name, as `outgoingForeignKeys` gives them: a
 * reference without columns points at the other table's primary key (`pks` answers it).
 */
export async function allOutgoingForeignKeys(
  run: SqlRunner,
  pks: (table: string) => Promise<string[]> = (table) => primaryKeys(run, table),
): Promise<Map<string, ForeignKey[]>> {
  const rows = await run(
    `select m.name, f."from", f."table", f."to", f.seq
    from sqlite_master as m join pragma_foreign_key_list(m.name) as f
    where m.type = 'table' order by m.name, f.id, f.seq`,
  );
  const keys = new Map<string, ForeignKey[]>();
  for (const [table, from, otherTable, to, seq] of rows as SqlValue[][]) {
    const otherColumn = to ?? (await pks(String(otherTable)))[Number(seq)] ?? "rowid";
    const name = String(table);
    if (!keys.has(name)) keys.set(name, []);
    keys.get(name)!.push({
      column: String(from),
      other_table: String(otherTable),
      other_column: String(otherColumn),
    });
  }
  return keys;
}
