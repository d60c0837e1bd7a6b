/**
 * Schema introspection of a PostgreSQL database from its catalogs (`pg_class`, `pg_attribute`,
 * `pg_index`, `pg_constraint`), answering in the shapes SQLite's introspection gives
 * (`introspect.ts`), so pages cannot tell the engines apart.
 *
 * Names: with one schema (the default, `public`) a table is named by its own name; with several,
 * every table is `schema.table`. Only relations the role may `SELECT` are listed; partitions
 * are not listed apart from their parent.
 *
 * @module
 */

import { makeRows, type Row } from "./results.ts";
import type { ForeignKey, TableForeignKeys } from "./introspect.ts";
import type { SqlValue } from "../sqlite/values.ts";

/** Runs one catalog query (`$n` parameters) and returns its rows. */
export type PgRunner = (sql: string, params?: unknown[]) => Promise<SqlValue[][]>;

/** One table or view as the catalogs list it. */
export interface PgRelation {
  /** Its name in Vitrine: `table`, or `schema.table` when several schemas are served. */
  name: string;
  oid: number;
  schema: string;
  relname: string;
  /** `table` (ordinary, partitioned, foreign) or `view` (views and materialized views). */
  type: "table" | "view";
}

/** Tables and views of `schemas` the role may read, in creation (oid) order. */
export async function listRelations(run: PgRunner, schemas: string[]): Promise<PgRelation[]> {
  const rows = await run(
    `select c.oid::int8, n.nspname, c.relname, c.relkind
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = any($1::text[]) and c.relkind in ('r', 'p', 'f', 'v', 'm')
      and not c.relispartition and has_table_privilege(c.oid, 'SELECT')
    order by array_position($1::text[], n.nspname::text), c.oid`,
    [schemas],
  );
  const qualified = schemas.length > 1;
  return rows.map(([oid, schema, relname, kind]) => ({
    name: qualified ? `${schema}.${relname}` : String(relname),
    oid: Number(oid),
    schema: String(schema),
    relname: String(relname),
    type: ["v", "m"].includes(String(kind)) ? "view" : "table",
  }));
}

const DETAIL_COLUMNS = ["cid", "name", "type", "notnull", "default_value", "is_pk", "hidden"];

/** Rows with `cid`, `name`, `type`, `notnull`, `default_value`, `is_pk`, `hidden`. */
export async function columnDetails(run: PgRunner, oid: number): Promise<Row[]> {
  const rows = await run(
    `select a.attnum - 1, a.attname, format_type(a.atttypid, a.atttypmod),
      case when a.attnotnull then 1 else 0 end, pg_get_expr(d.adbin, d.adrelid),
      case when exists (select 1 from pg_index i where i.indrelid = a.attrelid
        and i.indisprimary and a.attnum = any(i.indkey)) then 1 else 0 end, 0
    from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attrelid = $1 and a.attnum > 0 and not a.attisdropped
    order by a.attnum`,
    [oid],
  );
  return makeRows(DETAIL_COLUMNS, rows);
}

/** Primary key columns in key order. */
export async function primaryKeys(run: PgRunner, oid: number): Promise<string[]> {
  const rows = await run(
    `select a.attname from pg_index i
      cross join lateral unnest(i.indkey) with ordinality as k(attnum, ord)
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
    where i.indrelid = $1 and i.indisprimary order by k.ord`,
    [oid],
  );
  return rows.map((row) => String(row[0]));
}

/** Columns with a one-column unique index other than the primary key. */
export async function uniqueColumns(run: PgRunner, oid: number): Promise<Set<string>> {
  const rows = await run(
    `select a.attname from pg_index i
      join pg_attribute a on a.attrelid = i.indrelid and a.attnum = i.indkey[0]
    where i.indrelid = $1 and i.indisunique and not i.indisprimary and i.indnatts = 1`,
    [oid],
  );
  return new Set(rows.map((row) => String(row[0])));
}

/**
 * Every foreign key between the listed relations: `[from table, from column, to table, to
 * column]`, one row per column pair, in constraint and column order.
 */
async function foreignKeyPairs(
  run: PgRunner,
  relations: PgRelation[],
): Promise<[string, string, string, string][]> {
  const byOid = new Map(relations.map((r) => [r.oid, r.name]));
  const rows = await run(
    `select c.conrelid::int8, fa.attname, c.confrelid::int8, ta.attname
    from pg_constraint c
      cross join lateral unnest(c.conkey, c.confkey) with ordinality as k(f, t, ord)
      join pg_attribute fa on fa.attrelid = c.conrelid and fa.attnum = k.f
      join pg_attribute ta on ta.attrelid = c.confrelid and ta.attnum = k.t
    where c.contype = 'f' and c.conrelid = any($1::oid[])
    order by c.conrelid, c.conname, k.ord`,
    [relations.map((r) => r.oid)],
  );
  const pairs: [string, string, string, string][] = [];
  for (const [from, column, to, other] of rows) {
    const fromName = byOid.get(Number(from));
    const toName = byOid.get(Number(to));
    // A key to a table outside the served schemas (or one the role cannot read) is left out.
    if (fromName !== undefined && toName !== undefined) {
      pairs.push([fromName, String(column), toName, String(other)]);
    }
  }
  return pairs;
}

