/**
 * Carries out an alter plan (`alter_plan.ts`) on the write connection, outside any transaction
 * the queue would open, because `PRAGMA foreign_keys` can only change outside one. Everything
 * runs in one transaction: renames and additions with `ALTER TABLE`, then, when the plan needs
 * it, SQLite's documented rebuild (https://www.sqlite.org/lang_altertable.html#otheralter):
 * foreign keys off, create the new table, copy the rows (rowids too), drop the old one, rename
 * the new one, put back the table's indexes and triggers and the views that name it, then
 * `PRAGMA foreign_key_check`. Any failure rolls the whole transaction back, so the table is
 * exactly as it was.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import { SqliteError } from "../sqlite/errors.ts";
import {
  type AlterOperation,
  createSql,
  hasRowidAlias,
  planAlter,
  type TableShape,
} from "./alter_plan.ts";
import { quoteName, RowWriteError } from "./write_values.ts";
import { protectHistory } from "./history/protect.ts";

/** What an alter did. */
export interface AlterResult {
  /** The table's name afterwards. */
  table: string;
  /** Its SQL before. */
  before_schema: string;
  /** Its SQL afterwards. */
  schema: string;
  /** Every statement run, in order (for the preview and the log). */
  statements: string[];
  /**
   * Columns whose stored values a new type changed: on SQLite by the new type's affinity as the
   * rebuild copies the rows (text `"04360"` in an INTEGER column is stored as `4360`), on
   * PostgreSQL by the `USING` cast (`postgres_alter.ts`). Empty when nothing changed.
   */
  changed_values?: {
    /** The column's name afterwards. */
    column: string;
    /** How many rows' values changed. */
    rows: number;
    /** The first such value before the change. */
    before: unknown;
    /** The same value afterwards. */
    after: unknown;
  }[];
}

/** Values of one column that a change of its type changed, with the first one as an example. */
type ChangedValues = NonNullable<AlterResult["changed_values"]>[number];

/**
 * Reads `table`'s shape. What the shape cannot describe (CHECK, COLLATE, generated columns...)
 * is left out of it and named in `unkeepable`: `ALTER TABLE` keeps it, a rebuild would not.
 */
export function readShape(
  conn: Connection,
  table: string,
): TableShape & { unkeepable: string | null } {
  let unkeepable = whatARebuildLoses(schemaOf(conn, table));
  const columns = conn.query(`PRAGMA table_xinfo(${quoteLiteral(table)})`).rows;
  const pkRows = columns.filter((row) => Number(row[5]) > 0)
    .sort((a, b) => Number(a[5]) - Number(b[5]));
  const foreignKeys = conn.query(`PRAGMA foreign_key_list(${quoteLiteral(table)})`).rows;
  const uniques = conn.query(`PRAGMA index_list(${quoteLiteral(table)})`).rows
    .filter((row) => row[3] === "u")
    .map((row) =>
      conn.query(`PRAGMA index_info(${quoteLiteral(String(row[1]))})`).rows
        .map((info) => String(info[2]))
    );
  return {
    name: table,
    columns: columns.filter((row) => {
      if (Number(row[6])) unkeepable ??= "generated or hidden columns";
      return !Number(row[6]);
    }).map((row) => {
      return {
        name: String(row[1]),
        type: String(row[2] ?? ""),
        notNull: Number(row[3]) === 1,
        defaultSql: row[4] === null ? null : defaultClause(String(row[4])),
        existing: true,
      };
    }),
    pks: pkRows.map((row) => String(row[1])),
    foreignKeys: foreignKeys.filter((row) => {
      if (Number(row[1]) > 0) unkeepable ??= "a compound foreign key";
      return Number(row[1]) === 0;
    }).map((row) => {
      return {
        column: String(row[3]),
        table: String(row[2]),
        to: row[4] === null ? "" : String(row[4]),
        onUpdate: String(row[5]),
        onDelete: String(row[6]),
      };
    }),
    uniques,
    unkeepable,
  };
}

/** A literal default: a string, a number, a blob, NULL, TRUE/FALSE or CURRENT_*. */
const LITERAL =
  /^(?:'(?:[^']|'')*'|[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?|x'[0-9a-f]*'|null|true|false|current_(?:time|date|timestamp))$/i;

