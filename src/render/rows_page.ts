/**
 * `RowsPage`: what table, row, custom SQL and canned query pages hand to `respondWithRows`
 * (`output_format.ts`) — a page of rows and everything the output formats need — and the
 * `_extra=` resolution every format shares.
 *
 * ```ts
 * interface RowsPage {
 *   view_name: string;            // "table" | "row" | "query" | "database" (renderer argument)
 *   database: string;             // database name
 *   table: string | null;         // table or view; null for queries
 *   query_name: string | null;    // canned query name, else null
 *   columns: string[];
 *   rows: SqlValue[][];           // this page's rows, in column order
 *   sql: string | null; params: Record<string, unknown>;
 *   truncated: boolean;           // more rows than max_returned_rows (queries)
 *   error: string | null;         // JSON then ignores _shape: {...defaultKeys, rows, error, truncated}
 *   next: string | null;          // _next token of the following page
 *   next_url: string | null;      // its absolute URL: sent as `link: <…>; rel="next"` on JSON
 *   primary_keys?: string[] | null; // for _shape=object; null/absent = not a table (400)
 *   defaultKeys: Record<string, unknown>; // JSON keys before rows, e.g. {ok: true, next}
 *   keysAfterRows?: Record<string, unknown>; // JSON keys between rows and truncated (row pages)
 *   extras: Record<string, () => unknown>; // `_extra=` providers; unknown names → 400
 *   // optional:
 *   autoExtras?: string[];        // extras included without being asked (facet_results, …)
 *   ignoreExtraArg?: boolean;     // `_extra=` is ignored (plugin renderers' can_render)
 *   extrasAfterRows?: boolean;    // JSON writes the extras after `rows` (row pages, as 1.0)
 *   status?: number;              // default 200 (a query error page sends 400)
 *   cache?: boolean;              // Cache-Control max-age=<default_cache_ttl or _ttl>; default off
 *   column_types?: ColumnTypes;   // declared types: REAL 12 prints 12.0 in CSV and _nl lines
 *   labels?: RowLabels;           // foreign-key labels: {value,label} cells, <col>_label CSV columns
 *   blobUrl?: (row, column) => string | null;   // path of a BLOB cell's .blob download
 *   blobUrls?: (rows) => Promise<blobUrl>;      // the same, resolved per page (query pages)
 *   fetchNext?: (next) => Promise<{rows, next}>;  // following pages, for `_stream=on`
 *   filename?: string;            // `_dl=on` file name stem (defaults to table or database)
 *   encoded?: {bytes, options};   // the rows as JSON already, written by the read worker
 *   format?: string | null;       // the format asked for, when already read (null: HTML)
 *   json_args?: JsonArgs;         // `_shape`, `_json`, `_nl`, `_extra`… when already read
 * }
 * ```
 *
 * @module
 */

import type { ExtraArgs, JsonArgs } from "../table/json_args.ts";
import { BadRequest } from "../http/errors.ts";
import type { SqlValue } from "../db/values.ts";
import type { ColumnTypes } from "./json.ts";
import type { RowsJsonRequest } from "../db/read_query.ts";
import type { TextRowsOptions } from "../util/text_rows.ts";

/** Foreign-key labels: which columns are expanded, and a lookup for a chunk of rows. */
export interface RowLabels {
  columns: string[];
  lookup(rows: SqlValue[][]): Promise<Map<string, Map<unknown, unknown>>>;
}

/** A page of rows and everything the output formats need (see the module comment). */
export interface RowsPage {
  view_name: string;
  database: string;
  table: string | null;
  query_name: string | null;
  columns: string[];
  rows: SqlValue[][];
  sql: string | null;
  params: Record<string, unknown>;
  truncated: boolean;
  error: string | null;
  next: string | null;
  next_url: string | null;
  primary_keys?: string[] | null;
  defaultKeys: Record<string, unknown>;
  /** JSON keys written after `rows` (before `truncated`): the row page's, as the reference orders them. */
  keysAfterRows?: Record<string, unknown>;
  extras: Record<string, () => unknown | Promise<unknown>>;
  autoExtras?: string[];
  /** `_extra=` is ignored (the page given to renderers' `can_render`). */
  ignoreExtraArg?: boolean;
  /** JSON writes the extras after `rows`, where 1.0's row page has them. */
  extrasAfterRows?: boolean;
  status?: number;
  cache?: boolean;
  column_types?: ColumnTypes;
  labels?: RowLabels;
  blobUrl?: (row: SqlValue[], column: string) => string | null;
  /** Per-page form of `blobUrl`, for pages that must look rows up to address them. */
  blobUrls?: (rows: SqlValue[][]) => Promise<(row: SqlValue[], column: string) => string | null>;
  /**
   * With `text`, the page may come back as finished export lines (`lines`) written by the read
   * worker; its `rows` are then read only if needed.
   */
  fetchNext?: (
    next: string,
    text?: TextRowsOptions | null,
  ) => Promise<{ rows: SqlValue[][]; next: string | null; lines?: Uint8Array | null }>;
  filename?: string;
  /** Called once a `_stream=on` export ends, finished or abandoned (frees its cursor). */
  closeStream?: () => void;
  /** The rows as JSON, written by the read worker with these options (`jsonRowsRequest`). */
  encoded?: { bytes: Uint8Array; options: RowsJsonRequest } | null;
  /** The format asked for (null: HTML), when the page read it already. */
  format?: string | null;
  /** The JSON arguments, when the page read them already (a table page reads them once). */
  json_args?: JsonArgs | null;
}

/** The `_extra=` names asked for (repeatable, comma-separated), plus the page's automatic ones. */
function requestedExtras(
  args: ExtraArgs,
  page: Pick<RowsPage, "autoExtras" | "ignoreExtraArg">,
): string[] {
  const names = page.ignoreExtraArg ? [] : args.extras;
  return [...new Set([...(page.autoExtras ?? []), ...names])];
}

/**
 * Resolves the requested extras in order; an unknown name is a 400. `count` brings
 * `count_truncated` right after it where the page has one (1.0's pair: is the count a lower bound).
 */
export async function resolveExtras(
  args: ExtraArgs,
  page: Pick<RowsPage, "extras" | "autoExtras" | "ignoreExtraArg">,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  const names = requestedExtras(args, page);
  if (names.includes("count") && !names.includes("count_truncated")) {
    const at = names.indexOf("count") + 1;
    if (typeof page.extras.count_truncated === "function") names.splice(at, 0, "count_truncated");
  }
  for (const name of names) {
    // What every object inherits (`toString`, `constructor`) names no extra.
    const provider = name in Object.prototype ? undefined : page.extras[name];
    if (typeof provider !== "function") throw new BadRequest(`Unknown _extra: ${name}`);
    out[name] = await provider();
  }
  return out;
}
