/**
 * `/-/execute-write`'s batch on a PostgreSQL database: the script is split at the `;`s outside
 * literals, comments and dollar-quoted bodies (`postgres_params.ts`), and each statement runs on
 * its own through the extended protocol (its `:name` parameters bound as `$n`), all inside the
 * one transaction the caller opened. The answer has the shape `write_statements.ts` gives on
 * SQLite: each statement's text and the rows it inserted, changed or deleted, the rows returned;
 * a failing statement is named by its number and text and the caller's transaction rolls back.
 *
 * @module
 */

import type { BindParams } from "../sqlite/values.ts";
import { splitPgStatements, toPgStatement } from "./postgres_params.ts";
import { pgParam } from "./postgres_values.ts";
import { type BatchResult, NOTHING_WRITTEN, StatementError } from "./write_statements.ts";
import { RowWriteError } from "./write_values.ts";
import type { PgWriteRun } from "./postgres_writes.ts";
import { ownsSession } from "./postgres_connection.ts";

/** SQLSTATE insufficient_privilege. */
const INSUFFICIENT_PRIVILEGE = "42501";
/** Command tags whose count is rows written; others (`SELECT`, `CREATE TABLE`…) count 0. */
const ROW_COMMANDS = new Set(["INSERT", "UPDATE", "DELETE", "MERGE"]);
/** Command tags that write nothing. */
const READ_COMMANDS = new Set(["SELECT", "SHOW", "EXPLAIN", "FETCH"]);
/** Command tags that change the schema, so the introspection is read again. */
const SCHEMA_COMMAND = /^(?:CREATE|ALTER|DROP|COMMENT|GRANT|REVOKE)\b/;

/** What {@link runPgStatements} did, and whether a statement changed the schema. */
export interface PgBatchResult extends BatchResult {
  schemaChanged: boolean;
}

/** Runs every statement of `sql` through `run`, in order; throws on the first failure. */
export async function runPgStatements(
  run: PgWriteRun,
  sql: string,
  params: BindParams | undefined,
  { maxRows = 10 }: { maxRows?: number } = {},
): Promise<PgBatchResult> {
  const result: PgBatchResult = {
    statements: [],
    rowcount: 0,
    last_row_id: null,
    columns: [],
    rows: [],
    truncated: false,
    schemaChanged: false,
  };
  let wrote = false;
  for (const [index, text] of splitPgStatements(sql).entries()) {
    const number = index + 1;
    if (ownsSession(text)) {
      throw new StatementError(
        number,
        text,
        "transaction control, SET, RESET, DISCARD and VACUUM cannot run inside the batch's transaction",
      );
    }
    const statement = toPgStatement(text.replace(/;$/, ""), params ?? null);
    let done;
    try {
      done = await run(statement.text, statement.values.map(pgParam));
    } catch (error) {
      throw failure(number, text, error);
    }
    wrote ||= !READ_COMMANDS.has(done.command);
    result.schemaChanged ||= SCHEMA_COMMAND.test(done.command);
    for (const row of done.values) {
      if (result.rows.length >= maxRows) {
        result.truncated = true;
        continue;
      }
      if (!result.rows.length) result.columns = done.columns.map((column) => column.name);
      result.rows.push(row);
    }
    const rowcount = ROW_COMMANDS.has(done.command) ? done.count : 0;
    result.statements.push({ sql: text, rowcount });
    result.rowcount += rowcount;
  }
  if (!result.statements.length) throw new RowWriteError("No SQL to run");
  if (!wrote) throw new RowWriteError(NOTHING_WRITTEN);
  // A `set_config(…, false)` would outlive the transaction on the pooled connection.
  await run("reset all", []);
  return result;
}

/**
 * The server's refusal of statement `number`, naming it; a missing privilege is left as it is,
 * for the transaction to answer 403 with the server's message as for the other writes.
 */
function failure(number: number, text: string, error: unknown): unknown {
  const code = (error as { code?: unknown }).code;
  if (typeof code !== "string" || code === INSUFFICIENT_PRIVILEGE) return error;
  return new StatementError(number, text, (error as Error).message, { cause: error });
}