/**
 * A default as `DEFAULT` takes it again: SQLite reports `DEFAULT (expr)` as the bare `expr`,
 * which a rebuilt `CREATE TABLE` must put back in its parentheses.
 */
function defaultClause(sql: string): string {
  return LITERAL.test(sql.trim()) ? sql : `(${sql})`;
}

// What the shape above does not record, so a rebuild would silently lose it.
function whatARebuildLoses(sql: string): string | null {
  const code = sql.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\[[^\]]*\]|`[^`]*`/g, "''");
  for (
    const [pattern, what] of [
      [/\bcheck\s*\(/i, "CHECK constraints"],
      [/\bcollate\b/i, "collations"],
      [/\bautoincrement\b/i, "AUTOINCREMENT"],
      [/\bwithout\s+rowid\b/i, "WITHOUT ROWID"],
      [/\bstrict\b\s*$/i, "STRICT"],
      [/\bon\s+conflict\b/i, "ON CONFLICT clauses"],
    ] as const
  ) {
    if (pattern.test(code)) return what;
  }
  return null;
}

function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

function schemaOf(conn: Connection, table: string): string {
  const row = conn.query("select sql from sqlite_master where type = 'table' and name = ?", [
    table,
  ]).rows[0];
  if (!row) throw new RowWriteError(`Table not found: ${table}`);
  return String(row[0]);
}

/** A lookup of a table's primary key columns (null when there is no such table). */
function primaryKeysOf(conn: Connection): (table: string) => string[] | null {
  return (table) => {
    const rows = conn.query(`PRAGMA table_info(${quoteLiteral(table)})`).rows;
    if (!rows.length) return null;
    return rows.filter((row) => Number(row[5]) > 0)
      .sort((a, b) => Number(a[5]) - Number(b[5]))
      .map((row) => String(row[1]));
  };
}

/**
 * Runs `work` with `conn`'s foreign keys off, as a rebuild needs (dropping the old table must
 * not fire its cascades), and on again after. SQLite takes the pragma only outside a
 * transaction: call this before the alter's transaction opens.
 */
export async function withForeignKeysOff<T>(conn: Connection, work: () => Promise<T>): Promise<T> {
  const foreignKeysOn = Number(conn.query("PRAGMA foreign_keys").rows[0][0]) === 1;
  if (foreignKeysOn) conn.exec("PRAGMA foreign_keys = OFF");
  try {
    return await work();
  } finally {
    if (foreignKeysOn) conn.exec("PRAGMA foreign_keys = ON");
  }
}

/**
 * Alters `table` as `operations` say (see the module comment). With `inTransaction`, inside the
 * caller's transaction, which {@link withForeignKeysOff} wraps and which commits it, so that
 * whatever checks the write after it (`write_wrapper` hooks) can still roll it back. Otherwise in
 * a transaction of its own, foreign keys off; with `apply: false`, rolled back at the end,
 * reporting only what it would do.
 */
export function alterTable(
  conn: Connection,
  table: string,
  operations: readonly AlterOperation[],
  { apply = true, inTransaction = false }: { apply?: boolean; inTransaction?: boolean } = {},
): AlterResult {
  if (inTransaction) return checkedPlan(conn, table, operations);
  const foreignKeysOn = Number(conn.query("PRAGMA foreign_keys").rows[0][0]) === 1;
  if (foreignKeysOn) conn.exec("PRAGMA foreign_keys = OFF");
  try {
    conn.exec("BEGIN IMMEDIATE");
    try {
      const result = checkedPlan(conn, table, operations);
      // A preview runs everything, checks included, and then undoes it.
      conn.exec(apply ? "COMMIT" : "ROLLBACK");
      return result;
    } catch (error) {
      if (conn.inTransaction) conn.exec("ROLLBACK");
      throw error;
    }
  } finally {
    if (foreignKeysOn) conn.exec("PRAGMA foreign_keys = ON");
  }
}

/** The plan applied, the history's protection (a rename to its name) checked before it commits. */
function checkedPlan(
  conn: Connection,
  table: string,
  operations: readonly AlterOperation[],
): AlterResult {
  try {
    return protectHistory(conn, () => applyPlan(conn, table, operations));
  } catch (error) {
    if (error instanceof SqliteError) throw new RowWriteError(error.message, { cause: error });
    throw error;
  }
}

function applyPlan(
  conn: Connection,
  table: string,
  operations: readonly AlterOperation[],
): AlterResult {
  const before = schemaOf(conn, table);
  const shape = readShape(conn, table);
  const plan = planAlter(shape, operations, primaryKeysOf(conn));
  refuseBreakingFullText(conn, table, operations);
  if (plan.rebuild && shape.unkeepable) {
    throw new RowWriteError(
      `${table} uses ${shape.unkeepable}, which rebuilding the table would lose: only renames ` +
        "and added columns are possible here; change the rest with SQL",
    );
  }
  const statements: string[] = [];
  const changed: ChangedValues[] = [];
  const run = (sql: string, what?: string) => {
    statements.push(sql);
    try {
      conn.exec(sql);
    } catch (error) {
      if (!what || !(error instanceof SqliteError)) throw error;
      throw new RowWriteError(`Cannot keep ${what}: ${error.message}`, { cause: error });
    }
  };
  for (const sql of [...plan.renames, ...plan.additions]) run(sql);
  if (plan.rebuild) changed.push(...rebuild(conn, table, plan.rebuild, run));
  let name = table;
  if (plan.renameTo !== null && plan.renameTo !== table) {
    run(`ALTER TABLE ${quoteName(table)} RENAME TO ${quoteName(plan.renameTo)}`);
    name = plan.renameTo;
  }
  checkForeignKeys(conn, name);
  return {
    table: name,
    before_schema: before,
    schema: schemaOf(conn, name),
    statements,
    changed_values: changed,
  };
}

function rebuild(
  conn: Connection,
  table: string,
  shape: TableShape,
  run: (sql: string, what?: string) => void,
): ChangedValues[] {
  // Kept to put back afterwards, in their original order: the table's own indexes and triggers
  // (dropped with it), and the views and other tables' triggers that name it. SQLite re-checks
  // those when the new table is renamed, and fails while the old name has no table; they are
  // dropped first and come back unchanged.
  const lower = table.toLowerCase();
  const kept = conn.query(
    `select type, name, tbl_name, sql from sqlite_master
      where sql is not null and name not like 'sqlite_%'
        and ((type in ('index', 'trigger') and tbl_name = ?1)
          or (type in ('view', 'trigger') and instr(lower(sql), ?2) > 0))
      order by rowid`,
    [table, lower],
  ).rows.map(([type, name, on, sql]) => ({
    type: String(type),
    name: String(name),
    on: String(on),
    sql: String(sql),
  }));
  for (const item of kept) {
    if (item.type === "view") run(`DROP VIEW ${quoteName(item.name)}`);
    else if (item.type === "trigger" && item.on !== table) {
      run(`DROP TRIGGER ${quoteName(item.name)}`);
    }
  }
  const temporary = `_vitrine_alter_${table}`;
  run(createSql(shape, temporary));
  const copied = shape.columns.filter((column) => column.existing).map((c) => quoteName(c.name));
  // Rowids are what full-text indexes and other tables' rowid references point at: keep them.
  const rowid = hasRowidAlias(shape) || !hasRowid(conn, table) ? [] : ["rowid"];
  const list = [...rowid, ...copied].join(", ");
  run(`INSERT INTO ${quoteName(temporary)} (${list}) SELECT ${list} FROM ${quoteName(table)}`);
  const changed = rowid.length || hasRowidAlias(shape)
    ? changedValues(conn, table, temporary, shape)
    : [];
  run(`DROP TABLE ${quoteName(table)}`);
  run(`ALTER TABLE ${quoteName(temporary)} RENAME TO ${quoteName(table)}`);
  for (const item of kept) run(item.sql, `${item.type} ${item.name}`);
  return changed;
}

/**
 * The values a new column type changed while the rows were copied: the new column's affinity
 * turns text that looks like a number into that number (`"04360"` becomes `4360`, `"1.50"`
 * becomes `1.5`) and large integers into reals. Only columns whose declared type changed are
 * compared (a scan each), by their text; a number equal to the number it was, and text `12`
 * read back as `12.0`, are no change.
 * The history does not record a rebuild's rows, so this is what the preview can warn about.
 */
function changedValues(
  conn: Connection,
  table: string,
  copy: string,
  shape: TableShape,
): ChangedValues[] {
  const oldTypes = new Map(
    conn.query(`PRAGMA table_info(${quoteLiteral(table)})`).rows
      .map((row) => [String(row[1]), String(row[2] ?? "").toUpperCase()]),
  );
  const result: ChangedValues[] = [];
  for (const column of shape.columns) {
    const was = oldTypes.get(column.name);
    if (!column.existing || was === undefined || was === column.type.toUpperCase()) continue;
    const c = quoteName(column.name);
    // Text "12" in a REAL column reads 12.0: its integer's text is the old text, no change.
    const differs = `o.${c} is not null and cast(o.${c} as text) is not cast(n.${c} as text)
      and not (typeof(n.${c}) = 'real' and cast(o.${c} as text) = cast(cast(n.${c} as integer) as text)
        and cast(n.${c} as integer) = n.${c})
      and not (typeof(o.${c}) in ('integer', 'real') and typeof(n.${c}) in ('integer', 'real')
        and o.${c} = n.${c})`;
    const from = `from ${quoteName(table)} o join ${quoteName(copy)} n on n.rowid = o.rowid`;
    const count = Number(conn.query(`select count(*) ${from} where ${differs}`).rows[0][0]);
    if (!count) continue;
    const [before, after] = conn.query(
      `select o.${c}, n.${c} ${from} where ${differs} order by o.rowid limit 1`,
    ).rows[0];
    // A huge integer comes back as a bigint, which JSON cannot carry: its digits instead.
    const plain = (value: unknown) => typeof value === "bigint" ? String(value) : value;
    result.push({ column: column.name, rows: count, before: plain(before), after: plain(after) });
  }
  return result;
}

function hasRowid(conn: Connection, table: string): boolean {
  try {
    conn.query(`select rowid from ${quoteName(table)} limit 0`);
    return true;
  } catch {
    return false;
  }
}

/**
 * An external-content full-text index (`content='table'`) reads its columns from the table by
 * name; SQLite does not rename them there, so renaming or dropping one would break search.
 */
function refuseBreakingFullText(
  conn: Connection,
  table: string,
  operations: readonly AlterOperation[],
): void {
  const touched = operations
    .filter((operation) => operation.op === "rename_column" || operation.op === "drop_column")
    .map((operation) => String(operation.args.name ?? "").toLowerCase());
  if (!touched.length) return;
  const indexes = conn.query(
    `select name, sql from sqlite_master
      where type = 'table' and sql like 'create virtual table%' and sql like '%content%'`,
  ).rows;
  for (const [name, sql] of indexes) {
    const content = /\bcontent\s*=\s*(?:'((?:[^']|'')*)'|"((?:[^"]|"")*)"|([\w]+))/i.exec(
      String(sql),
    );
    const source = content && (content[1] ?? content[2] ?? content[3]);
    if (!source || source.toLowerCase() !== table.toLowerCase()) continue;
    const columns = conn.query(`PRAGMA table_info(${quoteLiteral(String(name))})`).rows
      .map((row) => String(row[1]).toLowerCase());
    const hit = touched.find((column) => columns.includes(column));
    if (hit) {
      throw new RowWriteError(
        `Column ${hit} is indexed by the full-text index ${name}, which reads it by name: ` +
          "renaming or dropping it would break search; drop or rebuild that index first",
      );
    }
  }
}

function checkForeignKeys(conn: Connection, table: string): void {
  const lower = table.toLowerCase();
  const broken = conn.query("PRAGMA foreign_key_check").rows.filter((row) =>
    String(row[0]).toLowerCase() === lower || String(row[2]).toLowerCase() === lower
  );
  if (broken.length) {
    const [child, rowid, parent] = broken[0];
    throw new RowWriteError(
      `Foreign key check failed: ${broken.length} row${broken.length === 1 ? "" : "s"} would ` +
        `break a foreign key (first: rowid ${rowid} of ${child} has no match in ${parent})`,
    );
  }
}
