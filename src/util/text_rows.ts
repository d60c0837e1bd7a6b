/**
 * Rows as the lines of a streamed export — CSV, TSV (Python's `csv.writer`: minimal quoting,
 * `\r\n`) or NDJSON (compact objects, as `json_rows.ts` writes them) — written straight from the
 * value arrays. The read workers use it for `_stream=on` exports, so that a page of rows crosses to
 * the main thread as finished bytes. The cell rules are those of `render/csv.ts` and
 * `util/json_rows.ts` (a test compares them): NULL is empty (CSV) or `null`, a REAL column's `12`
 * is `12.0`, ±Infinity is `inf`/`-inf` (CSV) or `null`. NDJSON lines are `json_rows.ts`'s own
 * (a BLOB is its base64 object). A CSV or TSV BLOB cell is not handled here: its text depends on
 * the page (a download URL), so {@link textRows} answers null and the caller writes that page.
 *
 * @module
 */

import { integralRealText, ndjsonLines } from "./json_rows.ts";
import { numberText } from "./number_text.ts";

/** Which export, and how its rows are written. */
export interface TextRowsOptions {
  format: "csv" | "tsv" | "ndjson";
  /** Indexes of REAL columns, whose integral numbers print as `12.0`. */
  real: number[];
  /** Write only the first `limit` rows. */
  limit: number;
}

const NEEDS_QUOTES_CSV = /[,"\r\n]/;
const NEEDS_QUOTES_TSV = /[\t"\r\n]/;

/** A cell's CSV/TSV text before quoting (`real`: its column is REAL); null for a BLOB. */
export function csvCell(value: unknown, real: boolean): string | null {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
      if (real && Number.isInteger(value)) return integralRealText(value);
      if (!Number.isFinite(value) && !Number.isNaN(value)) return value > 0 ? "inf" : "-inf";
      return numberText(value);
    case "bigint":
      return value.toString();
  }
  if (value === null || value === undefined) return "";
  return null;
}

/** The lines of the first `limit` rows, or null for CSV/TSV with a BLOB cell (or anything unusual). */
export function textRows(
  columns: string[],
  rows: readonly unknown[][],
  options: TextRowsOptions,
): string | null {
  const count = Math.min(rows.length, options.limit);
  // A BLOB is the same base64 object in NDJSON whoever writes it.
  if (options.format === "ndjson") {
    return ndjsonLines(columns, count < rows.length ? rows.slice(0, count) : rows, options.real);
  }
  const realSet = new Set(options.real);
  let out = "";
  const delimiter = options.format === "tsv" ? "\t" : ",";
  const needsQuotes = options.format === "tsv" ? NEEDS_QUOTES_TSV : NEEDS_QUOTES_CSV;
  const real = columns.map((_, i) => realSet.has(i));
  for (let r = 0; r < count; r++) {
    const row = rows[r];
    let line = "";
    for (let i = 0; i < columns.length; i++) {
      const text = csvCell(row[i], real[i]);
      if (text === null) return null;
      const field = needsQuotes.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
      line += i === 0 ? field : delimiter + field;
    }
    // Python writes a lone empty field as `""` so the line is not mistaken for a blank one.
    out += columns.length === 1 && line === "" ? '""\r\n' : `${line}\r\n`;
  }
  return out;
}
