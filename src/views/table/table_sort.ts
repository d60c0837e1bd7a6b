/**
 * The table page's sort controls: a heading link per sortable column (a click sorts by that column
 * alone; shift-click or the column menu adds it as the next key) and one form row per sort key, so
 * a page sorted by several columns keeps them all when the filter form is applied (`table_form.ts`
 * reads them back).
 *
 * @module
 */

import { queryPairs } from "../../http/request_state.ts";
import { sortArgsAdded, sortArgsAlone, type SortOrder } from "../../table/sort.ts";
import { pathWithReplacedArgs } from "../../table/url_args.ts";
import type { TableContext } from "./table_query.ts";

/** One sort key as the form shows it, with the names its fields submit. */
export interface SortRow {
  column: string | null;
  desc: boolean;
  /** `_sort` for the first row, `_sort_2`, `_sort_3`, … after it. */
  name: string;
  /** `_sort_by_desc`, `_sort_by_desc_2`, … (the "descending" checkbox). */
  desc_name: string;
}

/** The form's sort rows: one per key in effect, or a single empty row when unsorted. */
export function sortRows(order: SortOrder): SortRow[] {
  const keys = order.items.length ? order.items : [{ column: null, desc: false }];
  return keys.map(({ column, desc }, i) => ({
    column,
    desc,
    name: i === 0 ? "_sort" : `_sort_${i + 1}`,
    desc_name: i === 0 ? "_sort_by_desc" : `_sort_by_desc_${i + 1}`,
  }));
}

/** A heading of the HTML table. */
interface DisplayColumn {
  name: string;
  sortable: boolean;
}

/** How a heading shows and changes the sort. */
export interface SortLink {
  /** The page sorted by this column alone (null when the column is not sortable). */
  sort_url: string | null;
  /** The page with this column added as the next sort key (or its direction flipped). */
  add_sort_url: string | null;
  /** `asc` / `desc` when the column is one of the sort keys, else null. */
  sorted: "asc" | "desc" | null;
  /** 1 for the primary key, 2 for the next, …; null when not sorted by it. */
  sort_position: number | null;
  /** How many sort keys the page has (headings number their keys when there are several). */
  sort_count: number;
}

/** Display columns with their heading's sort link and current direction. */
export function withSortLinks<T extends DisplayColumn>(
  ctx: TableContext,
  columns: T[],
): (T & SortLink)[] {
  const { request, query } = ctx;
  const path = request.path;
  const current = queryPairs(request);
  const order = effectiveSort(ctx);
  const items = order.items;
  return columns.map((column) => {
    const position = items.findIndex((item) => item.column === column.name);
    const link = (args: [string, string][]) =>
      pathWithReplacedArgs(path, current, [
        ["_sort", null],
        ["_sort_desc", null],
        ["_next", null],
        ...args,
      ]);
    return {
      ...column,
      // Only the default key's own heading toggles it (to descending); others do not add it.
      sort_url: column.sortable
        ? link(sortArgsAlone(position === 0 ? order : query.sort, column.name))
        : null,
      add_sort_url: column.sortable ? link(sortArgsAdded(query.sort, column.name)) : null,
      sort_count: items.length,
      sorted: position < 0 ? null : items[position].desc ? "desc" : "asc",
      sort_position: position < 0 ? null : position + 1,
    };
  });
}

/**
 * The sort the page is in: the requested one, else — like the reference, which shows the arrow
 * on it — the table's default order by its single primary key or by rowid (ascending).
 */
export function effectiveSort(ctx: TableContext): SortOrder {
  const { query } = ctx;
  if (query.sort.items.length || ctx.is_view) return query.sort;
  const pks = ctx.facts.pks;
  const column = pks.length === 1 ? pks[0] : query.use_rowid ? "rowid" : null;
  if (column === null) return query.sort;
  const expression = `[${column.replaceAll("]", "]]")}]`;
  return { ...query.sort, items: [{ column, desc: false, expression }] };
}
