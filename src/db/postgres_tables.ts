/**
 * Creating and altering tables on PostgreSQL (`DatabaseEngine.table_writes`): `/-/create` from
 * `columns`, example rows or pasted CSV, with foreign keys, and its rows inserted (into a new
 * table, or one that exists, adding missing columns with `alter`); `/-/alter` in place
 * (`postgres_alter.ts`). Each call is one read-write transaction, so a failed create leaves no
 * table and a failed alter leaves the table as it was; a dry run does it all and rolls back.
 * Types and defaults become PostgreSQL's in `postgres_ddl.ts`.
 *
 * @module
 */

import type { TableWrites, WriteScope } from "./engine.ts";
import type { SqlDialect } from "./dialect.ts";
import {
  pgInsert,
  type PgTransaction,
  type PgWriteRun,
  rolledBackIf,
  serverRefusal,
} from "./postgres_writes.ts";
import { definition, type PgRunner } from "./postgres_introspect.ts";
import { type AlteredTable, catalogOf, relationIn, tableKeys } from "./postgres_columns.ts";
import { pgColumns, pgCreateOptions } from "./postgres_ddl.ts";
import { pgAlterTable } from "./postgres_alter.ts";
import { generatedColumns, PgChangeLog } from "./postgres_history.ts";
import {
  columnsForRows,
  type CreateTableResult,
  type CreateTableSpec,
  createTableSql,
  type ForeignKeySpec,
} from "./table_writes.ts";
import { RowWriteError } from "./write_values.ts";
import { StatusError } from "../util/errors.ts";

/** SQLSTATE lock_not_available: `lock_timeout` ran out. */
const LOCK_NOT_AVAILABLE = "55P03";

/**
 * Table writes over `transaction` (one read-write transaction per call, inside `scope` when
 * there is one: the write_wrapper hooks) for the tables of `schemas`; `catalog` reads the
 * committed catalogs (for the pages' choices); `schemaChanged` is called once a committed write
 * changed the schema.
 */
export function pgTableWrites(
  dialect: SqlDialect,
  schemas: readonly string[],
  transaction: PgTransaction,
  catalog: PgRunner,
  schemaChanged: () => void,
  lockTimeoutMs: () => number | null,
  scope: WriteScope | null = null,
): TableWrites {
  /**
   * `body` in a transaction; a dry run is undone by a savepoint (the write itself ends well).
   * With a recording scope (and no dry run), `log` notes the rows `body` inserts for the history.
   */
  async function once<T>(
    dryRun: boolean,
    body: (run: PgWriteRun, log: PgChangeLog | null, altered?: AlteredTable) => Promise<T>,
  ): Promise<T> {
    let result: T;
    try {
      result = await transaction(
        (run) =>
          rolledBackIf(dryRun, run, async () => {
            // ALTER TABLE waits for every reader of the table (an export may read for minutes),
            // and while it waits, every new reader waits behind it: a page would hang. Give up
            // instead.
            const wait = lockTimeoutMs();
            if (wait !== null) await run(`set local lock_timeout = ${Math.ceil(wait)}`, []);
            const log = scope?.record && !dryRun ? new PgChangeLog() : null;
            // A dry run changes nothing, so it sends no `alter-table` either.
            const altered: AlteredTable | undefined = scope?.altered && !dryRun
              ? (table, before, after) => scope.altered!(table, before, after)
              : undefined;
            const done = await body(run, log, altered);
            if (log) {
              scope!.record!(
                await log.records((table) => generatedColumns(run, dialect.tableName(table))),
              );
            }
            return done;
          }),
        scope,
      );
    } catch (error) {
      throw explained(error);
    }
    if (!dryRun) schemaChanged();
    return result;
  }
  return {
    within: (inner) =>
      pgTableWrites(dialect, schemas, transaction, catalog, schemaChanged, lockTimeoutMs, inner),
    create: (spec, { dryRun = false }) =>
      once(dryRun, (run, log, altered) => createIn(run, dialect, schemas, spec, log, altered)),
    alter: (table, operations, { dryRun = false }) =>
      once(dryRun, (run) => pgAlterTable(run, dialect, schemas, table, operations)),
    keyColumns: async () => {
      const keys: Record<string, string[]> = {};
      for (const [table, { keys: columns }] of await tableKeys(catalog, schemas)) {
        if (columns.length) keys[table] = columns;
      }
      return keys;
    },
  };
}

