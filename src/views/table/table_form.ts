/**
 * The table page's filter form. It submits `_filter_column_N` / `_filter_op_N` / `_filter_value_N`
 * for each current filter, `_filter_column` / `_filter_op` / `_filter_value` for a new one, and a
 * row per sort key: `_sort` with the `_sort_by_desc` checkbox, then `_sort_N` / `_sort_by_desc_N`.
 * The view turns that into `col__op=value`, `_sort` and `_sort_desc` arguments and redirects, so
 * every filtered page has a plain, shareable URL.
 *
 * @module
 */

import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { type ArgPair, urlencode } from "../../table/url_args.ts";
import {
  FILTER_OPERATORS,
  type Filters,
  isFilterArgument,
  parseFilterKey,
} from "../../table/filters.ts";

const FORM_KEY = /^_filter_(column|op|value)(?:_(\d+))?$/;
/** The sort rows after the first: `_sort_2`, `_sort_3`, … */
const SORT_ROW = /^_sort_(\d+)$/;

/** A 302 to the clean URL when the request comes from the filter form, else null. */
export function filterFormRedirect(request: Request): Response | null {
  const pairs = new URLSearchParams(request.query_string);
  const keys = [...pairs.keys()];
  const fromForm = (key: string) =>
    key.startsWith("_filter_column") || key.startsWith("_sort_by_desc") || SORT_ROW.test(key);
  if (!keys.some(fromForm)) return null;
  const form = new Map<string, { column?: string; op?: string; value?: string }>();
  const kept: ArgPair[] = [];
  for (const [key, value] of pairs.entries()) {
    const match = FORM_KEY.exec(key);
    if (match) {
      const slot = form.get(match[2] ?? "new") ?? {};
      slot[match[1] as "column" | "op" | "value"] = value;
      form.set(match[2] ?? "new", slot);
    } else if (!key.startsWith("_sort")) {
      // Existing filters are re-sent by the form's numbered rows, so drop the old ones.
      if (!isFilterArgument(key)) kept.push([key, value]);
    }
  }
  const filters: ArgPair[] = [];
  for (const { column, op = "exact", value = "" } of form.values()) {
    if (!column) continue;
    const [lookup, fixedValue] = op.endsWith("__1") ? [op.slice(0, -3), "1"] : [op, value];
    const bare = lookup === "exact" && !column.startsWith("_") && !column.includes("__");
    filters.push([bare ? column : `${column}__${lookup}`, fixedValue]);
  }
  const query = urlencode([...filters, ...kept, ...formSorting(pairs)]);
  const path = request.path;
  return Response.redirect(query ? `${path}?${query}` : path);
}

/**
 * The sort arguments the form's sort rows ask for: `_sort` (+ checkbox `_sort_by_desc`) first,
 * then `_sort_N` (+ `_sort_by_desc_N`) by N, then any other `_sort` / `_sort_desc` of the URL.
 * Rows set to "none" are skipped, and a column named twice keeps its first place.
 */
function formSorting(pairs: URLSearchParams): ArgPair[] {
  const rows: { slot: number; column: string; desc: boolean }[] = [];
  let primarySeen = false;
  for (const [key, value] of pairs.entries()) {
    const row = SORT_ROW.exec(key);
    if (row) {
      rows.push({
        slot: Number(row[1]),
        column: value,
        desc: pairs.has(`_sort_by_desc_${row[1]}`),
      });
    } else if (key === "_sort" && !primarySeen) {
      primarySeen = true;
      rows.push({ slot: 0, column: value, desc: pairs.has("_sort_by_desc") });
    } else if (key === "_sort" || key === "_sort_desc") {
      rows.push({ slot: Infinity, column: value, desc: key === "_sort_desc" });
    }
  }
  const seen = new Set<string>();
  const sorting: ArgPair[] = [];
  for (const { column, desc } of rows.sort((a, b) => a.slot - b.slot)) {
    if (!column || seen.has(column)) continue;
    seen.add(column);
    sorting.push([desc ? "_sort_desc" : "_sort", column]);
  }
  return sorting;
}

/** The current filters for the form's rows: `{column, lookup, value}` of known operators. */
export function currentFilters(
  filters: Filters,
): { column: string; lookup: string; value: string }[] {
  const known = new Set(FILTER_OPERATORS.map((op) => op.key));
  return filters.pairs.map(([key, value]) => ({ ...parseFilterKey(key), value }))
    .filter((f) => known.has(f.lookup));
}

/** The operators offered by the form. */
export function lookups(): { key: string; display: string; no_argument: boolean }[] {
  return FILTER_OPERATORS.map(({ key, display, no_argument }) => ({ key, display, no_argument }));
}
