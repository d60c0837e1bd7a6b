/**
 * A canned query page `/<db>/<query>(.fmt)`. Read-only queries run with parameters from the
 * query string; in HTML a query with parameters runs once every one of them is in the URL (a
 * shared link such as `?species=Red+maple` shows its results; a bare link shows the empty form).
 * The form also sends `_run=1`, so a submitted form runs even when a field was left out. Writable
 * queries show their form on GET and run on POST (canned_write.ts). `allow` goes through
 * `view-query`.
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { HttpError, MethodNotAllowed } from "../../http/errors.ts";
import { QueryInterrupted } from "../../db/errors.ts";
import { pathWithReplacedArgs } from "../../render/url_helpers.ts";
import { isMagicParameter } from "../../util/sql.ts";
import type { CannedQueryDefinition } from "../../config/canned_query_catalog.ts";
import { MagicParameterError } from "./magic_parameters.ts";
import {
  allHaveDefaults,
  cannedBindValues,
  formValues,
  type QueryParameters,
  queryParameters,
} from "./query_params.ts";
import { interruptedOutcome, type QueryOutcome, runReadQuery } from "./query_run.ts";
import { nextPageUrl, queryPageExtras, queryRowsPage } from "./query_rows.ts";
import { renderQueryPage } from "./query_page.ts";
import {
  ensureKnownFormat,
  formatLinks,
  respondWithRows,
  wantsHtml,
} from "../../render/output_format.ts";
import { cannedWrite } from "./canned_write.ts";
import { parameterFields } from "./param_fields.ts";
import { queryBlobUrls } from "./query_blobs.ts";
import { queryBlobResponse } from "./query_blob.ts";
import { queryMetadataJson } from "./query_json.ts";
import { mayChangeStoredQuery } from "./stored_access.ts";

/** The hidden form field that marks a submitted canned-query form. */
export const RUN_FIELD = "_run";

/** GET (form / results) and POST (writable queries) for a canned query. */
export async function cannedQueryView(
  svc: ViewHost,
  request: Request,
  db: Database,
  query: CannedQueryDefinition,
): Promise<Response> {
  await ensureCannedQueryUsable(svc, request, db, query);
  const isWrite = Boolean(query.write);
  if (request.method === "POST") {
    if (!isWrite) {
      throw new MethodNotAllowed("Only writable canned queries accept POST", {
        allowed: ["GET", "HEAD"],
      });
    }
    return await cannedWrite(svc, request, db, query);
  }
  const [, hiddenFromAnonymous] = await svc.check_visibility(request.actor, {
    action: "view-query",
    resource: [db.name, query.name],
  });
  const isPrivate = hiddenFromAnonymous || Boolean(query.stored && query.is_private);
  ensureKnownFormat(svc, request, isWrite ? [] : ["blob"]);
  const params = queryParameters(query.sql, query.params);
  // A parameter left out of an explicit `params` list gets no field but still takes its value
  // from the query string, as it would with no list at all.
  const values = formValues(
    params.all.filter((name) => !isMagicParameter(name)),
    request.args,
    params,
  );
  const fieldValues = formValues(params.form, request.args, params);
  const html = wantsHtml(request);
  // A query whose every parameter has a default runs at once; otherwise the form waits.
  const submitted = request.args.get(RUN_FIELD) !== null || allHaveDefaults(params) ||
    params.form.every((name) => request.args.get(name) !== null);
  // Writable queries only run on POST; in HTML a query with fields waits for all its values.
  const run = !isWrite && (!html || submitted);
  const started = performance.now();
  const { outcome, bound, status } = run
    ? await runCannedRead(svc, request, db, query, params, values, html)
    : { outcome: null, bound: {}, status: 200 };
  // A BLOB cell's download (`query_blob.ts`); a read query always runs for it (not HTML).
  if (request.url_vars?.format === "blob" && outcome) return queryBlobResponse(request, outcome);
  const rowsPage = queryRowsPage(
    outcome ?? { columns: [], rows: [], truncated: false, error: null },
    {
      database: db.name,
      query_name: query.name,
      sql: query.sql,
      params: bound,
      private: isPrivate,
      // A stored query can change or be deleted at any moment: its results are not kept.
      cache: !query.stored,
      next_url: nextPageUrl(svc, request, outcome),
      metadata: () => queryMetadataJson(db.name, query),
      pageExtras: queryPageExtras(svc, request, db, outcome ?? { columns: [], rows: [] }),
    },
  );
  if (outcome) rowsPage.blobUrls = queryBlobUrls(svc, db, query.sql, outcome.columns);
  const page = async () =>
    await renderQueryPage(svc, request, db, {
      sql: query.sql,
      canned_query: query.name,
      canned_write: isWrite,
      editable: false,
      ...sqlVisibility(svc, request, db, query),
      edit_sql_url: isWrite ? undefined : await editSqlUrl(svc, request, db, query, values),
      form_action: String(svc.urls.query(db.name, query.name)),
      named_parameter_values: fieldValues,
      parameter_fields: await parameterFields(db, params, fieldValues),
      params: bound,
      outcome,
      metadata: queryMetadata(svc, db, query),
      renderers: outcome && status === 200 ? await formatLinks(svc, request, rowsPage) : {},
      private: isPrivate,
      query_ms: performance.now() - started,
      next_url: nextPageUrl(svc, request, outcome),
      ...(query.stored ? await storedQueryLinks(svc, request, db, query.name) : {}),
    }, { status });
  if (status !== 200 && html) return await page();
  return await respondWithRows(svc, request, rowsPage, page);
}

