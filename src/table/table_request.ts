/**
 * A table page's query string, read once at the top of the view into one typed object: filters,
 * sort keys, page, size, shape, extras, facets, search and format. Everything below the view
 * takes this object, never the request, and every unknown or invalid argument is decided here:
 *
 * - an argument that names no column and no known option is not a filter and not an error
 *   (`?q=`, `?utm_source=` belong to plugins, templates and shared links);
 * - an unknown operator on a real column (`?price__bogus=5`) is a 400 naming the argument and
 *   the operators there are;
 * - `_sort` on a missing column and a malformed `_next` are 400s (`sort.ts`, `pagination.ts`).
 *
 * @module
 */

import { TableArgsError } from "./errors.ts";
import { FILTER_OPERATORS, Filters, filtersFromArgs, parseFilterKey } from "./filters.ts";
import { type JsonArgs, parseJsonArgs } from "./json_args.ts";

/** A table page's arguments, typed. */
export interface TableRequest {
  /**
   * Every argument in query-string order, as the builders of `src/table/` read them (a streamed
   * export adds `_size=max`, `_nofacet=1`, `_nocount=1`). Facet classes and `_where=` /
   * `_through=` receive these as the plugin API defines.
   */
  readonly args: URLSearchParams;
  /** The query string's pairs as the client sent them (links to other pages are built on them). */
  readonly pairs: readonly [string, string][];
  /** The format asked for: null for HTML, `json`, `csv`, … or a plugin renderer's extension. */
  readonly format: string | null;
  /** `_stream=on` on a text format: every row, without facets and counts. */
  readonly full_export: boolean;
  /** Candidate column filters (`col`, `col__op`), not yet checked against the table's columns. */
  readonly filters: Filters;
  /** `_next`, or null on the first page. */
  readonly next: string | null;
  /** `_timelimit` in milliseconds, or null. */
  readonly timelimit: number | null;
  /** `_search`, or null. */
  readonly search: string | null;
  /** `_fts_table` / `_fts_pk` overrides, or null. */
  readonly fts_table: string | null;
  readonly fts_pk: string | null;
  /** True when a `_facet` or `_facet_<kind>` argument is given. */
  readonly facets_asked: boolean;
  readonly nofacet: boolean;
  readonly nocount: boolean;
  readonly nosuggest: boolean;
  /** `_where=` clauses (custom SQL: needs `execute-sql`). */
  readonly where: readonly string[];
  /** The JSON arguments when the format is JSON (a bad `_shape` is a 400 there only), else null. */
  readonly json: JsonArgs | null;
  /** `_extra=` names, repeatable and comma-separated (any format may ask for extras). */
  readonly extras: readonly string[];
}

/** Reads the table page's arguments once (a bad `_shape` on a JSON page is a 400). */
export function parseTableRequest(
  pairs: readonly [string, string][],
  options: { format: string | null; full_export: boolean },
): TableRequest {
  const args = new URLSearchParams(pairs as [string, string][]);
  if (options.full_export) {
    args.set("_size", "max");
    args.set("_nofacet", "1");
    args.set("_nocount", "1");
  }
  const json = options.format === "json" ? parseJsonArgs(args) : null;
  return {
    args,
    pairs,
    format: options.format,
    full_export: options.full_export,
    filters: filtersFromArgs(args),
    next: args.get("_next") || null,
    timelimit: Number(args.get("_timelimit")) || null,
    search: args.get("_search"),
    fts_table: args.get("_fts_table") || null,
    fts_pk: args.get("_fts_pk") || null,
    facets_asked: [...args.keys()].some((k) => k === "_facet" || k.startsWith("_facet_")),
    // Any non-blank value counts, as in the reference (`_nofacet=1`, `_nofacet=on`).
    nofacet: Boolean(args.get("_nofacet")),
    nocount: Boolean(args.get("_nocount")),
    nosuggest: Boolean(args.get("_nosuggest")),
    where: args.getAll("_where"),
    json,
    extras: args.getAll("_extra").flatMap((v) => v.split(",")).map((v) => v.trim())
      .filter(Boolean),
  };
}

const OPERATOR_KEYS = FILTER_OPERATORS.map((op) => op.key);

/**
 * The request's filters on `columns` (the table's, with `rowid` for tables). An argument whose
 * column is not there is no filter: it belongs to someone else (a plugin's `?q=`, a shared link's
 * `?utm_source=`). One on a real column with an operator nothing implements is a 400.
 *
 * @throws {TableArgsError} for an unknown operator on a real column
 */
export function columnFilters(request: TableRequest, columns: readonly string[]): Filters {
  const known = new Set(columns);
  const kept: [string, string][] = [];
  for (const [key, value] of request.filters.pairs) {
    const { column, lookup } = parseFilterKey(key);
    if (known.has(column)) {
      if (!OPERATOR_KEYS.includes(lookup)) {
        throw new TableArgsError(
          `Invalid filter ${key}: unknown operator "${lookup}" (use one of ${
            OPERATOR_KEYS.join(", ")
          })`,
        );
      }
      kept.push([key, value]);
    } else if (known.has(key)) {
      // A column whose own name holds `__` (`a__b`): an exact match on it.
      kept.push([`${key}__exact`, value]);
    }
  }
  return new Filters(kept);
}
