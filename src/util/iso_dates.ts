/**
 * ISO 8601 dates and date-times as text: what the `date` and `datetime` column types accept
 * (`plugins/column_types.ts`) and what the importer gives those types to (`db/import`), where
 * every value of a column is checked: so the date is read digit by digit, without a pattern's
 * match array or a `Date`.
 *
 * @module
 */

/** The shape of a date and time; its digits' values are checked apart. */
const ISO_DATETIME =
  /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number written by the `count` digits at `from`, or -1 when one is not a digit. */
function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}

/** True when `text` starts with `YYYY-MM-DD` naming a day the calendar has (no 2023-02-29). */
function startsWithDay(text: string): boolean {
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45) return false;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS[month - 1]);
}

/** `YYYY-MM-DD`, a day the calendar has. */
export function isIsoDate(text: string): boolean {
  return text.length === 10 && startsWithDay(text);
}

/**
 * `YYYY-MM-DDTHH:MM[:SS[.fff]]` (or a space for the `T`) with an optional `Z` or `±HH:MM`, a day
 * the calendar has and a time the clock has.
 */
export function isIsoDateTime(text: string): boolean {
  if (text.length < 16 || !startsWithDay(text) || !ISO_DATETIME.test(text)) return false;
  return digits(text, 11, 2) < 24 && digits(text, 14, 2) < 60 &&
    (text.charCodeAt(16) !== 58 || digits(text, 17, 2) < 60);
}