/** Outgoing foreign keys of `table`. */
export async function outgoingForeignKeys(
  run: PgRunner,
  relations: PgRelation[],
  table: string,
): Promise<ForeignKey[]> {
  const own = relations.filter((r) => r.name === table);
  if (own.length === 0) return [];
  return (await foreignKeyPairs(run, relations))
    .filter(([from]) => from === table)
    .map(([, column, other_table, other_column]) => ({ column, other_table, other_column }));
}

/** Every table's `{incoming, outgoing}` foreign keys, sorted as SQLite's are. */
export async function allForeignKeys(
  run: PgRunner,
  relations: PgRelation[],
): Promise<Record<string, TableForeignKeys>> {
  const result: Record<string, TableForeignKeys> = {};
  const tables = relations.filter((r) => r.type === "table");
  for (const table of tables) result[table.name] = { incoming: [], outgoing: [] };
  for (const [from, column, to, other] of await foreignKeyPairs(run, tables)) {
    result[to].incoming.push({ other_table: from, column: other, other_column: column });
    result[from].outgoing.push({ other_table: to, column, other_column: other });
  }
  const key = (fk: ForeignKey) => [fk.other_table, fk.column, fk.other_column];
  const byKey = (a: ForeignKey, b: ForeignKey) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
  };
  for (const keys of Object.values(result)) {
    keys.incoming.sort(byKey);
    keys.outgoing.sort(byKey);
  }
  return result;
}

const isTextType = (type: string) => /char|text|clob/i.test(type);

/** The label column: metadata's, else the same rule as SQLite's (`introspect_detect.ts`). */
export async function labelColumn(
  run: PgRunner,
  oid: number,
  config: Record<string, unknown>,
): Promise<string | null> {
  if (typeof config.label_column === "string" && config.label_column) return config.label_column;
  const columns = (await columnDetails(run, oid))
    .map((row) => ({ name: String(row[1]), type: String(row[2] ?? "") }));
  const unique = await uniqueColumns(run, oid);
  const uniqueText = columns.filter((c) => isTextType(c.type) && unique.has(c.name));
  if (uniqueText.length === 1) return uniqueText[0].name;
  const named = columns.find((c) => ["name", "title"].includes(c.name.toLowerCase()));
  if (named) return named.name;
  if (columns.length === 2) {
    const pks = await primaryKeys(run, oid);
    const keyNames = new Set(["id", "pk", ...(pks.length === 1 ? pks : [])]);
    const others = columns.filter((c) => !keyNames.has(c.name));
    if (others.length === 1) return others[0].name;
  }
  return null;
}

const ident = (name: string) => `"${name.replaceAll('"', '""')}"`;

/**
 * A `CREATE TABLE` statement rebuilt from the catalogs (PostgreSQL keeps no text of it), with
 * its indexes' definitions; or `CREATE VIEW … AS` and the view's query.
 */
export async function definition(run: PgRunner, relation: PgRelation): Promise<string> {
  const name = `${ident(relation.schema)}.${ident(relation.relname)}`;
  if (relation.type === "view") {
    const [[text]] = await run("select pg_get_viewdef($1::oid, true)", [relation.oid]);
    return `CREATE VIEW ${name} AS\n${String(text).trimEnd()}`;
  }
  const columns = await columnDetails(run, relation.oid);
  const lines = columns.map((c) =>
    `  ${ident(String(c[1]))} ${c[2]}${c[3] ? " NOT NULL" : ""}${
      c[4] !== null ? ` DEFAULT ${c[4]}` : ""
    }`
  );
  const constraints = await run(
    `select pg_get_constraintdef(oid, true) from pg_constraint
    where conrelid = $1 and contype in ('p', 'u', 'f', 'c') order by contype = 'p' desc, conname`,
    [relation.oid],
  );
  for (const [text] of constraints) lines.push(`  ${text}`);
  const statements = [`CREATE TABLE ${name} (\n${lines.join(",\n")}\n);`];
  const indexes = await run(
    `select pg_get_indexdef(i.indexrelid) from pg_index i
    where i.indrelid = $1 and not i.indisprimary
      and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)
    order by i.indexrelid`,
    [relation.oid],
  );
  for (const [text] of indexes) statements.push(`${text};`);
  return statements.join("\n");
}
