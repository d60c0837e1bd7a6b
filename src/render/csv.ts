/**
 * CSV and TSV lines the way Python's `csv.writer` writes them (minimal quoting, `\r\n` line ends),
 * plus the cell text rules of API-DETAILS §10: NULL is empty, a REAL column's `12` is `12.0`,
 * BLOBs become a download URL (or base64 when there is no URL for them).
 *
 * @module
 */

import { encodeBase64 } from "../http/base64.ts";
import { integralRealText, isIntegralReal } from "./json.ts";
import { numberText } from "../util/number_text.ts";

/** A field separator: `,` for CSV, a tab for TSV. */
export type Delimiter = "," | "\t";

/** Text of one cell, Python `str()` style. */
export function csvCellText(value: unknown, declared?: string | null): string {
  if (value === null || value === undefined) return "";
  if (isIntegralReal(value, declared)) return integralRealText(value as number);
  // Python's str() of an infinite float.
  if (typeof value === "number" && !Number.isFinite(value) && !Number.isNaN(value)) {
    return value > 0 ? "inf" : "-inf";
  }
  if (value instanceof Uint8Array) return encodeBase64(value);
  if (typeof value === "object") return JSON.stringify(value);
  return typeof value === "number" ? numberText(value) : String(value);
}

/** One line: fields quoted only when they hold the delimiter, a quote or a line break. */
export function csvLine(fields: string[], delimiter: Delimiter = ","): string {
  const quoted = fields.map((field) =>
    field.includes(delimiter) || /["\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field
  );
  // Python writes a lone empty field as `""` so the line is not mistaken for a blank one.
  if (fields.length === 1 && fields[0] === "") return '""\r\n';
  return quoted.join(delimiter) + "\r\n";
}

/**
 * Counts UTF-8 bytes written and says when the `max_csv_mb` cap is passed. A cap of 0 means no
 * limit.
 */
export class ByteBudget {
  #used = 0;
  readonly limit: number;
  readonly #format: string;

  /** `maxMb` MiB; 0 disables the cap. `format` names what is written in the message. */
  constructor(maxMb: number, format = "CSV") {
    this.limit = maxMb > 0 ? maxMb * 1024 * 1024 : 0;
    this.#format = format;
  }

  /** True when `bytes` more would still be within the cap. */
  fits(bytes: number): boolean {
    return this.limit === 0 || this.#used + bytes <= this.limit;
  }

  /** Adds `bytes`; true while still within the cap. */
  spend(bytes: number): boolean {
    this.#used += bytes;
    return this.limit === 0 || this.#used <= this.limit;
  }

  /** What ends a capped stream (the reference's words for CSV). */
  get message(): string {
    return `${this.#format} contains more than ${this.limit} bytes`;
  }
}
