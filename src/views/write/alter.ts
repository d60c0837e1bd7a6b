/**
 * `POST /<db>/<table>/-/alter`: the reference's `{"operations": [{"op": ..., "args": {...}}]}`
 * for actors holding `alter-table` on the table. With `"dry_run": true` the change is made and
 * checked, then rolled back, so a client (or a preview page) sees the resulting schema and every
 * statement before applying it. The `alter-table` and `rename-table` events come from the core
 * `write_wrapper`, which compares the schema around every write.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { BadRequest } from "../../http/errors.ts";
import { Response } from "../../http/response.ts";
import type { AlterOperation } from "../../db/alter_plan.ts";
import { type AlterResult, alterTable } from "../../db/table_rebuild.ts";
import { AlterTableEvent, RenameTableEvent } from "../../plugins/events.ts";
import { isObject, jsonObjectBody } from "./body.ts";
import { requireActions, requireMutable, requireVisible, targetTable } from "./target.ts";
import { flash, runTableWrites, runWrite } from "./run_write.ts";

function operationsOf(data: Record<string, unknown>): AlterOperation[] {
  const operations = data.operations;
  if (!Array.isArray(operations) || !operations.length) {
    throw new BadRequest('"operations" must be a list of one or more operations');
  }
  return operations.map((operation, i) => {
    if (!isObject(operation) || typeof operation.op !== "string") {
      throw new BadRequest(`Operation ${i + 1} must be an object with an "op" string`);
    }
    const args = operation.args ?? {};
    if (!isObject(args)) throw new BadRequest(`Operation ${i + 1}: "args" must be an object`);
    return { op: operation.op, args };
  });
}

/**
 * The `alter-table` or `rename-table` event of an alter on an engine whose writes the core
 * `write_wrapper` does not see (it compares SQLite's schema): a renamed table is `rename-table`
 * only, as there.
 */
async function trackAlter(
  svc: ViewHost,
  request: Request,
  database: string,
  table: string,
  result: AlterResult,
): Promise<void> {
  const { actor } = request;
  if (result.table !== table) {
    await svc.track_event(
      new RenameTableEvent({ actor, database, old_table: table, new_table: result.table }),
    );
  } else if (result.schema !== result.before_schema) {
    await svc.track_event(
      new AlterTableEvent({
        actor,
        database,
        table,
        before_schema: result.before_schema,
        after_schema: result.schema,
      }),
    );
  }
}

/** `/-/alter`: 200 with the schema before and after and the statements run. */
export async function alterTableView(svc: ViewHost, request: Request): Promise<Response> {
  const { db, table } = await targetTable(svc, request);
  await requireVisible(svc, request.actor, db.name, table);
  await requireActions(svc, request, ["alter-table"], db.name, table);
  requireMutable(db);
  const data = await jsonObjectBody(request);
  const operations = operationsOf(data);
  const apply = data.dry_run !== true;
  const result = db.table_writes
    ? await runTableWrites(
      svc,
      request,
      db,
      (writes) => writes.alter(table, operations, { dryRun: !apply }),
    )
    : await runWrite(
      svc,
      request,
      db,
      (conn) => alterTable(conn, table, operations, { apply, inTransaction: apply }),
      // A schema change, not a change of rows: a rebuild copies every row into a new table,
      // which the history must not watch row by row. Applied, in the write's transaction (the
      // wrappers may still refuse it); a preview rolls back a transaction of its own.
      { transaction: false, history: false, foreignKeysOff: apply },
    );
  if (apply && db.table_writes) await trackAlter(svc, request, db.name, table, result);
  if (apply) {
    await svc.refresh_catalog();
    flash(svc, request, `Table ${result.table} altered`);
  }
  return Response.json({
    ok: true,
    database: db.name,
    table: result.table,
    table_url: svc.absolute_url(request, String(svc.urls.table(db.name, result.table))),
    table_api_url: svc.absolute_url(
      request,
      String(svc.urls.table(db.name, result.table, { format: "json" })),
    ),
    altered: apply,
    dry_run: !apply,
    schema: result.schema,
    before_schema: result.before_schema,
    operations_applied: apply ? operations.length : 0,
    statements: result.statements,
    ...(result.changed_values ? { changed_values: result.changed_values } : {}),
  });
}
