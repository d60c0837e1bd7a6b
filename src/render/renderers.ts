/**
 * Output renderers from `register_output_renderer`: each adds a URL extension (`.atom`, `.geojson`)
 * to table, row, query and database pages. `render` gets one object of named values and returns a
 * Response, the deprecated `{body, content_type, status_code, headers}` dict, or null.
 */
import type { RenderHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { NotFound } from "../http/errors.ts";
import { makeRows } from "../db/results.ts";
import { awaitMeMaybe } from "../util/await_me_maybe.ts";
import { resolveExtras, type RowsPage } from "./rows_page.ts";
import { parseExtraArgs } from "../table/json_args.ts";
import { checkStreamAllowed, streamedRows, wantsStream } from "./row_stream.ts";

/** The named values a renderer's `render` and `can_render` receive. */
export interface RenderArgs {
  svc: unknown;
  columns: string[];
  rows: unknown[];
  /** Every row of a `_stream=on` request, for renderers that declare `stream`; else null. */
  row_stream?: AsyncIterable<unknown> | null;
  sql: string | null;
  query_name: string | null;
  database: string;
  table: string | null;
  request: unknown;
  error: string | null;
  truncated: boolean | null;
  view_name: string;
  data?: Record<string, unknown>;
}

/** One registered renderer. */
export interface OutputRenderer {
  extension: string;
  render: (args: RenderArgs) => unknown;
  can_render?: (args: RenderArgs) => unknown;
  /** It streams: with `_stream=on`, `render` gets every row as an async iterable. */
  stream?: boolean;
}

/** Flattens hook results (a dict or a list of dicts each) into extension → renderer. */
export function collectRenderers(results: unknown[]): Map<string, OutputRenderer> {
  const renderers = new Map<string, OutputRenderer>();
  for (const entry of results.flat()) {
    const renderer = entry as OutputRenderer;
    if (
      !renderer || typeof renderer.extension !== "string" || typeof renderer.render !== "function"
    ) {
      throw new TypeError(
        "register_output_renderer must return {extension, render, can_render?} or a list of " +
          `them; got ${describe(entry)}`,
      );
    }
    if (renderer.extension.startsWith(".") || renderer.extension.includes("/")) {
      throw new TypeError(
        `register_output_renderer: extension "${renderer.extension}" must be a bare name ` +
          `such as "atom" (no dot or slash)`,
      );
    }
    renderers.set(renderer.extension, renderer);
  }
  return renderers;
}

/** True when the renderer accepts this data (no `can_render` means it accepts everything). */
export async function canRender(renderer: OutputRenderer, args: RenderArgs): Promise<boolean> {
  if (!renderer.can_render) return true;
  return Boolean(await awaitMeMaybe(renderer.can_render(args)));
}

/** Runs a renderer and normalises its answer to a Response (null: it declined). */
export async function runRenderer(
  renderer: OutputRenderer,
  args: RenderArgs,
): Promise<Response | null> {
  const result = await awaitMeMaybe(renderer.render(args));
  if (result === null || result === undefined) return null;
  if (result instanceof Response) return result;
  if (result instanceof globalThis.Response) return Response.fromWeb(result);
  const legacy = legacyDict(renderer.extension, result);
  return new Response(legacy.body ?? "", {
    status: legacy.status_code ?? 200,
    headers: legacy.headers ?? {},
    content_type: legacy.content_type ?? "text/plain",
  });
}

/** What serving a format needs from the service: the render host and the output renderers. */
export interface FormatHost extends RenderHost {
  /** What plugins registered at start-up; only the output renderers matter here. */
  readonly registered: { readonly renderers: ReadonlyMap<string, OutputRenderer> };
}

/** A plugin renderer's response for `format`, or 404 when no renderer has that extension. */
export async function pluginResponse(
  svc: FormatHost,
  request: Request,
  page: RowsPage,
  format: string,
): Promise<Response> {
  const renderer = svc.registered.renderers.get(format);
  if (!renderer) throw new NotFound(`Unknown format: ${format}`);
  const args = await renderArgs(svc, request, page);
  if (renderer.stream && wantsStream(request)) {
    // Every row, page after page as the renderer pulls them (row_stream.ts reads ahead one).
    checkStreamAllowed(svc, request);
    const columns = page.columns;
    args.row_stream = (async function* () {
      for await (const rows of streamedRows(request, page)) {
        yield* makeRows(columns, rows.map((row) => [...row]));
      }
    })();
  }
  const result = await runRenderer(renderer, args);
  if (!result) throw new NotFound("No data");
  return result;
}

/** The named values renderers' `render` and `can_render` receive for `page`. */
export async function renderArgs(
  svc: FormatHost,
  request: Request,
  page: RowsPage,
): Promise<RenderArgs> {
  const data = page.error === null
    ? {
      ...page.defaultKeys,
      ...await resolveExtras(parseExtraArgs(request.args), page),
      ...page.keysAfterRows,
    }
    : { ...page.defaultKeys, ...page.keysAfterRows };
  return {
    svc,
    columns: page.columns,
    // Rows answer row[0] and row["column"], like the database's own Results.
    rows: makeRows(page.columns, page.rows.map((row) => [...row])),
    sql: page.sql,
    query_name: page.query_name,
    database: page.database,
    table: page.table,
    request,
    error: page.error,
    truncated: page.truncated,
    view_name: page.view_name,
    data,
    row_stream: null,
  };
}

/** The deprecated dict form of a renderer's answer, or the renderer's mistake as a TypeError. */
interface LegacyResult {
  body?: string | Uint8Array;
  content_type?: string;
  status_code?: number;
  headers?: Record<string, string>;
}

const LEGACY_KEYS = new Set(["body", "content_type", "status_code", "headers"]);

/**
 * Checks the legacy `{body, content_type, status_code, headers}` form. Anything else (a bare
 * string, a number, an array, an object with other keys) used to become an empty 200 page,
 * hiding the plugin's bug; now it is a 500 whose message names the format and the expected shape.
 */
function legacyDict(extension: string, result: unknown): LegacyResult {
  const fail = (what: string): never => {
    throw new TypeError(
      `Output renderer ".${extension}" returned ${what}; render() must return a Response, ` +
        "null, or {body, content_type, status_code, headers}",
    );
  };
  if (typeof result !== "object" || Array.isArray(result) || result === null) {
    return fail(Array.isArray(result) ? "an array" : `a ${typeof result}`);
  }
  const keys = Object.keys(result);
  const unknown = keys.filter((key) => !LEGACY_KEYS.has(key));
  if (!keys.length || unknown.length) {
    return fail(keys.length ? `an object with keys ${unknown.join(", ")}` : "an empty object");
  }
  const { body, status_code } = result as LegacyResult;
  if (body !== undefined && typeof body !== "string" && !(body instanceof Uint8Array)) {
    return fail(`a body of type ${typeof body}`);
  }
  if (status_code !== undefined && !Number.isInteger(status_code)) {
    return fail("a status_code that is not an integer");
  }
  return result as LegacyResult;
}

function describe(value: unknown): string {
  if (value === null || typeof value !== "object") return String(value);
  return `an object with keys ${Object.keys(value).join(", ") || "(none)"}`;
}
