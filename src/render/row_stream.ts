/**
 * The streamed text formats of data pages: `.csv`, `.tsv` and `.ndjson` (API-DETAILS §10). The body
 * is a pull-based stream: the next page of rows is fetched only when the client has taken the
 * previous one, so `_stream=on` over a whole table runs in constant memory. The status is sent
 * before the rows, so what goes wrong later cannot change it: past the `max_csv_mb` cap the body
 * ends with the reference's notice line, and an error (the time limit, an SQL error, a read
 * worker lost) aborts the response, so that the client sees an incomplete download instead of a
 * 200 whose last line is the message (NDJSON sends that message as one more JSON line first).
 *
 * @module
 */

import type { RenderHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { BadRequest } from "../http/errors.ts";
import { attachment } from "../http/content_disposition.ts";
import type { SqlValue } from "../sqlite/values.ts";
import { valueAsBoolean } from "../util/value_as_boolean.ts";
import type { RowsPage } from "./rows_page.ts";
import { ByteBudget, csvCellText, csvLine, type Delimiter } from "./csv.ts";
import { realColumnIndexes } from "./json.ts";
import { ndjsonLines } from "../util/json_rows.ts";
import { applyLabels, csvLabelHeadings, csvLabelRow } from "../table/labels.ts";
import { withFreshArrival } from "../db/request_clock.ts";
import type { TextRowsOptions } from "../util/text_rows.ts";
import type { CursorChunk } from "../db/pool.ts";
import { collectYoungGarbage } from "../util/young_garbage.ts";

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
export function checkStreamAllowed(svc: RenderHost, request: Request): void {
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
  try {
    checkStreamAllowed(svc, request);
  } catch (error) {
    page.closeStream?.();
    throw error;
  }
  const download = valueAsBoolean(request.args.get("_dl")) === true;
  const headers: Record<string, string> = {};
  if (download) {
    const name = page.filename ?? page.table ?? page.query_name ?? page.database;
    headers["content-disposition"] = attachment(`${name}.${format}`);
  }
  const contentType = download ? DOWNLOAD_TYPES[format] : "text/plain; charset=utf-8";
  if (page.error !== null) {
    page.closeStream?.();
    return new Response(page.error, { status: page.status ?? 400, content_type: contentType });
  }
  const lines = format === "ndjson"
    ? ndjsonChunks(request, page)
    : delimitedChunks(svc, request, page, format === "tsv" ? "\t" : ",");
  const budget = new ByteBudget(Number(svc.setting("max_csv_mb") ?? 0), format.toUpperCase());
  // The line that ends a stream cut short: NDJSON's stays one JSON object, so readers can parse it.
  const lastLine = format === "ndjson"
    ? (message: string) => JSON.stringify({ error: message }) + "\n"
    : (message: string) => message;
  const ending: StreamEnding = {
    lastLine,
    // A CSV or TSV line would be read as data: only NDJSON says why before the body is cut.
    errorLine: format === "ndjson" ? lastLine : null,
    what: `Export ${request.path}`,
  };
  // Whatever ends the body (sent whole, failed, cancelled or dropped before its rows were asked
  // for: a HEAD, a client gone), the export's cursor is released.
  return new Response(textStream(lines, budget, ending, () => page.closeStream?.()), {
    status: page.status ?? 200,
    headers,
    content_type: contentType,
  });
}

/**
 * A chunk of an export cursor as the next page of a stream: its lines, its rows parsed only when
 * read, and any token as `next` while more follow (the cursor knows where it is).
 */
export function cursorPage(
  chunk: CursorChunk,
): { rows: SqlValue[][]; next: string | null; lines: Uint8Array | null } {
  return {
    get rows() {
      return chunk.rows();
    },
    next: chunk.done ? null : "cursor",
    lines: takeLines(chunk),
  };
}

/**
 * A chunk's lines, taken out of the object that carried them. Why: the objects a chunk passes
 * through (the worker's reply, the promises that delivered it, the pages and iterator results of
 * the generators below) can outlive it in V8's old generation, dead but not yet collected, and
 * anything they point to survives every young collection until the next full one. Each chunk of
 * an export stayed that way, 3–10 MB of them on the main thread at a time; taken out, it is freed
 * by the first young collection after it is sent.
 */
function takeLines(holder: { lines?: Uint8Array | null }): Uint8Array | null {
  const lines = holder.lines ?? null;
  if (lines) holder.lines = null;
  return lines;
}

/** One page of an export: its rows, or (from the read worker) its lines already written. */
interface StreamPage {
  readonly rows: SqlValue[][];
  lines?: Uint8Array | null;
}

/**
 * This page's rows, then (with `_stream=on`) every following page. The page after the one being
 * written is already asked for, so the read worker writes it while this one goes out; never more
 * than one page ahead, so memory stays flat whatever the client's speed.
 */
async function* pages(
  request: Request,
  page: RowsPage,
  text: TextRowsOptions | null = null,
): AsyncGenerator<StreamPage> {
  const follow = wantsStream(request) && page.fetchNext;
  // Each page of a stream is a query of its own, with its own time limit: a whole table may
  // take longer than one query may.
  const fetch = (after: string) => {
    const next = withFreshArrival(() => page.fetchNext!(after, text));
    next.catch(() => {}); // awaited below; a client gone early must not leave it unhandled
    return next;
  };
  let current: StreamPage & { next: string | null } = page;
  let ahead = follow && page.next ? fetch(page.next) : null;
  try {
    while (true) {
      yield current;
      if (!ahead) return;
      current = await ahead;
      ahead = current.next ? fetch(current.next) : null;
    }
  } finally {
    // Finished, failed or abandoned by the client: the export's cursor is released.
    if (ahead) await ahead.catch(() => {});
    page.closeStream?.();
  }
}

/**
 * Every row of a `_stream=on` page, a page at a time as the caller pulls (one page read ahead),
 * for streaming output renderers; the export's cursor is released when the caller stops.
 */
export async function* streamedRows(
  request: Request,
  page: RowsPage,
): AsyncGenerator<SqlValue[][]> {
  for await (const part of pages(request, page)) yield part.rows;
}

/**
 * How the read worker may write this export's following pages itself: CSV/TSV without label
 * columns, or NDJSON (null otherwise). Pages with a BLOB cell still come as rows.
 */
function workerLines(
  request: Request,
  page: RowsPage,
  format: TextRowsOptions["format"],
): TextRowsOptions | null {
  if (!wantsStream(request) || !page.fetchNext || !page.next) return null;
  if (format !== "ndjson" && page.labels?.columns.length) return null;
  return {
    format,
    real: realColumnIndexes(page.columns, page.column_types ?? {}),
    limit: page.rows.length,
  };
}

/** CSV or TSV lines: a header (unless `_header=off`), label columns after expanded ones. */
async function* delimitedChunks(
  svc: RenderHost,
  request: Request,
  page: RowsPage,
  delimiter: Delimiter,
): AsyncGenerator<string[] | Uint8Array> {
  const expanded = page.labels?.columns ?? [];
  if (valueAsBoolean(request.args.get("_header")) !== false) {
    yield [csvLine(csvLabelHeadings(page.columns, expanded), delimiter)];
  }
  const types = page.column_types ?? {};
  const text = workerLines(request, page, delimiter === "\t" ? "tsv" : "csv");
  for await (const chunk of pages(request, page, text)) {
    // `rows` is only read for a page without lines: reading it would parse the values.
    const lines = takeLines(chunk);
    if (lines) {
      yield lines;
      continue;
    }
    const rows = chunk.rows;
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

/**
 * One compact JSON object per row and line, as every JSON body Vitrine writes (`_nl=on` pages
 * keep the reference's Python spacing; `.ndjson` is Vitrine's own and 9% smaller without it).
 */
async function* ndjsonChunks(
  request: Request,
  page: RowsPage,
): AsyncGenerator<string[] | Uint8Array> {
  const real = realColumnIndexes(page.columns, page.column_types ?? {});
  const text = workerLines(request, page, "ndjson");
  for await (const chunk of pages(request, page, text)) {
    const lines = takeLines(chunk);
    if (lines) {
      yield lines;
      continue;
    }
    yield [ndjsonLines(page.columns, chunk.rows, real)];
  }
}

/** Bytes of a stream sent between two nudges to the young-generation collector. */
const COLLECT_EVERY_BYTES = 1024 * 1024;

/** How a stream ends when it cannot send every row. */
interface StreamEnding {
  /** The notice past the `max_csv_mb` cap. */
  lastLine: (message: string) => string;
  /** A line saying why, sent before an error aborts the body (null: none). */
  errorLine: ((message: string) => string) | null;
  /** Names the export in the server log. */
  what: string;
}

/**
 * Encodes chunks of lines as they are pulled, stopping past the byte budget with `lastLine`, or
 * aborting the body at an error (`errorLine` first, when there is one).
 *
 * Each pull runs as a fresh start of its own (`withFreshArrival`): its queries (the rows after the
 * first page, their labels) get the whole time limit, and none is limited from whatever request's
 * arrival happens to be current when the client asks for more. Without this an identity-encoded
 * body was pulled in the scope of an earlier request (after a write through the UI, that write's),
 * so a labelled export's first lookup failed with "SQL query took too long" at once.
 */
function textStream(
  chunks: AsyncGenerator<string[] | Uint8Array>,
  budget: ByteBudget,
  ending: StreamEnding,
  release: () => void,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let sinceCollection = 0;
  let sent = 0;
  /** The error that ends the body, once its `errorLine` went out. */
  let failed: { error: unknown } | null = null;
  return new ReadableStream<Uint8Array>({
    pull: (controller) => withFreshArrival(() => pull(controller)),
    async cancel() {
      // Returning a generator that has not reached its rows yet (suspended at the header line)
      // runs no `finally` of theirs: the cursor the view opened is released here.
      await chunks.return(undefined);
      release();
    },
  }, { highWaterMark: 1 });

  async function pull(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    if (failed) return controller.error(failed.error);
    if (sinceCollection >= COLLECT_EVERY_BYTES) {
      // The chunks sent so far are garbage now: free their memory (young_garbage.ts).
      sinceCollection = 0;
      collectYoungGarbage();
    }
    try {
      let value: string[] | Uint8Array;
      let bytes: Uint8Array;
      do {
        const next = await chunks.next();
        if (next.done) {
          // The last chunks are garbage too once sent: do not keep them until the next export.
          if (sinceCollection > 0) collectYoungGarbage();
          release();
          return controller.close();
        }
        value = next.value;
        // As takeLines: the result object may outlive the chunk it carried.
        (next as { value: unknown }).value = undefined;
        bytes = value instanceof Uint8Array ? value : encoder.encode(value.join(""));
        // An empty chunk (the cursor's last, when the rows end on a chunk boundary) must not
        // end this pull without a chunk: the stream would never ask again, and hang.
      } while (bytes.length === 0);
      if (budget.fits(bytes.length)) {
        budget.spend(bytes.length);
        sinceCollection += bytes.length;
        sent += bytes.length;
        controller.enqueue(bytes);
        return;
      }
      // Past the cap within this chunk: line by line, up to the line that crosses it.
      const lines = value instanceof Uint8Array ? splitLines(value) : value;
      let text = "";
      for (const line of lines) {
        if (!budget.spend(encoder.encode(line).length)) {
          controller.enqueue(encoder.encode(text + ending.lastLine(budget.message)));
          await chunks.return(undefined);
          release();
          return controller.close();
        }
        text += line;
      }
      if (text) controller.enqueue(encoder.encode(text));
    } catch (error) {
      // The status went out already: the body is aborted (an HTTP/1.1 chunked body then ends
      // without its last chunk, HTTP/2 with a reset), so no client takes it for a whole one.
      const message = error instanceof Error ? error.message : String(error);
      console.error(`${ending.what} stopped after ${sent} bytes: ${message}`);
      release();
      if (!ending.errorLine) return controller.error(error);
      // The line is sent on its own: erroring the stream now would drop it unsent.
      failed = { error };
      controller.enqueue(encoder.encode(ending.errorLine(message)));
    }
  }
}

/** Lines of UTF-8 text, each with its line end (`\n`; CSV's `\r\n` keeps its `\r`). */
function splitLines(bytes: Uint8Array): string[] {
  return new TextDecoder().decode(bytes).split(/(?<=\n)/);
}
