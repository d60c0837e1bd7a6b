/**
 * `_sort` / `_sort_desc` (API-DETAILS §3): validation, config defaults and the `order by`.
 * Both are repeatable — `_sort=a&_sort=b` orders by `a, b` — an extension of the reference,
 * which reads only the first value. `_sort=_rank` orders by FTS5 relevance while `_search` is
 * active (see `search.ts`).
 *
 * @module
 */

import { escapeSqlIdentifier } from "../util/sql.ts";
import { argList, type ArgsLike } from "./args.ts";
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
  options: { sortable: string[]; config?: SortConfig; rankExpression?: string | null },
): SortOrder {
  let sort = argList(args, "_sort").filter((v) => v !== "");
  let sort_desc = argList(args, "_sort_desc").filter((v) => v !== "");
  if (sort.length === 0 && sort_desc.length === 0) {
    sort = asList(options.config?.sort);
    sort_desc = asList(options.config?.sort_desc);
  }
  if (sort.length && sort_desc.length) {
    throw new TableArgsError("Cannot use _sort and _sort_desc at the same time");
  }
  const desc = sort_desc.length > 0;
  const items = (desc ? sort_desc : sort).map((column) => {
    if (column === RANK_COLUMN && options.rankExpression) {
      return { column, desc, expression: options.rankExpression };
    }
    if (!options.sortable.includes(column)) {
      throw new TableArgsError(`Cannot sort table by ${column}`);
    }
    return { column, desc, expression: escapeSqlIdentifier(column) };
  });
  return { sort, sort_desc, items };
}

/** `order by` terms for the sort keys followed by the tie-breaking primary keys. */
export function orderByTerms(items: SortItem[], pkExpressions: string[]): string[] {
  const terms = items.map((item) => item.desc ? `${item.expression} desc` : item.expression);
  const sorted = new Set(items.map((item) => item.expression));
  return [...terms, ...pkExpressions.filter((pk) => !sorted.has(pk))];
}

/** `sorted by price descending`, or "" without a sort. */
export function sortDescription(order: SortOrder): string {
  if (order.items.length === 0) return "";
  const names = order.items.map((item) => item.column).join(", ");
  return `sorted by ${names}${order.items[0].desc ? " descending" : ""}`;
}
