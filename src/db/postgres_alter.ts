/**
 * `/-/alter` on PostgreSQL: the same operations as on SQLite (`alter_plan.ts` checks them and
 * works out each one's change), carried out in place with `ALTER TABLE` — `ADD`, `DROP` and
 * `RENAME COLUMN`, `ALTER COLUMN … TYPE … USING`, `SET`/`DROP DEFAULT`, `SET`/`DROP NOT NULL`,
 * primary key and foreign key constraints, `RENAME TO` — all in the caller's one transaction.
 * PostgreSQL's DDL is transactional, so a failure anywhere leaves the table exactly as it was,
 * and nothing is rebuilt: indexes, other constraints, grants, triggers and dependent views stay.
 * PostgreSQL has no way to move a column, so `reorder_columns` is refused before anything runs.
 *
 * @module
 */

import {
  type AlterOperation,
  type AlterStep,
  type ColumnShape,
  type ForeignKeyShape,
  planAlter,
  type TableShape,
} from "./alter_plan.ts";
import type { AlterResult } from "./table_rebuild.ts";
import type { SqlDialect } from "./dialect.ts";
import type { PgWriteRun } from "./postgres_writes.ts";
import { definition, type PgRelation } from "./postgres_introspect.ts";
import { catalogOf, relationIn, tableKeys, textList } from "./postgres_columns.ts";
import { pgColumnDefinition, pgDefault, pgType } from "./postgres_ddl.ts";
import { RowWriteError } from "./write_values.ts";

/** The table's shape, and its primary key constraint's name (null without one). */
type PgShape = TableShape & { pkName: string | null };

/** Alters `table` as `operations` say with `run`, inside the caller's transaction. */
export async function pgAlterTable(
  run: PgWriteRun,
  dialect: SqlDialect,
  schemas: readonly string[],
  table: string,
  operations: readonly AlterOperation[],
): Promise<AlterResult> {
  const reorder = operations.findIndex((operation) => operation.op === "reorder_columns");
  if (reorder >= 0) {
    throw new RowWriteError(
      `Operation ${reorder + 1} (reorder_columns): PostgreSQL cannot change the order of a ` +
        "table's columns; its columns keep their places (add, drop and change them instead)",
    );
  }
  const relation = await relationIn(run, dialect, table);
  if (!relation) throw new RowWriteError(`Table not found: ${table}`);
  const catalog = catalogOf(run);
  const before = await definition(catalog, relation);
  const shape = await readPgShape(run, relation, schemas.length > 1);
  const tables = await tableKeys(catalog, schemas);
  const plan = planAlter(shape, operations, (name) => tables.get(name)?.pks ?? null);

  const statements: string[] = [];
  const exec = async (sql: string) => {
    statements.push(sql);
    await run(sql, []);
  };
  const alter = `ALTER TABLE ${dialect.tableName(table)}`;
  const q = (name: string) => dialect.quoteIdentifier(name);
  const changed: ChangedValues[] = [];
  const probe = async (column: string, from: string, to: string) => {
    const found = await changedByRetype(run, dialect.tableName(table), q(column), from, to);
    if (found) changed.push({ column, ...found });
  };
  // The primary key constraint: its name, whether the table has it now, and its columns.
  const pkName = shape.pkName ?? `${relation.relname}_pkey`;
  let pkLive = shape.pkName !== null;
  let pks = shape.pks.map((pk) => pk.toLowerCase());
  // Foreign keys change as a whole: the ones going are dropped first (so a column losing its key
  // may change type), the new ones added last, once their columns are as the request leaves them.
  const finalKeys = plan.rebuild?.foreignKeys ?? shape.foreignKeys;
  const kept = new Set(finalKeys.map((fk) => fk.name));
  for (const fk of shape.foreignKeys) {
    if (!kept.has(fk.name)) await exec(`${alter} DROP CONSTRAINT ${q(fk.name!)}`);
  }
  for (const step of plan.steps) {
    switch (step.op) {
      case "add_column":
        await exec(`${alter} ADD COLUMN ${pgColumnDefinition(dialect, step.column)}`);
        break;
      case "rename_column":
        pks = pks.map((pk) => pk === step.from.toLowerCase() ? step.to.toLowerCase() : pk);
        await exec(`${alter} RENAME COLUMN ${q(step.from)} TO ${q(step.to)}`);
        break;
      case "alter_column":
        await alterColumn(step, alter, q, exec, probe);
        break;
      case "drop_column":
        // PostgreSQL drops the constraints that name the column with it (the key is put back
        // on its other columns below).
        if (pks.includes(step.name.toLowerCase())) pkLive = false;
        await exec(`${alter} DROP COLUMN ${q(step.name)}`);
        break;
      case "set_primary_key": {
        if (pkLive) await exec(`${alter} DROP CONSTRAINT ${q(pkName)}`);
        pkLive = true;
        pks = step.after.map((pk) => pk.toLowerCase());
        await exec(
          `${alter} ADD CONSTRAINT ${q(pkName)} PRIMARY KEY (${step.after.map(q).join(", ")})`,
        );
        break;
      }
    }
  }
  // Dropping a column of a compound key drops the whole key in PostgreSQL; SQLite's rebuild keeps
  // the key's other columns, and so does this.
  const keys = plan.rebuild?.pks ?? [];
  if (keys.length && !pkLive) {
    await exec(
      `${alter} ADD CONSTRAINT ${q(pkName)} PRIMARY KEY (${keys.map(q).join(", ")})`,
    );
  }
  for (const fk of finalKeys) {
    if (fk.name !== undefined) continue;
    await exec(
      `${alter} ADD CONSTRAINT ${q(`${relation.relname}_${fk.column}_fkey`)} FOREIGN KEY (${
        q(fk.column)
      }) REFERENCES ${dialect.tableName(fk.table)} (${q(fk.to)})`,
    );
  }
  let name = table;
  if (plan.renameTo !== null && plan.renameTo !== table) {
    const prefix = `${relation.schema}.`;
    const own = schemas.length > 1 && plan.renameTo.startsWith(prefix)
      ? plan.renameTo.slice(prefix.length)
      : plan.renameTo;
    await exec(`${alter} RENAME TO ${q(own)}`);
    name = schemas.length > 1 ? `${relation.schema}.${own}` : own;
  }
  const renamed = await relationIn(run, dialect, name);
  return {
    table: name,
    before_schema: before,
    schema: renamed ? await definition(catalog, renamed) : "",
    statements,
    changed_values: changed,
  };
}

