/**
 * The JSON representation of a page of rows (API-DETAILS §2.2): every `_shape`, `_json=` columns,
 * `{value, label}` foreign-key cells, `_extra=` keys, `_json_infinity`, `_nl=on` lines, and the
 * `{ok: false, rows: [], error}` body of a failed query.
 *
 * @module
 */

import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { valueAsBoolean } from "../util/value_as_boolean.ts";
import { jsonBodyText, markIntegralReals, newlineDelimited } from "./json.ts";
import { keepInfinity, parseJsonColumns, parseShape, shapedRows } from "./json_shapes.ts";
import { resolveExtras, type RowsPage } from "./rows_page.ts";
import { applyLabels } from "../table/labels.ts";

/** Rows with `_json=` columns parsed and foreign-key cells expanded to `{value, label}`. */
async function jsonRows(request: Request, page: RowsPage): Promise<unknown[][]> {
  const rows = parseJsonColumns(page.columns, page.rows, request.args.getlist("_json"));
  if (!page.labels?.columns.length) return rows;
  return applyLabels(rows, await page.labels.lookup(page.rows), page.columns);
}

/** The JSON response for `page` (`link: <next_url>; rel="next"` when there is a next page). */
export async function jsonResponse(request: Request, page: RowsPage): Promise<Response> {
  const infinity = keepInfinity(request.args);
  const headers: Record<string, string> = {};
  if (page.next_url) headers["link"] = `<${page.next_url}>; rel="next"`;
  const status = page.status ?? 200;
  const json = (body: unknown) =>
    new Response(jsonBodyText(body, infinity), {
      status,
      headers,
      content_type: "application/json; charset=utf-8",
    });
  if (page.error !== null) {
    return json({ ...page.defaultKeys, rows: [], error: page.error, truncated: page.truncated });
  }
  const shape = parseShape(request.args);
  const extras = await resolveExtras(request, page);
  const rows = await jsonRows(request, page);
  if (shape === "array" && valueAsBoolean(request.args.get("_nl"))) {
    return new Response(newlineDelimited(page.columns, rows, page.column_types, infinity), {
      status,
      headers,
      content_type: "text/plain",
    });
  }
  // Integral REAL values print as `12.0`, like the reference (not in object keys).
  const reals = markIntegralReals(page.columns, rows, page.column_types, page.primary_keys ?? []);
  const shaped = shapedRows(shape, page.columns, reals, page.primary_keys ?? null);
  if (shape === "objects" || shape === "arrays") {
    return json({ ...page.defaultKeys, ...extras, rows: shaped, truncated: page.truncated });
  }
  return json(shaped);
}
