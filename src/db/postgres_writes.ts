/**
 * The write API's row writes (insert, upsert, update, delete) on a PostgreSQL database: each
 * call is one read-write transaction of the pool, its statements built with the dialect's
 * quoting and `$n` parameters, the rows written read back with `RETURNING *`. The same answers
 * as `row_writes.ts` gives on SQLite; the server's refusals become 400s (bad data, a broken
 * constraint) or 403s (the role may not write), with the server's message. The bulk calls
 * (`updateRows`, `deleteRows`) are one transaction for all their rows, and the first row that
 * fails (missing, or refused by the server) undoes them all, its error naming the row by its key,
 * as `row_bulk.ts` does on SQLite. `statements` is `/-/execute-write`'s batch
 * (`postgres_statements.ts`), its dry run thrown out of the transaction so that it rolls back.
 *
 * @module
 */

import type { BindParams, SqlValue } from "../sqlite/values.ts";
import { StatusError } from "../util/errors.ts";
import type { SqlDialect } from "./dialect.ts";
import type { KeyedTable, ReturnedRow } from "./row_writes.ts";
import type { RowWrites } from "./engine.ts";
import { keyText } from "./row_bulk.ts";
import { addPgColumns } from "./postgres_columns.ts";
import { type PgBatchResult, runPgStatements } from "./postgres_statements.ts";
import { bindable, RowWriteError, type WriteRow } from "./write_values.ts";

/**
 * Runs one statement of the transaction: its rows as objects, how many it changed, and its
 * command tag (`INSERT`, `CREATE TABLE`…).
 */
export type PgWriteRun = (
  text: string,
  values: unknown[],
) => Promise<
  { rows: Record<string, SqlValue>[]; values: SqlValue[][]; count: number; command: string }
>;

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

/** A dry run's outcome, thrown out of the transaction so that it rolls back. */
export class RolledBack<T = PgBatchResult> extends Error {
  /** Keeps the outcome to answer with. */
  constructor(readonly result: T) {
    super("dry run: rolled back");
  }
}

/**
 * Inserts `rows` into `target` with `run` (one statement each, `RETURNING *`): `ignore` skips a
 * row whose key is taken, `replace` overwrites it, `alter` first adds the columns the table lacks.
 */
