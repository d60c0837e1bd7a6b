/**
 * The error page Vitrine answers with when no plugin replaces it: a JSON body for JSON requests
 * (URLs ending `.json`, requests that accept or send `application/json`), else the `<status>.html`
 * or `error.html` template. Every error with a status extends `StatusError` (`src/util/errors.ts`)
 * and keeps its status, title and headers here; anything else is a 500 whose message never
 * includes a server file path (the operator's log has the whole error).
 *
 * Core's `forbidden` and `handle_exception` implementations (`src/plugins/defaults/error_pages.ts`)
 * and the pipeline's error handling (`src/app/error_response.ts`) all answer through `errorPage`.
 *
 * @module
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { DatabaseNotFound, RowNotFound, TableNotFound } from "../../http/errors.ts";
import { StatusError } from "../../util/errors.ts";
import { sendsJson, wantsJson } from "../../http/negotiation.ts";
import { renderPage } from "../../render/render_page.ts";

/** What an error means to the client. */
interface ErrorInfo {
  status: number;
  message: string;
  title: string | null;
  headers: Record<string, string>;
  /** Extra keys for the JSON body (e.g. a writable query's `redirect`). */
  extra?: Record<string, unknown>;
  /** A fuller message for the HTML page (the JSON keeps the reference's short one). */
  htmlMessage?: string;
  /** How to put the request right (HTML page only). */
  hint?: { text: string; href?: string } | null;
}

/** The status a thrown value is answered with: its own, or 500 for anything unexpected. */
export function statusOf(error: unknown): number {
  return error instanceof StatusError ? error.status : 500;
}

/** The message a thrown value is shown with (file paths removed from unexpected errors). */
export function messageOf(error: unknown): string {
  return describe(error).message;
}

/** The default response for `error` thrown while answering `request`. */
export async function errorPage(
  svc: ViewHost,
  request: Request,
  error: unknown,
): Promise<Response> {
  const { status, message, title, headers, extra = {}, htmlMessage, hint } = describe(
    error,
    request.path,
  );
  if (wantsJson(request) || sendsJson(request)) {
    return Response.json(
      { ok: false, error: message, errors: [message], status, title, ...extra },
      { status, headers },
    );
  }
  const place = await errorPlace(svc, request, error);
  try {
    return await renderPage(svc, request, [`${status}.html`, "error.html"], {
      status,
      error: htmlMessage ?? message,
      // The reference titles its 403 page "Forbidden" (the JSON body keeps `title` as given).
      title: title ?? (status === 403 ? "Forbidden" : null),
      hint: hint ?? null,
    }, {
      view_name: "error",
      status,
      headers,
      database: place.database,
      table: place.table,
    });
  } catch (renderError) {
    // A broken error template must not hide the original error.
    console.error(renderError);
    return Response.text(`${status}: ${message}`, { status, headers });
  }
}

/** `keep`: text shown as it is even where it looks like a file path (the page's own path). */
function describe(error: unknown, keep = ""): ErrorInfo {
  if (error instanceof StatusError) {
    return {
      status: error.status,
      message: error.status >= 500 ? withoutFilePaths(error.message, keep) : error.message,
      title: error.title,
      headers: error.headers,
      extra: error.extra,
      htmlMessage: namedNotFound(error),
      hint: error.hint,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { status: 500, message: withoutFilePaths(message, keep), title: null, headers: {} };
}

// Absolute file paths and file: URLs, as Deno, SQLite and template errors quote them. URLs such as
// `http://host/a/b` are left alone: the lookbehind rejects a slash that follows `:`, `/` or a name.
const FILE_PATHS = [
  /\bfile:\/\/[^\s'"`)]*/g,
  /(?<![\w.~/:\\-])\/(?:[\w.@+~-]+\/)+[\w.@+~-]*/g,
  /\b[A-Za-z]:\\[^\s'"`)]*/g,
];

/**
 * An unexpected error's message without the server's file paths: the message (`str(exception)`)
 * helps whoever reads the page, but where Vitrine, its plugins and its databases live on disk is
 * for the operator's log, which gets the whole error.
 */
function withoutFilePaths(message: string, keep = ""): string {
  const strip = (text: string) =>
    FILE_PATHS.reduce((out, pattern) => out.replace(pattern, "[path]"), text);
  // The URL path the visitor asked for is theirs, not the server's ("The plugin view for /-/x
  // did not answer"): it stays.
  if (keep.length < 2) return strip(message);
  return message.split(keep).map(strip).join(keep);
}

/** "Table not found: nope" — people reading the page want to know which name was wrong. */
function namedNotFound(error: StatusError): string | undefined {
  if (error instanceof RowNotFound) {
    return `${error.message}: ${error.pk_values.join(", ")} in ${error.table}`;
  }
  if (error instanceof TableNotFound) return `${error.message}: ${error.table}`;
  if (error instanceof DatabaseNotFound) return `${error.message}: ${error.database_name}`;
  return undefined;
}

/**
 * Where the failed request was, as far as it exists: a missing table still belongs to its
 * database, a missing row to its table, and a bad request on a table page to that table. The
 * error page's breadcrumbs lead back there.
 */
async function errorPlace(
  svc: ViewHost,
  request: Request,
  error: unknown,
): Promise<{ database: string | null; table: string | null }> {
  if (error instanceof DatabaseNotFound) return { database: null, table: null };
  if (error instanceof TableNotFound) return { database: error.database_name, table: null };
  if (error instanceof RowNotFound) return { database: error.database_name, table: error.table };
  if (!request.url_vars?.database) return { database: null, table: null };
  try {
    if (request.url_vars.table) {
      const { db, table } = await svc.resolve_table(request);
      return { database: db.name, table };
    }
    return { database: svc.resolve_database(request).name, table: null };
  } catch {
    return { database: null, table: null };
  }
}
