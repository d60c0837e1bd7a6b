/**
 * `POST /<db>/-/execute-write`: one or more write statements, sent as JSON (`{"sql": "...",
 * "params": {...}}`) or as a form (`sql=...`), run in one transaction for actors holding
 * `execute-write-sql` (denied unless granted, so never anonymous by default). The answer says
 * what each statement did; a failing statement rolls the whole batch back and is named by its
 * number and text. With `"dry_run": true` the batch runs and is rolled back, so a confirmation can
 * show each statement and the rows it would change. A form post is sent back to the database page with the outcome as a message.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { BadRequest } from "../../http/errors.ts";
import { Response } from "../../http/response.ts";
import { StatusError } from "../../util/errors.ts";
import { type BatchParams, runStatements } from "../../db/write_statements.ts";
import type { WriteConnection } from "../../db/row_writes.ts";
import { protectHistory } from "../../db/history/protect.ts";
import { ExecuteWriteEvent } from "../../plugins/events.ts";
import { isObject, jsonObjectBody } from "./body.ts";
import { requireActions, requireMutable, requireVisible, targetDatabase } from "./target.ts";
import { flash, rowsText, runRowWrites, runWrite } from "./run_write.ts";

/** The batch to run, from a JSON body or a form. */
interface Batch {
  sql: string;
  params: BatchParams | undefined;
  form: boolean;
  /** Run, report, then roll back: what a confirmation shows before the real run. */
  dryRun: boolean;
}

async function readBatch(request: Request): Promise<Batch> {
  const contentType = (request.headers["content-type"] ?? "").toLowerCase();
  if (contentType.startsWith("application/x-www-form-urlencoded")) {
    const { sql, csrftoken: _token, ...params } = await request.post_vars();
    if (!sql) throw new BadRequest('The form has no "sql" field');
    return {
      sql,
      params: Object.keys(params).length ? params : undefined,
      form: true,
      dryRun: false,
    };
  }
  const data = await jsonObjectBody(request);
  if (typeof data.sql !== "string" || !data.sql.trim()) {
    throw new BadRequest('"sql" must be a string of SQL');
  }
  if (data.params !== undefined && !isObject(data.params)) {
    throw new BadRequest('"params" must be an object of named parameters');
  }
  return {
    sql: data.sql,
    params: data.params as BatchParams | undefined,
    form: false,
    dryRun: data.dry_run === true,
  };
}

/**
 * Runs the batch inside a savepoint that is always rolled back, its writes to Vitrine's history
 * refused before the rollback as the real run would refuse them.
 */
function dryRun(conn: WriteConnection, batch: Batch) {
  conn.exec("SAVEPOINT vitrine_dry_run");
  try {
    return protectHistory(conn, () => runStatements(conn, batch.sql, batch.params));
  } finally {
    conn.exec("ROLLBACK TO vitrine_dry_run");
    conn.exec("RELEASE vitrine_dry_run");
  }
}

/** `/-/execute-write`: runs the batch and reports each statement's row count. */
export async function executeWriteView(svc: ViewHost, request: Request): Promise<Response> {
  const db = targetDatabase(svc, request);
  await requireVisible(svc, request.actor, db.name, null);
  await requireActions(svc, request, ["execute-write-sql"], db.name, null);
  requireMutable(db);
  const batch = await readBatch(request);
  let result;
  try {
    // PostgreSQL has no SQLite write connection: its own transaction (`postgres_statements.ts`).
    result = db.row_writes
      ? await runRowWrites(
        svc,
        request,
        db,
        (writes) => writes.statements(batch.sql, batch.params, { dryRun: batch.dryRun }),
      )
      : await runWrite(
        svc,
        request,
        db,
        (conn) => batch.dryRun ? dryRun(conn, batch) : runStatements(conn, batch.sql, batch.params),
      );
  } catch (error) {
    // A form's bad SQL is told on the page it came back to; anything else is a real error.
    if (!batch.form || !(error instanceof StatusError) || error.status !== 400) throw error;
    svc.add_message(request, error.message, svc.ERROR);
    return Response.redirect(String(svc.urls.database(db.name)));
  }
  const count = result.statements.length;
  if (batch.dryRun) {
    return Response.json({
      ok: true,
      dry_run: true,
      message: `${count === 1 ? "1 statement" : `${count} statements`} would run, ` +
        `changing ${rowsText(result.rowcount)}`,
      rowcount: result.rowcount,
      statements: result.statements,
    });
  }
  await svc.refresh_catalog();
  await svc.track_event(
    new ExecuteWriteEvent({
      actor: request.actor,
      database: db.name,
      query_name: null,
      rowcount: result.rowcount,
      sql: batch.sql,
    }),
  );
  const message = `${count === 1 ? "1 statement" : `${count} statements`} executed, ` +
    `${rowsText(result.rowcount)} affected`;
  if (batch.form) {
    svc.add_message(request, message, svc.INFO);
    return Response.redirect(String(svc.urls.database(db.name)));
  }
  flash(svc, request, message);
  return Response.json({
    ok: true,
    message,
    rowcount: result.rowcount,
    statements: result.statements,
    last_row_id: typeof result.last_row_id === "bigint"
      ? String(result.last_row_id)
      : result.last_row_id,
    rows: result.rows.map((row) =>
      Object.fromEntries(result.columns.map((column, i) => [column, row[i]]))
    ),
    truncated: result.truncated,
  });
}
