/**
 * What `POST /<db>/<table>/-/alter` changes, worked out without touching the database: the
 * table's shape (columns, primary key, foreign keys, unique constraints) is read once, each
 * operation of the request (the reference's `{"op": ..., "args": {...}}` list) is applied to it
 * in order, and the result is a plan: column renames done with `ALTER TABLE ... RENAME COLUMN`
 * (which also rewrites the indexes, triggers and views that name them), plain column additions
 * with `ADD COLUMN`, and, for everything `ALTER TABLE` cannot do, the `CREATE TABLE` of the
 * rebuilt table and which old column fills each new one. `table_rebuild.ts` carries it out.
 *
 * @module
 */

import { quoteName, RowWriteError } from "./write_values.ts";

/** One column as the plan sees it. */
export interface ColumnShape {
  name: string;
  /** Declared type, as written (`""` when none). */
  type: string;
  notNull: boolean;
  /** The default as SQL text (`'x'`, `0`, `CURRENT_TIMESTAMP`), or null. */
  defaultSql: string | null;
  /** True for a column the table already has (its data is copied); false for a new one. */
  existing: boolean;
}

/** A foreign key: `column` references `table(to)`, with its ON UPDATE / ON DELETE actions. */
export interface ForeignKeyShape {
  /** The constraint's name where the engine keeps one (PostgreSQL); absent for SQLite. */
  name?: string;
  column: string;
  table: string;
  to: string;
  onUpdate: string;
  onDelete: string;
}

/** A table as the plan sees it. */
export interface TableShape {
  name: string;
  columns: ColumnShape[];
  pks: string[];
  foreignKeys: ForeignKeyShape[];
  /** Column lists of UNIQUE constraints (kept through a rebuild). */
  uniques: string[][];
}

/** One operation of the request. */
export interface AlterOperation {
  /** `add_column`, `rename_column`, `alter_column`… */
  op: string;
  /** The operation's arguments (`name`, `to`, `type`…). */
  args: Record<string, unknown>;
}

/** The plan: statements before and after the rebuild, and the rebuild itself if one is needed. */
export interface AlterPlan {
  /** `ALTER TABLE ... RENAME COLUMN` statements, run first. */
  renames: string[];
  /** `ALTER TABLE ... ADD COLUMN` statements (only when there is no rebuild). */
  additions: string[];
  /** The rebuilt table's shape, or null when `ALTER TABLE` did everything. */
  rebuild: TableShape | null;
  /** The table's new name, or null. */
  renameTo: string | null;
  /**
   * Each operation as a change of the shape, in order: what an engine that alters tables in place
   * (PostgreSQL, `postgres_alter.ts`) turns into its own statements.
   */
  steps: AlterStep[];
}

/**
 * One operation applied: the column or the key before and after it; `alter_column` says which of
 * its parts were asked for. Foreign keys are not steps: they are compared as a whole, the
 * shape's before and the rebuilt shape's after (a kept one keeps its `name`).
 */
export type AlterStep =
  | { op: "add_column"; column: ColumnShape }
  | { op: "rename_column"; from: string; to: string }
  | { op: "rename_table"; to: string }
  | {
    op: "alter_column";
    before: ColumnShape;
    after: ColumnShape;
    asked: { type: boolean; notNull: boolean; default: boolean };
  }
  | { op: "drop_column"; name: string }
  | { op: "set_primary_key"; before: string[]; after: string[] }
  | { op: "reorder_columns"; columns: string[] };

/** Looks up the single primary key column of a referenced table (for foreign keys without `fk_column`). */
export type PrimaryKeyOf = (table: string) => string[] | null;

const TYPES = new Set(["TEXT", "INTEGER", "FLOAT", "REAL", "NUMERIC", "BLOB"]);

/** `default_expr`'s names and the SQLite SQL each stands for (`postgres_ddl.ts` has PostgreSQL's). */
export const DEFAULT_EXPRESSIONS: Record<string, string> = {
  current_timestamp: "CURRENT_TIMESTAMP",
  current_date: "CURRENT_DATE",
  current_time: "CURRENT_TIME",
  current_unixtime: "(CAST(strftime('%s', 'now') AS INTEGER))",
  current_unixtime_ms: "(CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))",
};

