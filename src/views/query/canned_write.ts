/**
 * POST to a writable canned query (SPEC "Writable canned query POST", API-DETAILS §0 and §11).
 * The body is a JSON object or a form; the statement runs on the database's single write queue,
 * in one transaction, so a failure changes nothing. The answer is JSON (`Accept:
 * application/json`, `?_json=1` or `_json` in the body): 200 `{ok, message, redirect}` or 400 on
 * failure; otherwise a 302 with the message flashed.
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { checkJsonDepth, JsonTooDeep } from "../../util/json_depth.ts";
import { Response } from "../../http/response.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { Forbidden, HttpError } from "../../http/errors.ts";
import { prefersJson } from "../../http/negotiation.ts";
import type { CannedQueryDefinition } from "../../config/canned_query_catalog.ts";
import { cannedBindValues, queryParameters } from "./query_params.ts";
import { cacheHeaders } from "../../render/output_format.ts";
import { DatabaseBusy } from "../../db/write_lock.ts";
import { HistoryProtected } from "../../db/history/protect.ts";
import { needsOwnTransaction, writeOne } from "../../db/write_ops.ts";
import { runRowWrites, runWrite as wrappedWrite } from "../write/run_write.ts";
import { ExecuteWriteEvent } from "../../plugins/events.ts";

/** Runs the write and answers as JSON or with a redirect plus a flash message. */
export async function cannedWrite(
  svc: ViewHost,
  request: Request,
  db: Database,
  query: CannedQueryDefinition,
): Promise<Response> {
  if (!db.is_mutable) throw new Forbidden("Database is immutable");
  const body = await postedValues(request);
  const returnJson = request.url_vars.format === "json" ||
    prefersJson(request.headers["accept"]) ||
    Boolean(request.args.get("_json")) || Boolean(body._json);
  const messageSql = typeof query.on_success_message_sql === "string"
    ? query.on_success_message_sql
    : null;
  // One parameter list for both statements, so the message SQL gets the same (magic) values.
  const params = queryParameters(`${query.sql}\n${messageSql ?? ""}`, query.params);
  const outcome = await runWrite(svc, request, db, query, params, body, messageSql);
  if (returnJson) {
    const payload = { ok: outcome.ok, message: outcome.message, redirect: outcome.redirect };
    if (outcome.ok) return Response.json(payload, { headers: cacheHeaders(svc, request) });
    return Response.json({
      ...payload,
      error: outcome.message,
      errors: [outcome.message],
      status: 400,
    }, { status: 400 });
  }
  svc.add_message(request, outcome.message, outcome.type);
  const ownPath = String(svc.urls.query(db.name, query.name)) +
    (request.query_string ? `?${request.query_string}` : "");
  return Response.redirect(outcome.redirect ?? ownPath);
}

interface WriteOutcome {
  ok: boolean;
  message: string;
  type: number;
  redirect: string | null;
}

async function runWrite(
  svc: ViewHost,
  request: Request,
  db: Database,
  query: CannedQueryDefinition,
  params: ReturnType<typeof queryParameters>,
  body: Record<string, string | null>,
  messageSql: string | null,
): Promise<WriteOutcome> {
  const option = (key: string) => typeof query[key] === "string" ? query[key] as string : null;
  let bound: Record<string, unknown>;
  let rowcount: number;
  try {
    bound = cannedBindValues(params, body, request, svc.registered.magicParameters);
    const sql = String(query.sql);
    if (db.engine === "sqlite") {
      // Through the write_wrapper hooks, in a transaction unless the statement needs its own.
      rowcount = (await wrappedWrite(svc, request, db, (conn) =>
        writeOne(conn, sql, bound as never), {
        transaction: !needsOwnTransaction(sql),
      })).rowcount;
    } else {
      // Other engines run it in a transaction of their own, inside the same hooks.
      rowcount = (await runRowWrites(
        svc,
        request,
        db,
        (writes) => writes.statement(sql, bound as never),
      )).rowcount;
    }
    await svc.track_event(
      new ExecuteWriteEvent({
        actor: request.actor,
        database: db.name,
        query_name: query.name,
        rowcount,
      }),
    );
  } catch (error) {
    // A busy or read-only file (another process's lock, a LiteFS replica) is a 503 to retry,
    // and a write to Vitrine's own history a 403 whatever the query says: neither is a failure
    // of this query to report as its message.
    if (error instanceof HttpError || error instanceof DatabaseBusy) throw error;
    if (error instanceof HistoryProtected) throw error;
    const text = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      message: option("on_error_message") ?? text,
      type: svc.ERROR,
      redirect: option("on_error_redirect"),
    };
  }
  let message = option("on_success_message") ?? defaultMessage(rowcount);
  let type = svc.INFO;
  if (messageSql !== null) {
    try {
      const results = await db.execute(messageSql, bound as never, { log_sql_errors: false });
      message = String(results.rows[0]?.[0] ?? "");
    } catch (error) {
      message = `Error running on_success_message_sql: ${
        error instanceof Error ? error.message : String(error)
      }`;
      type = svc.ERROR;
    }
  }
  return { ok: true, message, type, redirect: option("on_success_redirect") };
}

/** "Query executed, 1 row affected" / "…, 3 rows affected" / "Query executed". */
function defaultMessage(rowcount: number): string {
  if (rowcount < 0) return "Query executed";
  return `Query executed, ${rowcount} row${rowcount === 1 ? "" : "s"} affected`;
}

/**
 * The submitted values: a body that looks like a JSON object is one (values stringified, null
 * kept as NULL), anything else is form-encoded with blank values kept. The CSRF token is not a
 * parameter.
 */
async function postedValues(request: Request): Promise<Record<string, string | null>> {
  const text = new TextDecoder().decode(await request.post_body()).trim();
  const values: Record<string, string | null> = {};
  if (text.startsWith("[") || (request.headers["content-type"] ?? "").includes("json")) {
    if (!(text.startsWith("{") && text.endsWith("}"))) {
      throw new HttpError(400, "A JSON body must be an object of parameter names to values");
    }
  }
  if (text.startsWith("{") && text.endsWith("}")) {
    let parsed: unknown;
    try {
      checkJsonDepth(text, request.max_json_depth);
      parsed = JSON.parse(text);
    } catch (error) {
      if (error instanceof JsonTooDeep) throw new HttpError(400, error.message);
      throw new HttpError(400, "Invalid JSON body");
    }
    for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
      values[key] = value === null
        ? null
        : typeof value === "object"
        ? JSON.stringify(value)
        : String(value);
    }
  } else {
    for (const [key, value] of new URLSearchParams(text)) values[key] = value;
  }
  delete values.csrftoken;
  return values;
}