/**
 * The server's refusal as a 400 (403 for privileges), with its detail when it has one: "cannot
 * drop column weight … because other objects depend on it" says which (view heavy…) only there.
 */
function explained(error: unknown): unknown {
  if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE) {
    return new StatusError(
      503,
      "The table is in use (a query or export is reading or writing it): try again later",
      { title: "Table busy", cause: error },
    );
  }
  const refusal = serverRefusal(error);
  const { detail } = ((error as Error).cause ?? error) as { detail?: unknown };
  if (!(refusal instanceof RowWriteError) || typeof detail !== "string" || !detail) return refusal;
  return new RowWriteError(`${refusal.message} (${detail.replace(/\.$/, "")})`, { cause: error });
}

/** `table_writes.ts`'s `createTable`, in PostgreSQL's SQL. */
async function createIn(
  run: PgWriteRun,
  dialect: SqlDialect,
  schemas: readonly string[],
  spec: CreateTableSpec,
  log: PgChangeLog | null,
  altered?: AlteredTable,
): Promise<CreateTableResult> {
  const existing = await relationIn(run, dialect, spec.table);
  let statement: string | null = null;
  if (existing === null) {
    const columns = spec.columns ?? columnsForRows(spec.rows ?? []);
    const foreignKeys = await foreignKeysOf(run, schemas, spec);
    statement = createTableSql(
      spec.table,
      pgColumns(columns),
      spec.pks,
      foreignKeys,
      pgCreateOptions(dialect),
    );
    await run(statement, []);
  }
  const target = { table: spec.table, pks: spec.pks };
  const rows = spec.rows
    ? await pgInsert(
      run,
      dialect,
      target,
      spec.rows,
      {
        ignore: spec.ignore,
        replace: spec.replace,
        alter: existing !== null && spec.alter,
      },
      log,
      altered,
    )
    : null;
  // A new table's schema is the statement run (PostgreSQL keeps no text of it); one that
  // existed is read back from the catalogs, with any column `alter` added.
  const schema = existing === null ? statement! : await definition(catalogOf(run), existing);
  return { schema, created: existing === null, rows, statement };
}

/**
 * The new table's foreign keys, each pointing at a column: the one named, else the other
 * table's single primary key column. Checked as on SQLite, with its messages: the other table
 * and column exist, and the column is its primary key or unique (a key to the new table itself
 * is left to PostgreSQL, which checks it as it creates the table).
 */
async function foreignKeysOf(
  run: PgWriteRun,
  schemas: readonly string[],
  spec: CreateTableSpec,
): Promise<ForeignKeySpec[]> {
  if (!spec.foreignKeys?.length) return [];
  const tables = await tableKeys(catalogOf(run), schemas);
  return spec.foreignKeys.map((fk) => {
    const fail = (problem: string): never => {
      throw new RowWriteError(`Foreign key on ${fk.column}: ${problem}`);
    };
    const self = fk.table.toLowerCase() === spec.table.toLowerCase();
    const other = self ? null : tables.get(fk.table);
    if (!self && !other) fail(`there is no table ${fk.table}`);
    const pks = self ? spec.pks : other!.pks;
    let to = fk.to;
    if (to === null) {
      if (pks.length !== 1) fail(`${fk.table} has no single primary key column; name one`);
      to = pks[0];
    }
    if (other) {
      if (!other.columns.includes(to)) fail(`${fk.table} has no column ${to}`);
      if (!other.keys.includes(to)) fail(`${fk.table}.${to} is neither its primary key nor unique`);
    }
    return { column: fk.column, table: fk.table, to };
  });
}