/** Applies `operations` to `shape` in order; 400s name the operation and what is wrong. */
export function planAlter(
  shape: TableShape,
  operations: readonly AlterOperation[],
  primaryKeyOf: PrimaryKeyOf,
): AlterPlan {
  const table: TableShape = structuredClone(shape);
  const plan: AlterPlan = {
    renames: [],
    additions: [],
    rebuild: null,
    renameTo: null,
    steps: [],
  };
  const step = (change: AlterStep) => plan.steps.push(change);

  let rebuild = false;
  operations.forEach((operation, i) => {
    const where = `Operation ${i + 1} (${operation.op})`;
    const fail = (message: string): never => {
      throw new RowWriteError(`${where}: ${message}`);
    };
    const args = operation.args;
    const text = (key: string): string => {
      const value = args[key];
      if (typeof value !== "string" || !value.trim() || value.includes("\n")) {
        return fail(`"${key}" must be a column or table name`);
      }
      return value;
    };
    const column = (name: string): ColumnShape =>
      table.columns.find((c) => c.name.toLowerCase() === name.toLowerCase()) ??
        fail(`no column ${name} in ${table.name}`);
    const unused = (name: string) => {
      if (table.columns.some((c) => c.name.toLowerCase() === name.toLowerCase())) {
        fail(`column ${name} already exists`);
      }
    };
    switch (operation.op) {
      case "add_column": {
        const name = text("name");
        unused(name);
        const added: ColumnShape = {
          name,
          type: typeOf(args.type, fail) ?? "TEXT",
          notNull: args.not_null === true,
          defaultSql: defaultSqlOf(args, fail),
          existing: false,
        };
        if (added.notNull && added.defaultSql === null) {
          fail("a NOT NULL column needs a default for the rows already there");
        }
        table.columns.push(added);
        step({ op: "add_column", column: added });
        // ADD COLUMN refuses non-constant defaults (CURRENT_TIMESTAMP...) on a table with rows.
        if (added.defaultSql !== null && /^[A-Z(]/.test(added.defaultSql)) rebuild = true;
        else {plan.additions.push(
            `ALTER TABLE ${quoteName(table.name)} ADD COLUMN ${definition(added)}`,
          );}
        return;
      }
      case "rename_column": {
        const target = column(text("name"));
        const to = text("to");
        if (to.toLowerCase() !== target.name.toLowerCase()) unused(to);
        if (!target.existing) fail("rename a column in the operation that adds it");
        plan.renames.push(
          `ALTER TABLE ${quoteName(table.name)} RENAME COLUMN ${quoteName(target.name)} TO ${
            quoteName(to)
          }`,
        );
        step({ op: "rename_column", from: target.name, to });
        renameEverywhere(table, target.name, to);
        return;
      }
      case "rename_table":
        plan.renameTo = text("to");
        step({ op: "rename_table", to: plan.renameTo });
        return;
      case "alter_column": {
        const target = column(text("name"));
        if (!["type", "not_null", "default", "default_expr"].some((key) => key in args)) {
          fail('give at least one of "type", "not_null", "default" or "default_expr"');
        }
        const before = { ...target };
        const asked = {
          type: "type" in args,
          notNull: "not_null" in args,
          default: "default" in args || "default_expr" in args,
        };
        if (asked.type) target.type = typeOf(args.type, fail) ?? target.type;
        if (asked.notNull) target.notNull = args.not_null === true;
        if (asked.default) target.defaultSql = defaultSqlOf(args, fail);
        step({ op: "alter_column", before, after: { ...target }, asked });
        rebuild = true;
        return;
      }
      case "drop_column": {
        const target = column(text("name"));
        if (table.columns.length === 1) fail("a table needs at least one column");
        const lower = target.name.toLowerCase();
        table.columns = table.columns.filter((c) => c !== target);
        table.pks = table.pks.filter((pk) => pk.toLowerCase() !== lower);
        table.foreignKeys = table.foreignKeys.filter((fk) => fk.column.toLowerCase() !== lower);
        table.uniques = table.uniques.filter((u) => !u.some((c) => c.toLowerCase() === lower));
        step({ op: "drop_column", name: target.name });
        rebuild = true;
        return;
      }
      case "set_primary_key": {
        const names = nameList(args.columns, fail);
        const before = table.pks;
        table.pks = names.map((name) => column(name).name);
        step({ op: "set_primary_key", before, after: table.pks });
        rebuild = true;
        return;
      }
      case "add_foreign_key": {
        const target = column(text("column"));
        table.foreignKeys = table.foreignKeys.filter((fk) => fk.column !== target.name);
        table.foreignKeys.push(foreignKey(args, target.name, primaryKeyOf, fail));
        rebuild = true;
        return;
      }
      case "drop_foreign_key": {
        const target = column(text("column"));
        const before = table.foreignKeys.length;
        table.foreignKeys = table.foreignKeys.filter((fk) => fk.column !== target.name);
        if (table.foreignKeys.length === before) fail(`column ${target.name} has no foreign key`);
        rebuild = true;
        return;
      }
      case "set_foreign_keys": {
        if (!Array.isArray(args.foreign_keys)) fail('"foreign_keys" must be a list');
        table.foreignKeys = (args.foreign_keys as unknown[]).map((item) => {
          if (!item || typeof item !== "object") return fail("each foreign key must be an object");
          const fk = item as Record<string, unknown>;
          const name = typeof fk.column === "string" ? fk.column : fail('"column" is required');
          return foreignKey(fk, column(name).name, primaryKeyOf, fail);
        });
        rebuild = true;
        return;
      }
      case "reorder_columns": {
        const names = nameList(args.columns, fail).map((name) => column(name).name);
        const first = names.map((name) => table.columns.find((c) => c.name === name)!);
        table.columns = [...first, ...table.columns.filter((c) => !names.includes(c.name))];
        step({ op: "reorder_columns", columns: table.columns.map((c) => c.name) });
        rebuild = true;
        return;
      }
      default:
        fail(
          "unknown operation; use add_column, rename_column, rename_table, alter_column, " +
            "drop_column, set_primary_key, add_foreign_key, drop_foreign_key, set_foreign_keys " +
            "or reorder_columns",
        );
    }
  });
  if (rebuild) {
    plan.rebuild = table;
    plan.additions = [];
  }
  return plan;
}

function renameEverywhere(table: TableShape, from: string, to: string): void {
  const same = (name: string) => name.toLowerCase() === from.toLowerCase();
  for (const column of table.columns) if (same(column.name)) column.name = to;
  table.pks = table.pks.map((pk) => same(pk) ? to : pk);
  for (const fk of table.foreignKeys) if (same(fk.column)) fk.column = to;
  table.uniques = table.uniques.map((u) => u.map((c) => same(c) ? to : c));
}

function typeOf(value: unknown, fail: (message: string) => never): string | null {
  if (value === undefined || value === null) return null;
  const type = typeof value === "string" ? value.trim().toUpperCase() : "";
  if (!TYPES.has(type)) {
    fail(
      `type must be one of text, integer, float, real, numeric or blob, not ${
        JSON.stringify(value)
      }`,
    );
  }
  return type;
}

/**
 * The SQL of a column's default from `args`: `default` (a string, number or boolean, quoted as a
 * literal) or `default_expr` (one of the named expressions, `current_timestamp`...); null for none.
 */
export function defaultSqlOf(
  args: Record<string, unknown>,
  fail: (message: string) => never,
): string | null {
  if (args.default_expr !== undefined && args.default_expr !== null) {
    const expression = DEFAULT_EXPRESSIONS[String(args.default_expr)];
    if (!expression) {
      fail(`default_expr must be one of ${Object.keys(DEFAULT_EXPRESSIONS).join(", ")}`);
    }
    return expression;
  }
  const value = args.default;
  if (value === undefined || value === null) return null;
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  if (typeof value === "string") return `'${value.replaceAll("'", "''")}'`;
  return fail("default must be a string, number or boolean");
}

function nameList(value: unknown, fail: (message: string) => never): string[] {
  if (!Array.isArray(value) || !value.length || !value.every((v) => typeof v === "string")) {
    fail('"columns" must be a list of one or more column names');
  }
  return value as string[];
}

function foreignKey(
  args: Record<string, unknown>,
  column: string,
  primaryKeyOf: PrimaryKeyOf,
  fail: (message: string) => never,
): ForeignKeyShape {
  const table = typeof args.fk_table === "string" ? args.fk_table : fail('"fk_table" is required');
  const pks = primaryKeyOf(table) ?? fail(`no table ${table} to reference`);
  let to = args.fk_column;
  if (to === undefined || to === null) {
    if (pks.length !== 1) fail(`${table} has no single primary key column: give "fk_column"`);
    to = pks[0];
  }
  if (typeof to !== "string") return fail('"fk_column" must be a column name');
  return { column, table, to, onUpdate: "NO ACTION", onDelete: "NO ACTION" };
}

/** A column's definition in `CREATE TABLE` / `ADD COLUMN`. */
export function definition(column: ColumnShape, inlinePk = false): string {
  let sql = quoteName(column.name);
  if (column.type) sql += ` ${column.type}`;
  if (inlinePk) sql += " PRIMARY KEY";
  if (column.notNull) sql += " NOT NULL";
  if (column.defaultSql !== null) sql += ` DEFAULT ${column.defaultSql}`;
  return sql;
}

/**
 * The `CREATE TABLE` of `shape` under `name`. A single INTEGER primary key is written inline, so
 * it stays the rowid's alias (and rowids, which full-text indexes point at, are kept).
 */
export function createSql(shape: TableShape, name: string): string {
  const inline = hasRowidAlias(shape);
  const lines = shape.columns.map((column) =>
    `   ${definition(column, inline && column.name === shape.pks[0])}`
  );
  if (shape.pks.length && !inline) {
    lines.push(`   PRIMARY KEY (${shape.pks.map(quoteName).join(", ")})`);
  }
  for (const unique of shape.uniques) lines.push(`   UNIQUE (${unique.map(quoteName).join(", ")})`);
  for (const fk of shape.foreignKeys) {
    let line = `   FOREIGN KEY (${quoteName(fk.column)}) REFERENCES ${quoteName(fk.table)}(${
      quoteName(fk.to)
    })`;
    if (fk.onUpdate !== "NO ACTION") line += ` ON UPDATE ${fk.onUpdate}`;
    if (fk.onDelete !== "NO ACTION") line += ` ON DELETE ${fk.onDelete}`;
    lines.push(line);
  }
  return `CREATE TABLE ${quoteName(name)} (\n${lines.join(",\n")}\n)`;
}

/** True when `shape` keys its rows by a rowid alias (a single INTEGER primary key). */
export function hasRowidAlias(shape: TableShape): boolean {
  return shape.pks.length === 1 &&
    shape.columns.find((c) => c.name === shape.pks[0])?.type.toUpperCase() === "INTEGER";
}
