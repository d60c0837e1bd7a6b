/**
 * The write API's row writes (insert, upsert, update, delete) on a PostgreSQL database: each
 * call is one read-write transaction of the pool, its statements built with the dialect's
 * quoting and `$n` parameters, the rows written read back with `RETURNING *`. The same answers
 * as `row_writes.ts` gives on SQLite; the server's refusals become 400s (bad data, a broken
 * constraint) or 403s (the role may not write), with the server's message. The bulk calls
 * (`updateRows`, `deleteRows`) are one transaction for all their rows, and the first row that
 * fails (missing, or refused by the server) undoes them all, its error naming the row by its key,
 * as `row_bulk.ts` does on SQLite. `statements` is `/-/execute-write`'s batch
 * (`postgres_statements.ts`), its dry run undone by a savepoint inside the transaction.
 *
 * Every call runs inside its `WriteScope` when it has one (`within`): the `write_wrapper` hooks
 * around it, and, when the write is recorded, each row's image before (read `FOR UPDATE`) and
 * after noted for the history (`postgres_history.ts`). `revert` undoes recorded changes
 * (`postgres_revert.ts`).
 *
 * @module
 */

import type { BindParams } from "../sqlite/values.ts";
import { StatusError } from "../util/errors.ts";
import type { SqlDialect } from "./dialect.ts";
import type { KeyedTable, ReturnedRow } from "./row_writes.ts";
import type { RowWrites, WriteScope } from "./engine.ts";
import type { PgRun, PgRunResult } from "./postgres_connection.ts";
import { firstImage, generatedColumns, PgChangeLog, type PgImage } from "./postgres_history.ts";
import { revertPgChanges } from "./postgres_revert.ts";
import { toPgStatement } from "./postgres_params.ts";
import { pgParam } from "./postgres_values.ts";
import { keyText } from "./row_bulk.ts";
import { addPgColumns, type AlteredTable } from "./postgres_columns.ts";
import { runPgStatements } from "./postgres_statements.ts";
import { bindable, RowWriteError, type WriteRow } from "./write_values.ts";

/**
 * Runs one statement of the transaction (`postgres_connection.ts`'s `PgRun`): its rows as
 * objects and as lists, its columns, how many it changed, its command tag (`INSERT`…).
 */
export type PgWriteRun = PgRun;

/** Runs `fn` in one read-write transaction, inside `scope` when there is one. */
export type PgTransaction = <T>(
  fn: (run: PgWriteRun) => Promise<T>,
  scope: WriteScope | null,
) => Promise<T>;

/** A statement that changes the schema, so the introspection is read again. */
const SCHEMA_SQL = /^\s*(create|alter|drop|comment|grant|revoke)\b/i;

/** SQLSTATE classes of the data's fault: 22 data exception, 23 integrity constraint. */
const DATA_FAULT = /^2[23]/;
/** SQLSTATE insufficient_privilege. */
const NO_PRIVILEGE = "42501";

/**
 * A value bound for PostgreSQL: JSON objects as their text, booleans as `1`/`0`, which a boolean
 * column reads as true/false and an integer or text column as SQLite stores them.
 */
function param(value: unknown): unknown {
  const bound = bindable(value);
  if (typeof bound === "boolean") return bound ? "1" : "0";
  if (typeof bound === "number" || typeof bound === "bigint") return String(bound);
  return bound;
}

/** The server's refusal as the write API answers it. */
export function writeRefusal(error: unknown): unknown {
  const code = (error as { code?: string }).code ?? "";
  const message = error instanceof Error ? error.message : String(error);
  if (DATA_FAULT.test(code)) return new RowWriteError(message, { cause: error });
  if (code === NO_PRIVILEGE) {
    return new StatusError(403, message, { title: "Permission denied", cause: error });
  }
  return error;
}

/** A refusal of the server's that is not a write's (a default it cannot use…): a 400. */
export function serverRefusal(error: unknown): unknown {
  const refusal = writeRefusal(error);
  const code = (error as { code?: unknown }).code;
  if (refusal !== error || typeof code !== "string") return refusal;
  return new RowWriteError((error as Error).message, { cause: error });
}

