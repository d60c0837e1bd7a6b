/**
 * The one place an error becomes a response. Every error with a status extends `StatusError`
 * (`src/util/errors.ts`: HTTP errors, table argument errors, invalid SQL, the data layer's
 * `DatabaseError`s such as a 400 "SQL Interrupted") and keeps its status, title and headers; a
 * 403 first asks the `forbidden` hooks; anything unexpected (a 500) asks `handle_exception`
 * hooks, then becomes a 500 whose message never includes a stack trace or a server file path.
 * JSON URLs (and requests that accept or send `application/json`) get a JSON body, everything
 * else an HTML page.
 */
import type { AppHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { DatabaseNotFound, RowNotFound, TableNotFound } from "../http/errors.ts";
import { StatusError } from "../util/errors.ts";
import { sendsJson, wantsJson } from "../http/negotiation.ts";
import { renderPage } from "../render/render_page.ts";

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
  /** The database and table the failed page belongs to, for the breadcrumbs. */
  place?: { database: string | null; table: string | null };
}

/** Converts any thrown value into the response the client should see. */
export async function handleError(
  svc: AppHost,
  request: Request,
  error: unknown,
): Promise<Response> {
  const info = { ...describe(error), place: await errorPlace(svc, request, error) };
  if (info.status === 403) {
    const replaced = await svc.hooks.first("forbidden", {
      request,
      message: info.message,
    });
    if (replaced instanceof Response) return replaced;
  } else if (info.status === 500) {
    console.error(error);
    const replaced = await svc.hooks.first("handle_exception", {
      request,
      exception: error,
    });
    if (replaced instanceof Response) return replaced;
  }
  return await errorResponse(svc, request, info);
}

function describe(error: unknown): ErrorInfo {
  if (error instanceof StatusError) {
    return {
      status: error.status,
      message: error.status >= 500 ? withoutFilePaths(error.message) : error.message,
      title: error.title,
      headers: error.headers,
      extra: error.extra,
      htmlMessage: namedNotFound(error),
      hint: error.hint,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { status: 500, message: withoutFilePaths(message), title: null, headers: {} };
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
function withoutFilePaths(message: string): string {
  return FILE_PATHS.reduce((text, pattern) => text.replace(pattern, "[path]"), message);
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
  svc: AppHost,
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

/** The default error response: JSON body or the `<status>.html` / `error.html` page. */
async function errorResponse(
  svc: AppHost,
  request: Request,
  { status, message, title, headers, extra = {}, htmlMessage, hint, place }: ErrorInfo,
): Promise<Response> {
  if (wantsJson(request) || sendsJson(request)) {
    return Response.json(
      { ok: false, error: message, errors: [message], status, title, ...extra },
      { status, headers },
    );
  }
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
      database: place?.database ?? null,
      table: place?.table ?? null,
    });
  } catch (renderError) {
    // A broken error template must not hide the original error.
    console.error(renderError);
    return Response.text(`${status}: ${message}`, { status, headers });
  }
}
