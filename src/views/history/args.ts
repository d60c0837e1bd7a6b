/**
 * The query of a history page, parsed once: which table and row (from the URL), which request
 * (`?request_id=`), which table on the database page (`?table=`), the page (`?_next=`, the id
 * the previous page stopped above) and its size (`?_size=`, at most 500).
 *
 * @module
 */

import type { Request } from "../../http/request.ts";
import { BadRequest } from "../../http/errors.ts";
import { tilde_decode } from "../../util/tilde.ts";

/** What a history page lists. */
export interface HistoryQuery {
  /** The table of a table or row page, or the `?table=` filter of the database page. */
  table: string | null;
  /** A row page: the key values from the URL, as text. */
  pks: string[] | null;
  /** The URL's key segment, tilde-encoded as it came. */
  pksPath: string | null;
  request_id: string | null;
  /** Only changes older than this id. */
  next: number | null;
  size: number;
  format: "html" | "json";
}

/** The largest `?_size=`. */
export const MAX_SIZE = 500;

/** Parses the URL and query string of a history page; unknown values are a 400. */
export function historyQuery(request: Request): HistoryQuery {
  const vars = request.url_vars;
  const args = request.args;
  const pathTable = vars.table ? tilde_decode(vars.table) : null;
  const number = (name: string, fallback: number | null): number | null => {
    const text = args.get(name);
    if (text === null || text === undefined || text === "") return fallback;
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new BadRequest(`${name} must be a positive whole number`);
    }
    return value;
  };
  const format = vars.format ?? "html";
  if (format !== "html" && format !== "json") throw new BadRequest(`Unknown format: ${format}`);
  return {
    table: pathTable ?? (args.get("table") || null),
    pks: vars.pks ? vars.pks.split(",").map(tilde_decode) : null,
    pksPath: vars.pks ?? null,
    request_id: args.get("request_id") || null,
    next: number("_next", null),
    size: Math.min(number("_size", 50)!, MAX_SIZE),
    format,
  };
}

/**
 * The texts a row's key may have been recorded as: history writes key values as JSON (`[1]`,
 * `["A/1001"]`), while a URL holds them as text, so a numeric-looking value may be either.
 */
export function keyCandidates(pks: string[]): string[] {
  let texts = [""];
  for (const value of pks) {
    const forms = [JSON.stringify(value)];
    if (/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(value)) forms.push(value);
    texts = texts.flatMap((text) => forms.map((form) => text ? `${text},${form}` : form));
  }
  return texts.map((text) => `[${text}]`);
}