/**
 * One column's changes: its default dropped first (an old default may not fit the new type),
 * then the type, the new default and NOT NULL. Values that do not convert are a 400 naming the
 * column (PostgreSQL's message names the value).
 */
async function alterColumn(
  step: Extract<AlterStep, { op: "alter_column" }>,
  alter: string,
  q: (name: string) => string,
  exec: (sql: string) => Promise<void>,
  probe: (column: string, from: string, to: string) => Promise<void>,
): Promise<void> {
  const { before, after, asked } = step;
  const column = `${alter} ALTER COLUMN ${q(after.name)}`;
  // The catalog's type (lower case), or one an earlier operation of the request gave (SQLite's).
  const from = /[a-z]/.test(before.type) ? before.type : pgType(before.type);
  const retype = asked.type && pgType(after.type).toLowerCase() !== from.toLowerCase();
  const type = retype ? pgType(after.type) : from;
  // A default kept through a retype is dropped and put back converted: PostgreSQL would refuse
  // the type change for a default it cannot convert itself ('x'::text to bigint).
  const keep = retype && !asked.default && before.defaultSql !== null;
  if ((asked.default || keep) && before.defaultSql !== null) await exec(`${column} DROP DEFAULT`);
  if (retype) {
    await probe(after.name, from, type);
    try {
      await exec(`${column} TYPE ${type} USING ${converted(q(after.name), from, type)}`);
    } catch (error) {
      const code = String((error as { code?: unknown }).code ?? "");
      if (!/^(22|42846|42804)/.test(code)) throw error;
      throw new RowWriteError(
        `Column ${after.name} cannot become ${type}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }
  if (keep) await exec(`${column} SET DEFAULT (${before.defaultSql})::${type}`);
  if (asked.default && after.defaultSql !== null) {
    await exec(`${column} SET DEFAULT ${pgDefault(after.defaultSql, type)}`);
  }
  if (asked.notNull && after.notNull !== before.notNull) {
    await exec(`${column} ${after.notNull ? "SET" : "DROP"} NOT NULL`);
  }
}

/** What a retype would change in one column, as `AlterResult.changed_values` says it. */
type ChangedValues = NonNullable<AlterResult["changed_values"]>[number];

/**
 * How many of `column`'s values becoming `to` read differently afterwards, and the first of them
 * before and after (by physical order), as SQLite's rebuild reports them (`table_rebuild.ts`):
 * text `"04360"` becoming `4360`, `"1.50"` becoming `1.5`, a real rounded to an integer. Numbers
 * that stay equal are no change (`5` as `5.00`). Null when none changes. Asked under a savepoint:
 * values that do not convert at all fail here first, and are left to the `ALTER` to report.
 */
async function changedByRetype(
  run: PgWriteRun,
  table: string,
  column: string,
  from: string,
  to: string,
): Promise<Omit<ChangedValues, "column"> | null> {
  const after = converted(column, from, to);
  const numbers = NUMERIC.test(from) && NUMERIC.test(to);
  // SQLite writes a whole real as `2.0` where PostgreSQL writes `2`: text `2.0` is no change.
  const wholeReal = FLOAT.test(to)
    ? ` and ${column}::text is distinct from (${after})::text || '.0'`
    : "";
  const differs = `${column} is not null and ${column}::text is distinct from (${after})::text` +
    wholeReal + (numbers ? ` and ${column}::numeric is distinct from (${after})::numeric` : "");
  await run("SAVEPOINT vitrine_retype_probe", []);
  try {
    const [row] = (await run(
      `select count(*) over (), to_jsonb(${column}), to_jsonb(${after}) from ${table}
        where ${differs} order by ctid limit 1`,
      [],
    )).values;
    await run("RELEASE SAVEPOINT vitrine_retype_probe", []);
    // The values come as jsonb's text, which is the JSON they are.
    const json = (value: unknown) => typeof value === "string" ? JSON.parse(value) : value;
    return row ? { rows: Number(row[0]), before: json(row[1]), after: json(row[2]) } : null;
  } catch {
    await run("ROLLBACK TO SAVEPOINT vitrine_retype_probe", []);
    await run("RELEASE SAVEPOINT vitrine_retype_probe", []);
    return null;
  }
}

/** PostgreSQL's floating-point types. */
const FLOAT = /^(real|double precision)\b/i;
/** PostgreSQL's number types, as `format_type` and `pgType` write them. */
const NUMERIC = /^(smallint|integer|bigint|numeric|decimal|real|double precision)\b/i;

/** How a column's values become `to`: as SQLite's CAST would have them where a cast differs. */
function converted(column: string, from: string, to: string): string {
  if (to === "bytea" && from !== "bytea") return `convert_to(${column}::text, 'UTF8')`;
  if (from === "bytea" && /^(text|varchar|character)/.test(to)) {
    return `convert_from(${column}, 'UTF8')`;
  }
  if (from === "boolean" && /int|numeric|double|real/.test(to)) return `${column}::int::${to}`;
  return `${column}::${to}`;
}

/**
 * The table's shape from the catalogs: columns with PostgreSQL's types and default expressions,
 * the primary key (and its constraint's name) and the one-column foreign keys (with theirs).
 * Foreign keys of several columns, checks and the rest are not in the shape and stay as they are.
 */
async function readPgShape(
  run: PgWriteRun,
  relation: PgRelation,
  qualified: boolean,
): Promise<PgShape> {
  const columns = (await run(
    `select a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull,
      pg_get_expr(d.adbin, d.adrelid)
    from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attrelid = $1 and a.attnum > 0 and not a.attisdropped order by a.attnum`,
    [relation.oid],
  )).values.map(([name, type, notNull, defaultSql]): ColumnShape => ({
    name: String(name),
    type: String(type),
    notNull: Boolean(notNull),
    defaultSql: defaultSql === null ? null : String(defaultSql),
    existing: true,
  }));
  const [pk] = (await run(
    `select c.conname, array(select a.attname::text
        from unnest(c.conkey) with ordinality as k(attnum, ord)
        join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.attnum order by k.ord)
    from pg_constraint c where c.conrelid = $1 and c.contype = 'p'`,
    [relation.oid],
  )).values;
  const foreignKeys = (await run(
    `select c.conname, fa.attname, tn.nspname, tc.relname, ta.attname
    from pg_constraint c
      join pg_attribute fa on fa.attrelid = c.conrelid and fa.attnum = c.conkey[1]
      join pg_attribute ta on ta.attrelid = c.confrelid and ta.attnum = c.confkey[1]
      join pg_class tc on tc.oid = c.confrelid join pg_namespace tn on tn.oid = tc.relnamespace
    where c.conrelid = $1 and c.contype = 'f' and cardinality(c.conkey) = 1
    order by c.conname`,
    [relation.oid],
  )).values.map(([name, column, schema, table, to]): ForeignKeyShape => ({
    name: String(name),
    column: String(column),
    table: qualified ? `${schema}.${table}` : String(table),
    to: String(to),
    onUpdate: "NO ACTION",
    onDelete: "NO ACTION",
  }));
  return {
    name: relation.name,
    columns,
    pks: pk ? textList(pk[1]) : [],
    pkName: pk ? String(pk[0]) : null,
    foreignKeys,
    uniques: [],
  };
}
