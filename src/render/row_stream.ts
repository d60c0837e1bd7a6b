/**
 * The streamed text formats of data pages: `.csv`, `.tsv` and `.ndjson` (API-DETAILS §10). The body
 * is a pull-based stream: the next page of rows is fetched only when the client has taken the
 * previous one, so `_stream=on` over a whole table runs in constant memory. The status is sent
 * before the rows, so later problems (a query error, the `max_csv_mb` cap) end the body with a
 * line of text instead.
 *
 * @module
 */

import type { RenderHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { BadRequest } from "../http/errors.ts";
import type { SqlValue } from "../sqlite/values.ts";
import { valueAsBoolean } from "../util/value_as_boolean.ts";
import type { RowsPage } from "./rows_page.ts";
import { ByteBudget, csvCellText, csvLine, type Delimiter } from "./csv.ts";
import { pythonJsonObject } from "./json.ts";
import { objectMembers } from "./json_shapes.ts";
import { applyLabels, csvLabelHeadings, csvLabelRow } from "../table/labels.ts";

/** The extensions served here. */
export const STREAM_FORMATS: ReadonlySet<string> = new Set(["csv", "tsv", "ndjson"]);

const DOWNLOAD_TYPES: Record<string, string> = {
  csv: "text/csv; charset=utf-8",
  tsv: "text/tab-separated-values; charset=utf-8",
  ndjson: "application/x-ndjson; charset=utf-8",
};

/** True when `_stream=on` (any true-ish value) asks for every row, not just this page. */
export function wantsStream(request: Request): boolean {
  return Boolean(valueAsBoolean(request.args.get("_stream")));
}

/** Throws the 400s of `_stream`: disabled by `allow_csv_stream`, or combined with `_next`. */
function checkStreamAllowed(svc: RenderHost, request: Request): void {
  if (!wantsStream(request)) return;
  if (!svc.setting("allow_csv_stream")) throw new BadRequest("CSV streaming is disabled");
  if (request.args.get("_next")) throw new BadRequest("_stream=1 not allowed with _next");
}

/** A streamed `.csv` / `.tsv` / `.ndjson` response for `page`. */
export function streamedResponse(
  svc: RenderHost,
  request: Request,
  page: RowsPage,
  format: string,
): Response {
  checkStreamAllowed(svc, request);
  const download = valueAsBoolean(request.args.get("_dl")) === true;
  const headers: Record<string, string> = {};
  if (download) {
    const name = page.filename ?? page.table ?? page.query_name ?? page.database;
    headers["content-disposition"] = `attachment; filename="${name}.${format}"`;
  }
  const contentType = download ? DOWNLOAD_TYPES[format] : "text/plain; charset=utf-8";
  if (page.error !== null) {
    return new Response(page.error, { status: page.status ?? 400, content_type: contentType });
  }
  const lines = format === "ndjson"
    ? ndjsonChunks(request, page)
    : delimitedChunks(svc, request, page, format === "tsv" ? "\t" : ",");
  const budget = new ByteBudget(Number(svc.setting("max_csv_mb") ?? 0));
  return new Response(textStream(lines, budget), {
    status: page.status ?? 200,
    headers,
    content_type: contentType,
  });
}

/** This page's rows, then (with `_stream=on`) every following page, one array per page. */
async function* pages(request: Request, page: RowsPage): AsyncGenerator<SqlValue[][]> {
  let rows = page.rows;
  let next = page.next;
  const follow = wantsStream(request) && page.fetchNext;
  while (true) {
    yield rows;
    if (!follow || !next) return;
    ({ rows, next } = await page.fetchNext!(next));
  }
}

/** CSV or TSV lines: a header (unless `_header=off`), label columns after expanded ones. */
async function* delimitedChunks(
  svc: RenderHost,
  request: Request,
  page: RowsPage,
  delimiter: Delimiter,
): AsyncGenerator<string[]> {
  const expanded = page.labels?.columns ?? [];
  if (valueAsBoolean(request.args.get("_header")) !== false) {
    yield [csvLine(csvLabelHeadings(page.columns, expanded), delimiter)];
  }
  const types = page.column_types ?? {};
  for await (const rows of pages(request, page)) {
    const labels = expanded.length ? await page.labels!.lookup(rows) : new Map();
    const cells = expanded.length ? applyLabels(rows, labels, page.columns) : rows;
    const blobUrl = page.blobUrls ? await page.blobUrls(rows) : page.blobUrl;
    yield rows.map((row, r) => {
      // A BLOB with no row to download it from is written out whole, as base64.
      const text = (value: unknown, column: string) => {
        const path = value instanceof Uint8Array && blobUrl ? blobUrl(row, column) : null;
        return path ? svc.absolute_url(request, path) : csvCellText(value, types[column]);
      };
      const fields = csvLabelRow(cells[r], page.columns, expanded, text);
      return csvLine(fields.map((field) => csvCellText(field)), delimiter);
    });
  }
}

/** One JSON object per row and line (Python spacing, like `_nl=on`). */
async function* ndjsonChunks(request: Request, page: RowsPage): AsyncGenerator<string[]> {
  const types = page.column_types ?? {};
  const members = objectMembers(page.columns);
  for await (const rows of pages(request, page)) {
    yield rows.map((row) => `${pythonJsonObject(members, row, types)}\n`);
  }
}

/** Encodes chunks of lines as they are pulled, stopping with a message past the byte budget. */
function textStream(
  chunks: AsyncGenerator<string[]>,
  budget: ByteBudget,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { value, done } = await chunks.next();
        if (done) return controller.close();
        let text = "";
        for (const line of value) {
          const bytes = encoder.encode(line).length;
          if (!budget.spend(bytes)) {
            controller.enqueue(encoder.encode(text + budget.message));
            await chunks.return(undefined);
            return controller.close();
          }
          text += line;
        }
        if (text) controller.enqueue(encoder.encode(text));
      } catch (error) {
        // Headers are gone already: the error becomes the body's last line.
        controller.enqueue(encoder.encode(error instanceof Error ? error.message : String(error)));
        controller.close();
      }
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}
