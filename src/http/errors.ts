/**
 * The HTTP error hierarchy. Views and helpers throw these; `handle_error.ts` is the one place that
 * turns them into pages or JSON bodies.
 */

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  413: "Payload Too Large",
  416: "Range Not Satisfiable",
  500: "Internal Server Error",
};

/** Options every HTTP error accepts. */
export interface HttpErrorOptions extends ErrorOptions {
  /** Page title for the error page; null lets the error page choose. */
  title?: string | null;
  /** Extra keys merged into the JSON error body. */
  extra?: Record<string, unknown>;
  /** Extra response headers (e.g. `WWW-Authenticate`, `Allow`). */
  headers?: Record<string, string>;
  /** How to put the request right, for the HTML error page (JSON bodies leave it out). */
  hint?: { text: string; href?: string } | null;
}

/** An error that maps to an HTTP status. */
export class HttpError extends Error {
  override name = "HttpError";
  /** HTTP status code sent to the client. */
  readonly status: number;
  /** Title for the error page, or null. */
  title: string | null;
  /** Extra keys for the JSON error body. */
  extra: Record<string, unknown>;
  /** Extra headers sent with the error response. */
  headers: Record<string, string>;
  /** How to put the request right (HTML error page only). */
  hint: { text: string; href?: string } | null;

  constructor(status: number, message?: string, options: HttpErrorOptions = {}) {
    super(message ?? STATUS_TEXT[status] ?? `HTTP ${status}`, { cause: options.cause });
    this.status = status;
    this.title = options.title ?? null;
    this.extra = options.extra ?? {};
    this.headers = { ...(options.headers ?? {}) };
    this.hint = options.hint ?? null;
  }
}

/** 404. */
export class NotFound extends HttpError {
  override name = "NotFound";
  constructor(message = "Not found", options: HttpErrorOptions = {}) {
    super(404, message, options);
  }
}

/** 404 for an unknown database name. */
export class DatabaseNotFound extends NotFound {
  override name = "DatabaseNotFound";
  constructor(readonly database_name: string) {
    super("Database not found");
  }
}

/** 404 for an unknown table or view. */
export class TableNotFound extends NotFound {
  override name = "TableNotFound";
  constructor(readonly database_name: string, readonly table: string) {
    super("Table not found");
  }
}

/** 404 for a row whose primary key values match nothing. */
export class RowNotFound extends NotFound {
  override name = "RowNotFound";
  constructor(
    readonly database_name: string,
    readonly table: string,
    readonly pk_values: unknown[],
  ) {
    super("Row not found");
  }
}

/** 403. */
export class Forbidden extends HttpError {
  override name = "Forbidden";
  constructor(message = "Forbidden", options: HttpErrorOptions = {}) {
    super(403, message, options);
  }
}

/** 400. */
export class BadRequest extends HttpError {
  override name = "BadRequest";
  constructor(message = "Bad request", options: HttpErrorOptions = {}) {
    super(400, message, options);
  }
}

/** 405; `allowed` lists the methods the path accepts, sent as the `Allow` header. */
export class MethodNotAllowed extends HttpError {
  override name = "MethodNotAllowed";
  /** Methods the matched path accepts. */
  readonly allowed: string[];
  constructor(
    message = "Method not allowed",
    options: HttpErrorOptions & { allowed?: string[] } = {},
  ) {
    super(405, message, options);
    this.allowed = options.allowed ?? [];
    if (this.allowed.length) this.headers["allow"] = this.allowed.join(", ");
  }
}

/** 413, e.g. a POST body above `max_post_body_bytes`. */
export class PayloadTooLarge extends HttpError {
  override name = "PayloadTooLarge";
  constructor(message = "Payload too large", options: HttpErrorOptions = {}) {
    super(413, message, options);
  }
}
