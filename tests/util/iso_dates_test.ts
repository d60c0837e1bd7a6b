import assert from "node:assert/strict";
import { isIsoDate, isIsoDateTime } from "../../src/util/iso_dates.ts";

/** The checks as they were written before (a pattern and a `Date`), for years from 100 on. */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME =
  /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?$/;
function realDay(year: string, month: string, day: string): boolean {
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return date.getUTCFullYear() === Number(year) && date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day);
}
function referenceDate(text: string): boolean {
  const m = DATE.exec(text);
  return m !== null && realDay(m[1], m[2], m[3]);
}
function referenceDateTime(text: string): boolean {
  const m = DATETIME.exec(text);
  return m !== null && realDay(m[1], m[2], m[3]) && Number(m[4]) < 24 && Number(m[5]) < 60 &&
    Number(m[6] ?? 0) < 60;
}

Deno.test("ISO dates: days the calendar has, leap years, times the clock has", () => {
  for (const day of ["2024-02-29", "2000-02-29", "2023-12-31", "0050-01-01", "9999-12-31"]) {
    assert.equal(isIsoDate(day), true, day);
  }
  for (
    const day of ["2023-02-29", "1900-02-29", "2024-04-31", "2024-13-01", "2024-00-10", "2024-1-01"]
  ) {
    assert.equal(isIsoDate(day), false, day);
  }
  for (
    const at of ["2024-01-02T10:30", "2024-01-02 23:59:59.123Z", "2024-01-02T00:00:00+02:00"]
  ) {
    assert.equal(isIsoDateTime(at), true, at);
  }
  for (const at of ["2024-01-02T24:00", "2024-01-02T10:60", "2024-01-02T10:30:60", "2024-01-02"]) {
    assert.equal(isIsoDateTime(at), false, at);
  }
});

Deno.test("ISO dates: the same answers as the pattern-and-Date checks on random text", () => {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = (chars: string) => chars[Math.floor(random() * chars.length)];
  for (let i = 0; i < 50_000; i++) {
    // Dates and times with a digit or separator changed here and there.
    const two = () => pick("0123") + pick("0123456789");
    let text = `${pick("12")}${pick("09")}${pick("0129")}${pick("048")}-${two()}-${two()}`;
    if (random() < 0.5) text += `${pick("T x")}${two()}:${pick("0456")}${pick("09")}`;
    if (random() < 0.3) text += `:${pick("056")}${pick("09")}${pick(".Z+")}`;
    if (random() < 0.1) text = text.slice(0, 5) + pick("-/1") + text.slice(6);
    assert.equal(isIsoDate(text), referenceDate(text), text);
    assert.equal(isIsoDateTime(text), referenceDateTime(text), text);
  }
});