/** Runs one row's write of a bulk call; its refusal, if any, is re-raised naming the row. */
async function eachRow(target: KeyedTable, key: readonly unknown[], body: () => Promise<void>) {
  try {
    await body();
  } catch (error) {
    const refusal = writeRefusal(error);
    if (!(refusal instanceof RowWriteError)) throw refusal;
    throw new RowWriteError(`Row ${keyText(target, key)}: ${refusal.message}`, { cause: error });
  }
}

/**
 * `body` run in the transaction and, for a dry run, undone by a savepoint: the write itself
 * ends well (its wrappers see its result, as on SQLite) and commits nothing.
 */
export async function rolledBackIf<T>(
  dryRun: boolean,
  run: PgWriteRun,
  body: () => Promise<T>,
): Promise<T> {
  if (!dryRun) return await body();
  await run("savepoint vitrine_dry_run", []);
  const result = await body();
  await run("rollback to savepoint vitrine_dry_run", []);
  return result;
}

/** The row of `table` keyed by `key`, locked until the transaction ends (history's "before"). */
async function lockedRow(
  run: PgWriteRun,
  dialect: SqlDialect,
  table: string,
  keys: readonly string[],
  key: readonly unknown[],
): Promise<PgImage | null> {
  const where = keys.map((k, i) => `${dialect.quoteIdentifier(k)} = $${i + 1}`).join(" and ");
  return firstImage(
    await run(
      `select * from ${dialect.tableName(table)} where ${where} for update`,
      key.map(param),
    ),
  );
}

/** The row an insert of `row` may overwrite, when its key is given (history's "before"). */
function overwritten(run: PgWriteRun, dialect: SqlDialect, target: KeyedTable, row: WriteRow) {
  if (!target.pks.length || !target.pks.every((pk) => Object.hasOwn(row, pk))) return null;
  return lockedRow(run, dialect, target.table, target.pks, target.pks.map((pk) => row[pk]));
}

/**
 * Inserts `rows` into `target` with `run` (one statement each, `RETURNING *`): `ignore` skips a
 * row whose key is taken, `replace` overwrites it, `alter` first adds the columns the table lacks
 * (`altered` hears of them). With a `log`, each row's images are noted for the history.
 */
export async function pgInsert(
  run: PgWriteRun,
  dialect: SqlDialect,
  target: KeyedTable,
  rows: readonly WriteRow[],
  options: { ignore?: boolean; replace?: boolean; alter?: boolean },
  log: PgChangeLog | null = null,
  altered?: AlteredTable,
): Promise<ReturnedRow[]> {
  if (options.alter) await addPgColumns(run, dialect, target.table, rows, altered);
  const q = (name: string) => dialect.quoteIdentifier(name);
  const returned: ReturnedRow[] = [];
  for (const row of rows) {
    let conflict = "";
    let before: PgImage | null = null;
    if (options.ignore) conflict = "on conflict do nothing";
    else if (options.replace && target.pks.length) {
      // SQLite's INSERT OR REPLACE: the whole row is the new one (unnamed columns too).
      const others = Object.keys(row).filter((c) => !target.pks.includes(c));
      const set = others.map((c) => `${q(c)} = excluded.${q(c)}`).join(", ");
      conflict = `on conflict (${target.pks.map(q).join(", ")}) ` +
        (set ? `do update set ${set}` : "do nothing");
      if (log) before = await overwritten(run, dialect, target, row);
    }
    const values = Object.values(row).map(param);
    const result = await run(insertSql(dialect, target.table, row, conflict), values);
    log?.change(target.table, target.pks, before, firstImage(result) ?? before);
    returned.push(...result.rows);
  }
  return returned;
}

function insertSql(dialect: SqlDialect, table: string, row: WriteRow, conflict: string): string {
  const q = (name: string) => dialect.quoteIdentifier(name);
  const columns = Object.keys(row);
  const into = dialect.tableName(table);
  return columns.length
    ? `insert into ${into} (${columns.map(q).join(", ")}) values (${
      columns.map((_, i) => `$${i + 1}`).join(", ")
    }) ${conflict} returning *`
    : `insert into ${into} default values ${conflict} returning *`;
}

/**
 * Row writes over `transaction`, which runs its function in one read-write transaction;
 * `schemaChanged` is called once a committed write changed the schema; `fail` turns a driver
 * error into the data layer's (as `execute_write` fails). Each write runs inside `scope` when one
 * is given (`within`).
 */
