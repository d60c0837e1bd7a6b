/**
 * ISO 8601 dates and date-times as text: what the `date` and `datetime` column types accept
 * (`plugins/column_types.ts`) and what the importer gives those types to (`db/import`).
 *
 * @module
 */

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const ISO_DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;

/** True when year, month and day name a day of the calendar (no 31 April, no 29 February 2023). */
function realDay(year: string, month: string, day: string): boolean {
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day);
}

/** `YYYY-MM-DD`, a day the calendar has. */
export function isIsoDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  return match !== null && realDay(match[1], match[2], match[3]);
}

/**
 * `YYYY-MM-DDTHH:MM[:SS[.fff]]` (or a space for the `T`) with an optional `Z` or `±HH:MM`, a day
 * the calendar has and a time the clock has.
 */
export function isIsoDateTime(text: string): boolean {
  const match = ISO_DATETIME.exec(text);
  return match !== null && realDay(match[1], match[2], match[3]) && Number(match[4]) < 24 &&
    Number(match[5]) < 60 && Number(match[6] ?? 0) < 60;
}