export async function pgInsert(
  run: PgWriteRun,
  dialect: SqlDialect,
  target: KeyedTable,
  rows: readonly WriteRow[],
  options: { ignore?: boolean; replace?: boolean; alter?: boolean },
): Promise<ReturnedRow[]> {
  if (options.alter) await addPgColumns(run, dialect, target.table, rows);
  const q = (name: string) => dialect.quoteIdentifier(name);
  const returned: ReturnedRow[] = [];
  for (const row of rows) {
    let conflict = "";
    if (options.ignore) conflict = "on conflict do nothing";
    else if (options.replace && target.pks.length) {
      // SQLite's INSERT OR REPLACE: the whole row is the new one (unnamed columns too).
      const others = Object.keys(row).filter((c) => !target.pks.includes(c));
      const set = others.map((c) => `${q(c)} = excluded.${q(c)}`).join(", ");
      conflict = `on conflict (${target.pks.map(q).join(", ")}) ` +
        (set ? `do update set ${set}` : "do nothing");
    }
    const values = Object.values(row).map(param);
    returned.push(...(await run(insertSql(dialect, target.table, row, conflict), values)).rows);
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
 * `schemaChanged` is called once a committed write changed the schema.
 */
export function pgRowWrites(
  dialect: SqlDialect,
  transaction: <T>(fn: (run: PgWriteRun) => Promise<T>) => Promise<T>,
  schemaChanged: () => void,
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
  const keysOf = (target: KeyedTable) => {
    if (!target.pks.length) {
      throw new RowWriteError("This table has no primary key: its rows cannot be written here");
    }
    return [...target.pks];
  };
  return {
    insert: (target, rows, options) =>
      altering(options, () =>
        transaction(async (run) => {
          const returned = await pgInsert(run, dialect, target, rows, options);
          return options.returning ? returned : null;
        })),
    upsert: (target, rows, options) =>
      altering(options, () =>
        transaction(async (run) => {
          const keys = keysOf(target);
          if (options.alter) await addPgColumns(run, dialect, target.table, rows);
          const returned: ReturnedRow[] = [];
          for (const row of rows) {
            const others = Object.keys(row).filter((c) => !keys.includes(c));
            const set = others.map((c) => `${q(c)} = excluded.${q(c)}`).join(", ");
            // With nothing to set, `do update` sets a key to itself, so the row is returned.
            const action = set || `${q(keys[0])} = excluded.${q(keys[0])}`;
            const conflict = `on conflict (${keys.map(q).join(", ")}) do update set ${action}`;
            const values = Object.values(row).map(param);
            returned.push(
              ...(await run(insertSql(dialect, target.table, row, conflict), values)).rows,
            );
          }
          return options.returning ? returned : null;
        })),
    update: (target, keyValues, update, options) =>
      altering(options, () =>
        transaction(async (run) => {
          const keys = keysOf(target);
          if (options.alter) await addPgColumns(run, dialect, target.table, [update]);
          const columns = Object.keys(update);
          const table = dialect.tableName(target.table);
          const keyParams = keyValues.map(param);
          if (!columns.length) {
            const found = await run(`select * from ${table} where ${where(keys, 0)}`, keyParams);
            return options.returning ? found.rows[0] ?? null : null;
          }
          const set = columns.map((c, i) => `${q(c)} = $${i + 1}`).join(", ");
          const result = await run(
            `update ${table} set ${set} where ${where(keys, columns.length)} returning *`,
            [...columns.map((c) => param(update[c])), ...keyParams],
          );
          return options.returning ? result.rows[0] ?? null : null;
        })),
    delete: (target, keyValues) =>
      transaction(async (run) => {
        const keys = keysOf(target);
        const table = dialect.tableName(target.table);
        return (await run(`delete from ${table} where ${where(keys, 0)}`, keyValues.map(param)))
          .count;
      }),
    updateRows: (target, keyList, update, options) =>
      transaction(async (run) => {
        const keys = keysOf(target);
        const columns = Object.keys(update);
        const table = dialect.tableName(target.table);
        const set = columns.map((c, i) => `${q(c)} = $${i + 1}`).join(", ");
        const sql = `update ${table} set ${set} where ${where(keys, columns.length)} returning *`;
        const values = columns.map((c) => param(update[c]));
        const rows: ReturnedRow[] = [];
        for (const key of keyList) {
          await eachRow(target, key, async () => {
            const result = await run(sql, [...values, ...key.map(param)]);
            if (!result.count) throw new RowWriteError("record not found");
            rows.push(...result.rows);
          });
        }
        return { count: keyList.length, rows: options.returning ? rows : null };
      }),
    deleteRows: (target, keyList) =>
      transaction(async (run) => {
        const keys = keysOf(target);
        const sql = `delete from ${dialect.tableName(target.table)} where ${where(keys, 0)}`;
        let count = 0;
        for (const key of keyList) {
          await eachRow(target, key, async () => {
            const deleted = (await run(sql, key.map(param))).count;
            if (!deleted) throw new RowWriteError("record not found");
            count += deleted;
          });
        }
        return count;
      }),
    statements: async (sql: string, params: BindParams | undefined, { dryRun = false }) => {
      let result: PgBatchResult;
      try {
        result = await transaction(async (run) => {
          const done = await runPgStatements(run, sql, params);
          if (dryRun) throw new RolledBack(done);
          return done;
        });
      } catch (error) {
        if (!(error instanceof RolledBack)) throw error;
        result = error.result!;
      }
      if (result.schemaChanged && !dryRun) schemaChanged();
      const { schemaChanged: _, ...batch } = result;
      return batch;
    },
    dropTable: async (table) => {
      await transaction((run) => run(`drop table ${dialect.tableName(table)}`, []));
      schemaChanged();
    },
  };
}
