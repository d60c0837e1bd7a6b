/**
 * Custom SQL: `/<db>?sql=` (the spec's form, answered directly) and its alias
 * `/<db>/-/query?sql=`. Needs `execute-sql`; only read-only statements pass validation, and they
 * run on read-only connections, so typed SQL can never write. Named `:parameters` become form
 * fields and URL arguments; magic `_` parameters are never filled here. Like a canned query, the
 * HTML page runs the SQL once every parameter is in the URL (an empty value counts); until then
 * it shows the form to fill in, not an empty result.
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { BadRequest } from "../../http/errors.ts";
import { QueryInterrupted } from "../../db/errors.ts";
import { InvalidSql, validateSqlSelect } from "../../util/sql.ts";
import {
  ensureKnownFormat,
  formatLinks,
  respondWithRows,
  wantsHtml,
} from "../../render/output_format.ts";
import { customSqlBindValues, formValues, queryParameters } from "./query_params.ts";
import { interruptedOutcome, type QueryOutcome, runReadQuery } from "./query_run.ts";
import { nextPageUrl, queryPageExtras, queryRowsPage } from "./query_rows.ts";
import { renderQueryPage } from "./query_page.ts";
import { ensureSqlTablesVisible } from "../../auth/sql_access.ts";
import { describingMetadata } from "./query_json.ts";
import { queryBlobUrls } from "./query_blobs.ts";
import { queryBlobResponse } from "./query_blob.ts";
import { mayStoreQuery } from "./stored_access.ts";

/** GET `/<db>/-/query(.fmt)?sql=`. */
export async function queryView(svc: ViewHost, request: Request): Promise<Response> {
  return await customSqlView(svc, request);
}

/** The custom SQL page for the request's database and `sql` argument. */
export async function customSqlView(svc: ViewHost, request: Request): Promise<Response> {
  const db = svc.resolve_database(request);
  await svc.ensure_permissions(request.actor, [["view-database", db.name], "view-instance"]);
  await svc.ensure_permissions(request.actor, [["execute-sql", db.name]]);
  const [, isPrivate] = await svc.check_visibility(request.actor, {
    action: "view-database",
    resource: db.name,
  });
  ensureKnownFormat(svc, request, ["blob"]);
  const sql = (request.args.get("sql") ?? "").trim();
  const params = queryParameters(sql);
  const values = formValues(params.form, request.args);
  const started = performance.now();
  let bound: Record<string, unknown> = {};
  const store_query_url = sql && await mayStoreQuery(svc, request.actor, db)
    ? `${svc.urls.database(db.name)}/-/queries/store?${new URLSearchParams({ sql })}`
    : null;
  // Write mode: actors who may run write SQL here get "Run as write…" (static/execute-write.js).
  const execute_write_url = db.is_mutable &&
      await svc.permission_allowed(request.actor, "execute-write-sql", db.name)
    ? `${svc.urls.database(db.name)}/-/execute-write`
    : null;
  const page = (outcome: QueryOutcome | null, renderers: Record<string, string>, status = 200) =>
    renderQueryPage(svc, request, db, {
      sql,
      canned_query: null,
      canned_write: false,
      editable: true,
      hide_sql: false,
      form_action: String(svc.urls.database(db.name)),
      named_parameter_values: values,
      params: bound,
      outcome,
      renderers,
      private: isPrivate,
      query_ms: performance.now() - started,
      next_url: nextPageUrl(svc, request, outcome),
      store_query_url,
      execute_write_url,
    }, { status });
  if (!sql) {
    // An empty editor is a fine HTML page; an API client sent nothing to run.
    if (wantsHtml(request)) return await page(null, {});
    throw new BadRequest("?sql= is required");
  }
  try {
    validateSqlSelect(sql);
  } catch (error) {
    // A person who typed `selec` or a PRAGMA gets the editor back with the message above it;
    // API clients get the "Invalid SQL" error body of examples 41 and 42.
    if (error instanceof InvalidSql && wantsHtml(request)) {
      return await page({ columns: [], rows: [], truncated: false, error: error.message }, {}, 400);
    }
    throw error;
  }
  await ensureSqlTablesVisible(svc, request.actor, db, sql);
  if (wantsHtml(request) && !params.form.every((name) => request.args.get(name) !== null)) {
    return await page(null, {});
  }
  bound = customSqlBindValues(params, values);
  let outcome: QueryOutcome;
  try {
    outcome = await runReadQuery(db, sql, bound, request, svc.registered.renderers);
  } catch (error) {
    // JSON clients get the handler's 400 "SQL Interrupted"; people get their SQL back to edit.
    if (error instanceof QueryInterrupted && wantsHtml(request)) {
      return await page(interruptedOutcome(error), {}, 400);
    }
    throw error;
  }
  if (request.url_vars?.format === "blob") return queryBlobResponse(request, outcome);
  const rowsPage = queryRowsPage(outcome, {
    database: db.name,
    query_name: null,
    sql,
    params: bound,
    private: isPrivate,
    cache: false,
    next_url: nextPageUrl(svc, request, outcome),
    metadata: () => describingMetadata(svc.metadata().database(db.name)),
    pageExtras: queryPageExtras(svc, request, db, outcome),
  });
  rowsPage.blobUrls = queryBlobUrls(svc, db, sql, outcome.columns);
  return await respondWithRows(svc, request, rowsPage, async () => {
    const ok = outcome.error === null;
    const links = ok ? await formatLinks(svc, request, rowsPage) : {};
    return await page(outcome, links, ok ? 200 : 400);
  });
}
