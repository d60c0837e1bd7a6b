/**
 * `StatusError`, the base of every error that knows what a client should be told: a status, a
 * title and headers. It lives in the lowest layer so that each layer can raise its own kind
 * (`http/errors.ts`: NotFound, Forbidden…; `db/errors.ts`: DatabaseError, QueryInterrupted;
 * `table/errors.ts`: TableArgsError; `util/sql.ts`: InvalidSql). Turning one into a page or a
 * JSON body happens in one place only, `src/app/error_response.ts`.
 *
 * @module
 */

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  414: "URI Too Long",
  416: "Range Not Satisfiable",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
};

/** Options every status-carrying error accepts. */
export interface StatusErrorOptions extends ErrorOptions {
  /** Page title for the error page; null lets the error page choose. */
  title?: string | null;
  /** Extra keys merged into the JSON error body. */
  extra?: Record<string, unknown>;
  /** Extra response headers (e.g. `WWW-Authenticate`, `Allow`). */
  headers?: Record<string, string>;
  /** How to put the request right, for the HTML error page (JSON bodies leave it out). */
  hint?: { text: string; href?: string } | null;
}

/** An error that maps to an HTTP status (500 and above: the server's fault, logged). */
export class StatusError extends Error {
  /** The error's class name. */
  override name = "StatusError";
  /** HTTP status code sent to the client. */
  readonly status: number;
  /** Title for the error page and the JSON body, or null. */
  title: string | null;
  /** Extra keys for the JSON error body. */
  extra: Record<string, unknown>;
  /** Extra headers sent with the error response. */
  headers: Record<string, string>;
  /** How to put the request right (HTML error page only). */
  hint: { text: string; href?: string } | null;

  /** Builds the error; without a message, the status's reason phrase ("Bad Request") is used. */
  constructor(status: number, message?: string, options: StatusErrorOptions = {}) {
    super(message ?? STATUS_TEXT[status] ?? `HTTP ${status}`, { cause: options.cause });
    this.status = status;
    this.title = options.title ?? null;
    this.extra = options.extra ?? {};
    this.headers = { ...(options.headers ?? {}) };
    this.hint = options.hint ?? null;
  }
}
