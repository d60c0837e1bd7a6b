/**
 * The JSON representation of a page of rows (API-DETAILS §2.2): every `_shape`, `_json=` columns,
 * `{value, label}` foreign-key cells, `_extra=` keys, `_json_infinity`, `_nl=on` lines, and the
 * `{ok: false, rows: [], error, errors, status}` body of a failed query.
 *
 * @module
 */

import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import {
  jsonBody,
  markIntegralReals,
  newlineDelimited,
  RawJson,
  realColumnIndexes,
} from "./json.ts";
import { parseJsonColumns, shapedRows } from "./json_shapes.ts";
import { type JsonArgs, parseJsonArgs } from "../table/json_args.ts";
import { resolveExtras, type RowsPage } from "./rows_page.ts";
import { applyLabels } from "../table/labels.ts";
import type { RowsJsonRequest } from "../db/read_query.ts";
import { plainCells, rowsJson } from "../util/json_rows.ts";

/**
 * The options of the JSON rows {@link jsonResponse} will write for this request, so that the read
 * worker can write them instead (`execute(…, { json_rows })`); null when the response is not
 * JSON (`json` null), its shape is another, or its cells are rewritten (`_json=`, expanded
 * labels, `_nl`).
 */
export function jsonRowsRequest(
  json: JsonArgs | null,
  page: Pick<RowsPage, "columns" | "primary_keys" | "column_types" | "labels">,
  limit: number,
): RowsJsonRequest | null {
  if (json === null) return null;
  if (json.json_columns.length > 0 || (page.labels?.columns.length ?? 0) > 0) return null;
  const shape = json.shape;
  if (shape !== "objects" && shape !== "arrays" && shape !== "array") return null;
  if (shape === "array" && json.nl) return null;
  return {
    shape: shape === "arrays" ? "arrays" : "objects",
    real: realColumnIndexes(page.columns, page.column_types, page.primary_keys ?? []),
    infinity: json.infinity,
    limit,
  };
}

function sameOptions(a: RowsJsonRequest, b: RowsJsonRequest | null): boolean {
  return b !== null && JSON.stringify(a) === JSON.stringify(b);
}

/** Rows with `_json=` columns parsed and foreign-key cells expanded to `{value, label}`. */
async function jsonRows(args: JsonArgs, page: RowsPage): Promise<unknown[][]> {
  const rows = parseJsonColumns(page.columns, page.rows, args.json_columns);
  if (!page.labels?.columns.length) return rows;
  return applyLabels(rows, await page.labels.lookup(page.rows), page.columns);
}

/** The JSON response for `page` (`link: <next_url>; rel="next"` when there is a next page). */
export async function jsonResponse(request: Request, page: RowsPage): Promise<Response> {
  // A table page read its arguments at its start; other pages' are read here, once.
  const args = page.json_args ?? parseJsonArgs(request.args);
  const infinity = args.infinity;
  const headers: Record<string, string> = {};
  if (page.next_url) headers["link"] = `<${page.next_url}>; rel="next"`;
  const status = page.status ?? 200;
  const json = (body: unknown) =>
    new Response(jsonBody(body, infinity), {
      status,
      headers,
      content_type: "application/json; charset=utf-8",
    });
  if (page.error !== null) {
    // 1.0's error keys (`errors`, `status`) beside the rows a failed query page keeps.
    return json({
      ...page.defaultKeys,
      rows: [],
      ...page.keysAfterRows,
      error: page.error,
      errors: [page.error],
      status,
      truncated: page.truncated,
    });
  }
  const shape = args.shape;
  const extras = await resolveExtras(args, page);
  // The object shapes' body: the page's keys around its rows (a row page has some after them).
  const withRows = (rows: unknown) =>
    json(
      page.extrasAfterRows
        ? { ...page.defaultKeys, rows, ...extras, ...page.keysAfterRows, truncated: page.truncated }
        : {
          ...page.defaultKeys,
          ...extras,
          rows,
          ...page.keysAfterRows,
          truncated: page.truncated,
        },
    );
  const encoded = page.encoded;
  if (
    encoded && sameOptions(encoded.options, jsonRowsRequest(args, page, encoded.options.limit))
  ) {
    // Rows the read worker wrote: sent as they are, never parsed on this thread.
    const raw = new RawJson(encoded.bytes);
    if (shape === "array") return json(raw);
    return withRows(raw);
  }
  const rows = await jsonRows(args, page);
  if (shape === "array" && args.nl) {
    return new Response(newlineDelimited(page.columns, rows, page.column_types, infinity), {
      status,
      headers,
      content_type: "text/plain",
    });
  }
  const fast = jsonRowsRequest(args, page, rows.length);
  if (fast && plainCells(rows)) {
    // The common case: the rows' text is written in one pass and spliced into the body.
    const text = new RawJson(rowsJson(page.columns, rows, fast));
    if (shape === "array") return json(text);
    return withRows(text);
  }
  // Integral REAL values print as `12.0`, like the reference (not in object keys).
  const reals = markIntegralReals(page.columns, rows, page.column_types, page.primary_keys ?? []);
  const shaped = shapedRows(shape, page.columns, reals, page.primary_keys ?? null);
  if (shape === "objects" || shape === "arrays") {
    return withRows(shaped);
  }
  return json(shaped);
}