/** "Edit query" and "Delete query" on a stored query's page, for the actors who may. */
async function storedQueryLinks(
  svc: ViewHost,
  request: Request,
  db: Database,
  name: string,
): Promise<{ edit_query_url: string | null; delete_query_url: string | null }> {
  const stored = await svc.stored_queries.get(db.name, name);
  const url = String(svc.urls.query(db.name, name));
  const may = async (action: "update-query" | "delete-query") =>
    stored !== null && await mayChangeStoredQuery(svc, request.actor, stored, action);
  return {
    edit_query_url: await may("update-query") ? `${url}/-/edit` : null,
    delete_query_url: await may("delete-query") ? `${url}/-/delete` : null,
  };
}

/** Throws Forbidden unless the actor may view the query, and a 500 for a definition without SQL. */
async function ensureCannedQueryUsable(
  svc: ViewHost,
  request: Request,
  db: Database,
  query: CannedQueryDefinition,
): Promise<void> {
  await svc.ensure_permissions(request.actor, [
    ["view-query", [db.name, query.name]],
    ["view-database", db.name],
    "view-instance",
  ]);
  if (typeof query.sql !== "string") {
    // A metadata or plugin mistake: say which query and what is missing, not a TypeError.
    throw new HttpError(500, `Canned query "${query.name}" has no "sql" string in its definition`);
  }
}

/** A read-only canned query's run: its outcome, the values it bound and the page's status. */
interface CannedRead {
  outcome: QueryOutcome | null;
  bound: Record<string, unknown>;
  status: number;
}

/**
 * Runs a read-only canned query. A bad magic parameter becomes the page's error message, and a
 * time-out on an HTML page a 400 page with the query's form, instead of an error page.
 */
async function runCannedRead(
  svc: ViewHost,
  request: Request,
  db: Database,
  query: CannedQueryDefinition,
  params: QueryParameters,
  values: Record<string, string>,
  html: boolean,
): Promise<CannedRead> {
  let outcome: QueryOutcome;
  let bound: Record<string, unknown> = {};
  let status = 200;
  try {
    bound = cannedBindValues(params, values, request, svc.registered.magicParameters);
    // The owner's SQL (configuration or a plugin) may read any pragma; a stored query is a
    // visitor's, held to the rules of custom SQL.
    outcome = await runReadQuery(db, query.sql, bound, request, svc.registered.renderers, {
      owner_sql: !query.stored,
    });
  } catch (error) {
    if (error instanceof MagicParameterError) {
      outcome = { columns: [], rows: [], truncated: false, error: error.message };
    } else if (error instanceof QueryInterrupted && html) {
      outcome = interruptedOutcome(error);
      status = 400;
    } else throw error;
  }
  if (outcome.error) status = 400;
  return { outcome, bound, status };
}

/** `hide_sql` with its `_show_sql` / `_hide_sql` toggles, and the link that flips it. */
function sqlVisibility(
  svc: ViewHost,
  request: Request,
  db: Database,
  query: CannedQueryDefinition,
): { hide_sql: boolean; show_hide_link: string; sql_toggle_arg?: string } {
  const source = {
    path: String(svc.urls.query(db.name, query.name)),
    query_string: request.query_string,
  };
  // The GET form carries the toggle as a hidden field, so running the query keeps the choice.
  const toggle = query.hide_sql ? "_show_sql" : "_hide_sql";
  const on = Boolean(request.args.get(toggle));
  return {
    hide_sql: query.hide_sql ? !on : on,
    show_hide_link: pathWithReplacedArgs(source, { [toggle]: on ? null : 1 }),
    ...(on && !query.write ? { sql_toggle_arg: toggle } : {}),
  };
}

/**
 * "Edit SQL" opens the query as custom SQL with the current values, for actors who may run
 * SQL; never for queries with magic parameters, which typed SQL cannot fill.
 */
async function editSqlUrl(
  svc: ViewHost,
  request: Request,
  db: Database,
  query: CannedQueryDefinition,
  values: Record<string, string>,
): Promise<string | undefined> {
  if (queryParameters(query.sql).all.some(isMagicParameter)) return undefined;
  if (!(await svc.permission_allowed(request.actor, "execute-sql", db.name))) return undefined;
  const args = new URLSearchParams({ sql: query.sql, ...values });
  return `${svc.urls.database(db.name)}?${args}`;
}

/** The query's own title and descriptions, plus the licence/source inherited from above. */
function queryMetadata(
  svc: ViewHost,
  db: Database,
  query: CannedQueryDefinition,
): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...svc.metadata().display(db.name) };
  for (const key of ["title", "description", "description_html"]) {
    delete metadata[key];
    if (typeof query[key] === "string") metadata[key] = query[key];
  }
  return metadata;
}
