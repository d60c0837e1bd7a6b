/**
 * `_sort` / `_sort_desc` (API-DETAILS §3): validation, config defaults and the `order by`.
 * Both are repeatable and may be mixed — `_sort=a&_sort_desc=b` orders by `a, b desc`, keys in
 * query-string order — an extension of the reference, which reads only the first value and
 * refuses the mix. One column given both ways is still the reference's 400. `_sort=_rank` orders
 * by FTS5 relevance while `_search` is active (see `search.ts`).
 *
 * @module
 */

import { type SqlDialect, sqliteDialect } from "../db/dialect.ts";
import { argPairs, type ArgsLike } from "./args.ts";
import { TableArgsError } from "./errors.ts";

/** The pseudo-column for full-text relevance. */
export const RANK_COLUMN = "_rank";

/** One sort key. */
export interface SortItem {
  /** Name as given in the request (`price`, `rowid`, `_rank`). */
  column: string;
  /** True for `_sort_desc`. */
  desc: boolean;
  /** SQL for the key: the escaped column, or the rank expression. */
  expression: string;
}

/** The resolved sort of a table request. */
export interface SortOrder {
  /** `_sort` columns in effect (from the request or config `sort`). */
  sort: string[];
  /** `_sort_desc` columns in effect (from the request or config `sort_desc`). */
  sort_desc: string[];
  /** Sort keys in order; empty when the table keeps its default (primary key) order. */
  items: SortItem[];
}

/** Table config keys read here. */
export interface SortConfig {
  sort?: string | string[];
  sort_desc?: string | string[];
  sortable_columns?: string[];
}

const asList = (value: string | string[] | undefined): string[] =>
  (Array.isArray(value) ? value : value ? [value] : []).filter((v) => v !== "");

/**
 * Columns a request may sort by: config `sortable_columns`, else every column, plus `rowid`
 * for rowid tables.
 */
export function sortableColumns(
  facts: { columns: string[]; useRowid: boolean },
  config: SortConfig = {},
): string[] {
  const columns = config.sortable_columns ? [...config.sortable_columns] : [...facts.columns];
  if (facts.useRowid && !columns.includes("rowid")) columns.push("rowid");
  return columns;
}

/**
 * Reads `_sort` / `_sort_desc` (or the config defaults when neither is given) and checks every
 * column. `rankExpression` is the SQL for `_rank`, given only while a full-text search is
 * active on an FTS5 table.
 */
export function parseSort(
  args: ArgsLike,
  options: {
    sortable: string[];
    config?: SortConfig;
    rankExpression?: string | null;
    dialect?: SqlDialect;
  },
): SortOrder {
  const dialect = options.dialect ?? sqliteDialect;
  let keys = argPairs(args).filter(([key, value]) =>
    (key === "_sort" || key === "_sort_desc") && value !== ""
  ).map(([key, column]) => ({ column, desc: key === "_sort_desc" }));
  if (keys.length === 0) {
    // Config gives two lists, so their relative order is unknown: ascending keys first.
    keys = [
      ...asList(options.config?.sort).map((column) => ({ column, desc: false })),
      ...asList(options.config?.sort_desc).map((column) => ({ column, desc: true })),
    ];
  }
  const sort = keys.filter((key) => !key.desc).map((key) => key.column);
  const sort_desc = keys.filter((key) => key.desc).map((key) => key.column);
  if (sort.some((column) => sort_desc.includes(column))) {
    throw new TableArgsError("Cannot use _sort and _sort_desc at the same time");
  }
  const items = keys.map(({ column, desc }) => {
    if (column === RANK_COLUMN && options.rankExpression) {
      return { column, desc, expression: options.rankExpression };
    }
    if (!options.sortable.includes(column)) {
      throw new TableArgsError(`Cannot sort table by ${column}`, 400, sortChoices(options));
    }
    return { column, desc, expression: dialect.escapeIdentifier(column) };
  });
  return { sort, sort_desc, items };
}

/** The `_sort` / `_sort_desc` arguments that reproduce `order`, in its key order. */
export function sortArgs(order: SortOrder): [string, string][] {
  return order.items.map((item) => [item.desc ? "_sort_desc" : "_sort", item.column]);
}

/**
 * The sort arguments of a column heading's link: that column alone — descending when it already
 * was the sole (or leading) ascending key, else ascending. Clicking a heading never keeps the
 * other keys: adding a key is a deliberate act (`sortArgsAdded`).
 */
export function sortArgsAlone(order: SortOrder, column: string): [string, string][] {
  const first = order.items[0];
  const desc = first?.column === column && !first.desc;
  return [[desc ? "_sort_desc" : "_sort", column]];
}

/**
 * The sort arguments after adding `column` as the next key (shift-click on a heading, the column
 * menu): appended ascending, or — when it already is a key — its direction flipped in place.
 */
export function sortArgsAdded(order: SortOrder, column: string): [string, string][] {
  const known = order.items.some((item) => item.column === column);
  const items = known
    ? order.items.map((item) => item.column === column ? { ...item, desc: !item.desc } : item)
    : [...order.items, { column, desc: false, expression: "" }];
  return sortArgs({ ...order, items });
}

/**
 * `order by` terms for the sort keys followed by the tie-breaking primary keys, with NULLs where
 * SQLite puts them in every dialect (first ascending, last descending), which keyset pages rely on.
 */
export function orderByTerms(
  items: SortItem[],
  pkExpressions: string[],
  dialect: SqlDialect = sqliteDialect,
): string[] {
  const terms = items.map((item) => dialect.orderTerm(item.expression, item.desc));
  const sorted = new Set(items.map((item) => item.expression));
  return [...terms, ...pkExpressions.filter((pk) => !sorted.has(pk))];
}

/**
 * `sorted by price descending`, or "" without a sort. Keys sharing one direction read as the
 * reference's single-column form (`sorted by a, b descending`); a mix names each key's direction
 * (`sorted by a ascending, b descending`), since a trailing "descending" would be ambiguous.
 */
export function sortDescription(order: SortOrder): string {
  const { items } = order;
  if (items.length === 0) return "";
  const mixed = items.some((item) => item.desc !== items[0].desc);
  if (mixed) {
    const keys = items.map((item) => `${item.column} ${item.desc ? "descending" : "ascending"}`);
    return `sorted by ${keys.join(", ")}`;
  }
  const names = items.map((item) => item.column).join(", ");
  return `sorted by ${names}${items[0].desc ? " descending" : ""}`;
}

/** The columns `_sort` / `_sort_desc` take, for the error page (the first 30 of a wide table). */
function sortChoices(options: { sortable: string[]; rankExpression?: string | null }): string {
  const names = [...options.sortable, ...(options.rankExpression ? [RANK_COLUMN] : [])];
  const shown = names.slice(0, 30).join(", ");
  return `_sort and _sort_desc take one of: ${shown}${names.length > 30 ? ", …" : ""}`;
}
