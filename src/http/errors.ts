/**
 * The errors the protocol and application layers raise. All extend `StatusError`
 * (`src/util/errors.ts`), the one base of every error with a status; `src/app/error_response.ts`
 * is the one place that turns them into pages or JSON bodies.
 */
import { StatusError, type StatusErrorOptions } from "../util/errors.ts";

/** Options every HTTP error accepts (see `StatusErrorOptions`). */
export type HttpErrorOptions = StatusErrorOptions;

/** An error raised above the data layer, answered with `status`. */
export class HttpError extends StatusError {
  /** Always `HttpError`. */
  override name = "HttpError";
}

/** 404. */
export class NotFound extends HttpError {
  /** Always `NotFound`. */
  override name = "NotFound";
  /** A 404 with `message`. */
  constructor(message = "Not found", options: HttpErrorOptions = {}) {
    super(404, message, options);
  }
}

/** 404 for an unknown database name. */
export class DatabaseNotFound extends NotFound {
  /** Always `DatabaseNotFound`. */
  override name = "DatabaseNotFound";
  /** A 404 naming the missing database. */
  constructor(readonly database_name: string) {
    super("Database not found");
  }
}

/** 404 for an unknown table or view. */
export class TableNotFound extends NotFound {
  /** Always `TableNotFound`. */
  override name = "TableNotFound";
  /** A 404 naming the missing table. */
  constructor(readonly database_name: string, readonly table: string) {
    super("Table not found");
  }
}

/**
 * 500 for a table or view SQLite lists but cannot read: its virtual-table module or tokenizer is
 * not loaded (`no such module: vec0`), or a view calls a function it may not use. The message
 * names the table, the reason and, for a missing module, the remedy.
 */
export class TableUnavailable extends HttpError {
  /** Always `TableUnavailable`. */
  override name = "TableUnavailable";
  /** A 500 naming the table and why it cannot be read. */
  constructor(readonly database_name: string, readonly table: string, readonly reason: string) {
    // A missing module, tokenizer or function is what an extension would provide.
    const remedy = /^no such (module|tokenizer|function)/.test(reason)
      ? " Serve the database with the extension that provides it (--load-extension)."
      : "";
    super(500, `Table ${table} is unavailable: ${reason}.${remedy}`, {
      title: "Table unavailable",
    });
  }
}

/** 404 for a row whose primary key values match nothing. */
export class RowNotFound extends NotFound {
  /** Always `RowNotFound`. */
  override name = "RowNotFound";
  /** A 404 naming the missing row. */
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
  /** Always `Forbidden`. */
  override name = "Forbidden";
  /** A 403 with `message`. */
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

/**
 * 408: a request body that did not arrive in time (`body_time_limit_ms`). Sent with
 * `Connection: close`: the rest of that body is never read.
 */
export class RequestTimeout extends HttpError {
  override name = "RequestTimeout";
  constructor(message = "Request timeout", options: HttpErrorOptions = {}) {
    super(408, message, options);
    this.headers["connection"] = "close";
  }
}

/** 413, e.g. a POST body above `max_post_body_bytes`. */
export class PayloadTooLarge extends HttpError {
  override name = "PayloadTooLarge";
  constructor(message = "Payload too large", options: HttpErrorOptions = {}) {
    super(413, message, options);
  }
}