export function pgRowWrites(
  dialect: SqlDialect,
  transaction: PgTransaction,
  schemaChanged: () => void,
  fail: (error: unknown, sql: string, params: BindParams | null) => Error,
  scope: WriteScope | null = null,
): RowWrites {
  const q = (name: string) => dialect.quoteIdentifier(name);
  const where = (keys: readonly string[], offset: number) =>
    keys.map((key, i) => `${q(key)} = $${offset + i + 1}`).join(" and ");
  // A write that may add columns tells the catalog once it is committed.
  const altering = async <T>(options: { alter?: boolean }, write: () => Promise<T>) => {
    const result = await write();
    if (options.alter) schemaChanged();
    return result;
  };
  // Columns `alter` added: the scope sends `alter-table` once the write committed.
  const altered: AlteredTable | undefined = scope?.altered
    ? (table, before, after) => scope.altered!(table, before, after)
    : undefined;
  const keysOf = (target: KeyedTable) => {
    if (!target.pks.length) {
      throw new RowWriteError("This table has no primary key: its rows cannot be written here");
    }
    return [...target.pks];
  };
  /**
   * One write in its transaction, inside the scope. With a recording scope, `log` notes each
   * row's images and hands the sum to the scope before the transaction commits.
   */
  const write = <T>(fn: (run: PgWriteRun, log: PgChangeLog | null) => Promise<T>) =>
    transaction(async (run) => {
      const log = scope?.record ? new PgChangeLog() : null;
      const result = await fn(run, log);
      if (log) {
        scope!.record!(
          await log.records((table) => generatedColumns(run, dialect.tableName(table))),
        );
      }
      return result;
    }, scope);
  /**
   * Sets `columns` (values `setValues`) on the row keyed by `keyParams`, `RETURNING *`. With a
   * `log` the row's image before comes from a locked read in the same statement (its columns
   * returned first), so recording costs no round trip of its own.
   */
  const updateOne = async (
    run: PgWriteRun,
    log: PgChangeLog | null,
    target: KeyedTable,
    keys: string[],
    columns: string[],
    setValues: unknown[],
    keyParams: unknown[],
  ): Promise<PgRunResult> => {
    const table = dialect.tableName(target.table);
    const set = columns.map((c, i) => `${q(c)} = $${i + 1}`).join(", ");
    const params = [...setValues, ...keyParams];
    if (!log) {
      return await run(
        `update ${table} set ${set} where ${where(keys, columns.length)} returning *`,
        params,
      );
    }
    const joined = keys.map((k) => `vitrine_new.${q(k)} = vitrine_old.${q(k)}`).join(" and ");
    const both = await run(
      `update ${table} as vitrine_new set ${set}
      from (select * from ${table} where ${where(keys, columns.length)} for update) as vitrine_old
      where ${joined} returning vitrine_old.*, vitrine_new.*`,
      params,
    );
    const half = both.columns.length / 2;
    const image = (from: number, to: number): PgImage | null =>
      both.values.length
        ? { row: both.values[0].slice(from, to), columns: both.columns.slice(from, to) }
        : null;
    const before = image(0, half);
    const after = image(half, both.columns.length);
    log.change(target.table, keys, before, after);
    const values = after ? [after.row] : [];
    const afterColumns = both.columns.slice(half);
    return {
      ...both,
      values,
      columns: afterColumns,
      rows: values.map((row) =>
        Object.fromEntries(afterColumns.map((column, i) => [column.name, row[i]]))
      ),
    };
  };
  return {
    within: (inner) => pgRowWrites(dialect, transaction, schemaChanged, fail, inner),
    revert: (entries) =>
      write((run, log) =>
        revertPgChanges(
          run,
          dialect,
          entries,
          (table, pks, before, after) => log?.change(table, pks, before, after),
        )
      ),
    insert: (target, rows, options) =>
      altering(options, () =>
        write(async (run, log) => {
          const returned = await pgInsert(run, dialect, target, rows, options, log, altered);
          return options.returning ? returned : null;
        })),
    upsert: (target, rows, options) =>
      altering(options, () =>
        write(async (run, log) => {
          const keys = keysOf(target);
          if (options.alter) await addPgColumns(run, dialect, target.table, rows, altered);
          const returned: ReturnedRow[] = [];
          for (const row of rows) {
            const others = Object.keys(row).filter((c) => !keys.includes(c));
            const set = others.map((c) => `${q(c)} = excluded.${q(c)}`).join(", ");
            // With nothing to set, `do update` sets a key to itself, so the row is returned.
            const action = set || `${q(keys[0])} = excluded.${q(keys[0])}`;
            const conflict = `on conflict (${keys.map(q).join(", ")}) do update set ${action}`;
            const before = log ? await overwritten(run, dialect, target, row) : null;
            const values = Object.values(row).map(param);
            const result = await run(insertSql(dialect, target.table, row, conflict), values);
            log?.change(target.table, keys, before, firstImage(result));
            returned.push(...result.rows);
          }
          return options.returning ? returned : null;
        })),
    update: (target, keyValues, update, options) =>
      altering(options, () =>
        write(async (run, log) => {
          const keys = keysOf(target);
          if (options.alter) await addPgColumns(run, dialect, target.table, [update], altered);
          const columns = Object.keys(update);
          const table = dialect.tableName(target.table);
          const keyParams = keyValues.map(param);
          if (!columns.length) {
            const found = await run(`select * from ${table} where ${where(keys, 0)}`, keyParams);
            return options.returning ? found.rows[0] ?? null : null;
          }
          const setValues = columns.map((c) => param(update[c]));
          const result = await updateOne(run, log, target, keys, columns, setValues, keyParams);
          return options.returning ? result.rows[0] ?? null : null;
        })),
    delete: (target, keyValues) =>
      write(async (run, log) => {
        const keys = keysOf(target);
        const table = dialect.tableName(target.table);
        const result = await run(
          `delete from ${table} where ${where(keys, 0)} returning *`,
          keyValues.map(param),
        );
        log?.change(target.table, keys, firstImage(result), null);
        return result.count;
      }),
    updateRows: (target, keyList, update, options) =>
      write(async (run, log) => {
        const keys = keysOf(target);
        const columns = Object.keys(update);
        const values = columns.map((c) => param(update[c]));
        const rows: ReturnedRow[] = [];
        for (const key of keyList) {
          await eachRow(target, key, async () => {
            const keyParams = key.map(param);
            const result = await updateOne(run, log, target, keys, columns, values, keyParams);
            if (!result.count) throw new RowWriteError("record not found");
            rows.push(...result.rows);
          });
        }
        return { count: keyList.length, rows: options.returning ? rows : null };
      }),
    deleteRows: (target, keyList) =>
      write(async (run, log) => {
        const keys = keysOf(target);
        const sql = `delete from ${dialect.tableName(target.table)} where ${
          where(keys, 0)
        } returning *`;
        let count = 0;
        for (const key of keyList) {
          await eachRow(target, key, async () => {
            const result = await run(sql, key.map(param));
            if (!result.count) throw new RowWriteError("record not found");
            log?.change(target.table, keys, firstImage(result), null);
            count += result.count;
          });
        }
        return count;
      }),
    statements: async (sql: string, params: BindParams | undefined, { dryRun = false }) => {
      // Arbitrary SQL: which rows it changed is not known here, so it is not recorded.
      const result = await transaction(
        (run) => rolledBackIf(dryRun, run, () => runPgStatements(run, sql, params)),
        scope,
      );
      if (result.schemaChanged && !dryRun) schemaChanged();
      const { schemaChanged: _, ...batch } = result;
      return batch;
    },
    statement: async (sql, params) => {
      // Arbitrary SQL, as `statements`: not recorded.
      const { rowcount } = await transaction(async (run) => {
        const statement = toPgStatement(sql, params);
        try {
          return { rowcount: (await run(statement.text, statement.values.map(pgParam))).count };
        } catch (error) {
          throw fail(error, sql, params);
        }
      }, scope);
      if (SCHEMA_SQL.test(sql)) schemaChanged();
      return { rowcount };
    },
    dropTable: async (table) => {
      await transaction(async (run) => {
        await run(`drop table ${dialect.tableName(table)}`, []);
      }, scope);
      schemaChanged();
    },
  };
}
