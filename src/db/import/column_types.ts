/**
 * Types from the data: each value is an integer, a real, text or empty, and a column's type is
 * the widest its values need (INTEGER, then FLOAT, then TEXT). Text that only looks like a number
 * stays text when the number would not give it back: `007`, `+5`, `1,000`, `NaN`, or an integer
 * too large for SQLite's 64 bits. ISO dates are text; a TEXT column whose every value is an ISO
 * date (or every one a date and time) is given the `date` (or `datetime`) column type.
 *
 * @module
 */

import { isIsoDate, isIsoDateTime } from "../../util/iso_dates.ts";

/** A column type the importer gives new columns (the names the JSON write API uses). */
export type ImportType = "INTEGER" | "FLOAT" | "TEXT";

/** 0: empty (no opinion), 1: integer, 2: real, 3: text. */
export type ValueKind = 0 | 1 | 2 | 3;

const INTEGER = /^-?(?:0|[1-9][0-9]{0,17})$/;
const REAL = /^-?(?:0|[1-9][0-9]*)?(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;

/** What a CSV field holds. */
export function kindOfText(value: string | null): ValueKind {
  if (value === null || value === "") return 0;
  const first = value.charCodeAt(0);
  // Neither a digit, "-" nor "." : text, without running a pattern.
  if (!(first >= 48 && first <= 57) && first !== 45 && first !== 46) return 3;
  if (INTEGER.test(value)) return 1;
  if (REAL.test(value) && /[0-9]/.test(value) && Number.isFinite(Number(value))) return 2;
  return 3;
}

/** What a JSON value holds (nested values arrive as JSON text already). */
export function kindOfValue(value: unknown): ValueKind {
  switch (typeof value) {
    case "number":
      return Number.isInteger(value) ? 1 : 2;
    case "boolean":
    case "bigint":
      return 1;
    case "string":
      return 3;
  }
  return 0;
}

/** The type of a column whose widest value is of `kind`. */
export function typeOfKind(kind: ValueKind): ImportType {
  return kind === 1 ? "INTEGER" : kind === 2 ? "FLOAT" : "TEXT";
}

/** The kind a column of `type` can take at most. */
export function kindOfType(type: ImportType): ValueKind {
  return type === "INTEGER" ? 1 : type === "FLOAT" ? 2 : 3;
}

/** The value to store for a CSV field of `kind` in a column of `type` (numbers as numbers). */
export function storedText(value: string, kind: ValueKind, type: ImportType): unknown {
  if (type === "TEXT" || kind === 3 || kind === 0) return value;
  if (kind === 1) {
    const number = Number(value);
    return Number.isSafeInteger(number) ? number : BigInt(value);
  }
  return Number(value);
}

/** A column type the importer gives TEXT columns of ISO dates (the built-in column types). */
export type ImportColumnType = "date" | "datetime";

/** {@link temporalOf}'s bits: what the text values of a column have been. */
export const TEMPORAL_DATE = 1;
export const TEMPORAL_DATETIME = 2;
export const TEMPORAL_OTHER = 4;

/** The bit of one non-empty text value: an ISO date, an ISO date and time, or other text. */
export function temporalOf(text: string): number {
  // Both forms have four digits and a "-" first: most text is told without a pattern.
  if (text.length < 10 || text.charCodeAt(4) !== 45) return TEMPORAL_OTHER;
  if (text.length === 10) return isIsoDate(text) ? TEMPORAL_DATE : TEMPORAL_OTHER;
  return isIsoDateTime(text) ? TEMPORAL_DATETIME : TEMPORAL_OTHER;
}

/**
 * The column type of a TEXT column whose values' bits are `bits`: `date` when every value was a
 * date, `datetime` when every one was a date and time, else none (a column mixing both forms
 * would have values its type refuses).
 */
export function temporalColumnType(bits: number): ImportColumnType | null {
  return bits === TEMPORAL_DATE ? "date" : bits === TEMPORAL_DATETIME ? "datetime" : null;
}
