/**
 * Composes the SQL of a table or view page from the table's facts and the request: filters,
 * search, hook filter arguments, sort, `_col`/`_nocol`, page size and the `_next` keyset
 * clause. Pure: the caller runs the SQL and hands the rows back to {@link TableQuery.page}.
 *
 * Search is computed here (not as a `filters_from_request` default plugin) because `_sort=_rank`
 * needs its match expression. `_where=` and `_through=` results, and every plugin's
 * `filters_from_request` result, arrive through `filter_arguments`.
 *
 * @module
 */

import { type SqlDialect, sqliteDialect } from "../db/dialect.ts";
import { readSetting, type SettingsLike } from "./args.ts";
import { columnsToSelect } from "./columns.ts";
import { type FilterArgumentsLike, mergeFilterArguments } from "./filter_arguments.ts";
import { columnFilters, type TableRequest } from "./table_request.ts";
import type { Filters } from "./filters.ts";
import {
  type KeysetShape,
  nextClause,
  nextToken,
  parsePageSize,
  sortValueLookup,
  usesOffset,
} from "./pagination.ts";
import { type SearchConfig, type SearchFacts, searchFilterArguments } from "./search.ts";
import {
  orderByTerms,
  parseSort,
  sortableColumns,
  sortArgs,
  type SortConfig,
  sortDescription,
  type SortOrder,
} from "./sort.ts";

/** What introspection knows about the table or view. */
export interface TableFacts extends Omit<SearchFacts, "table"> {
  /** Table or view name. */
  name: string;
  /** Column names in table order. */
  columns: string[];
  /** Primary key columns; empty for rowid tables and views. */
  pks: string[];
  /** True for SQL views. */
  is_view: boolean;
  /** Declared column types (`REAL` makes 12 print as `12.0` in tokens). */
  column_types?: Record<string, string | null>;
}

/** Table config (metadata) keys read while building the query. */
export interface TableQueryConfig extends SortConfig, SearchConfig {
  /** Default page size for this table (`_size` overrides). */
  size?: number | string;
}

/** Everything needed to build the page query. */
export interface TableQueryInput {
  table: TableFacts;
  /** The request's arguments, read once (`table_request.ts`). */
  request: TableRequest;
  settings?: SettingsLike;
  config?: TableQueryConfig;
  /** Results of `filters_from_request` hooks (`_where`, `_through`, plugins). */
  filter_arguments?: FilterArgumentsLike[];
  /** The database's SQL dialect (SQLite when not given). */
  dialect?: SqlDialect;
}

/** A page's rows and continuation, from {@link TableQuery.page}. */
export interface TablePage {
  /** At most `page_size` rows. */
  rows: Record<string, unknown>[];
  /** `_next` token for the following page, or null. */
  next: string | null;
  /** Arguments to replace in the current URL to reach the next page (`_next`, `_sort…`). */
  next_args: [string, string][];
}

/** Runs one lookup query and returns its first row as an object (or null). */
export type RowLookup = (
  sql: string,
  params: Record<string, unknown>,
) => Promise<Record<string, unknown> | null>;

/** The built query and what a view needs around it. */
export interface TableQuery {
  /** The page query: `select … from … where … order by … limit <size+1>`. */
  sql: string;
  /** Params of {@link sql} (filters, search, hooks, and the `_next` clause). */
  params: Record<string, unknown>;
  /** `select count(*) from … where …` (without the `_next` clause). */
  count_sql: string;
  /** The `from … where …` of {@link count_sql}, for capped counts (`src/table/count.ts`). */
  count_from: string;
  /** Every column, filtered, without order or limit: the base for facets. */
  sql_no_order_no_limit: string;
  /** Output columns of {@link sql_no_order_no_limit}, with `rowid` first for rowid tables. */
  facet_columns: string[];
  /** The request's column filters (on columns the table has). */
  filters: Filters;
  /** True when filters, search or hooks narrow the rows (an unfiltered count is the table's). */
  filtered: boolean;
  /** Params of {@link count_sql} and {@link sql_no_order_no_limit}. */
  from_params: Record<string, unknown>;
  /** {@link sql} without its page limit: every row from this page on (a `_stream=on` export). */
  export_sql: string;
  /** Output columns of {@link sql}, with `rowid` first for rowid tables. */
  columns: string[];
  /** Primary keys for display and `_shape=object` (`["rowid"]` for rowid tables). */
  primary_keys: string[];
  use_rowid: boolean;
  sort: SortOrder;
  /** `price desc, id`, or "" for views without a sort. */
  order_by: string;
  page_size: number;
  offset: number;
  /** `where … sorted by …`, or "". */
  human_description_en: string;
  /** Merged `extra_context` of search and hooks. */
  extra_context: Record<string, unknown>;
  /**
   * Trims the fetched rows (objects keyed by column) and computes the next token. When a sort
   * column is not among the selected columns (`_col`), `lookupRow(sql, params)` fetches it.
   */
  page(rows: Record<string, unknown>[], lookupRow?: RowLookup): Promise<TablePage>;
}

/** Builds the page, count and facet-base SQL for one table request. */
export function buildTableQuery(input: TableQueryInput): TableQuery {
  const { table, request, config = {} } = input;
  const dialect = input.dialect ?? sqliteDialect;
  const name = dialect.escapeIdentifier;
  const args = request.args;
  const keyless = !table.is_view && table.pks.length === 0;
  const useRowid = keyless && dialect.has_rowid;
  // A table without a key in an engine without rowids pages by offset, as views do, in the
  // order it is stored in.
  const byOffset = table.is_view || (keyless && !useRowid);
  const keyColumns = useRowid ? ["rowid"] : table.pks;
  // Views have no rowid; tables answer to it whatever their key.
  const filters = columnFilters(
    request,
    table.is_view || !dialect.has_rowid ? table.columns : [...table.columns, "rowid"],
  );
  const built = filters.build_where_clauses(table.name, dialect);
  const search = searchFilterArguments(args, { ...table, table: table.name }, config, dialect);
  const hooks = mergeFilterArguments([search.filter_arguments, ...(input.filter_arguments ?? [])]);
  const whereClauses = [...built.where_clauses, ...hooks.where_clauses];
  const fromParams: Record<string, unknown> = { ...built.params, ...hooks.params };

  const sortable = sortableColumns({ columns: table.columns, useRowid }, config);
  const sort = parseSort(args, {
    sortable,
    config,
    rankExpression: search.rank_expression,
    dialect,
  });
  const pageSize = parsePageSize(args, {
    max_returned_rows: readSetting(input.settings, "max_returned_rows"),
    default_page_size: readSetting(input.settings, "default_page_size"),
    configSize: config.size,
  });
  const shape = { pks: table.pks, useRowid, isView: byOffset, items: sort.items };

  const selected = columnsToSelect(args, table.columns, table.pks);
  const columns = useRowid ? ["rowid", ...selected] : selected;
  const allColumns = useRowid ? ["rowid", ...table.columns] : table.columns;
  const from = `from ${dialect.tableName(table.name)}`;
  const whereSql = (clauses: string[]) => clauses.length ? ` where ${clauses.join(" and ")}` : "";

  const params = { ...fromParams };
  const pageClauses = [...whereClauses];
  let offset = 0;
  const token = request.next;
  if (token) {
    const next = nextClause(token, shape, params, dialect);
    if (next.clause) pageClauses.push(next.clause);
    Object.assign(params, next.params);
    offset = next.offset;
  }
  const pkTerms = table.is_view
    ? []
    : keyless && !useRowid
    ? dialect.physical_order ? [dialect.physical_order] : []
    : keyColumns.map(name);
  const order_by = orderByTerms(sort.items, pkTerms, dialect).join(", ");
  const unlimited = `select ${columns.map(name).join(", ")} ${from}${whereSql(pageClauses)}${
    order_by ? ` order by ${order_by}` : ""
  }`;
  const sql = `${unlimited} limit ${pageSize + 1}${offset ? ` offset ${offset}` : ""}`;
  const description = [
    filters.human_description_en(hooks.human_descriptions),
    sortDescription(sort),
  ].filter(Boolean).join(" ");

  return {
    sql,
    export_sql: `${unlimited}${offset ? dialect.offsetOnly(offset) : ""}`,
    params,
    count_sql: `select count(*) ${from}${whereSql(whereClauses)}`,
    count_from: `${from}${whereSql(whereClauses)}`,
    sql_no_order_no_limit: `select ${allColumns.map(name).join(", ")} ${from}${
      whereSql(whereClauses)
    }`,
    from_params: fromParams,
    facet_columns: allColumns,
    filters,
    filtered: whereClauses.length > 0,
    columns,
    primary_keys: table.is_view ? [] : keyColumns,
    use_rowid: useRowid,
    sort,
    order_by,
    page_size: pageSize,
    offset,
    human_description_en: description,
    extra_context: hooks.extra_context,
    page: pager({ table, shape, sort, pageSize, offset, dialect }),
  };
}

/** What {@link pager} needs to cut a page and point at the next one. */
interface PagerInput {
  table: TableFacts;
  shape: KeysetShape;
  sort: SortOrder;
  pageSize: number;
  offset: number;
  dialect: SqlDialect;
}

/**
 * {@link TableQuery.page}: the fetched rows are `pageSize + 1` at most, so a surplus row means
 * there is a next page, whose token is built from the last row kept.
 */
function pager({ table, shape, sort, pageSize, offset, dialect }: PagerInput): TableQuery["page"] {
  return async (rows, lookupRow) => {
    if (pageSize === 0 || rows.length <= pageSize) {
      return { rows: rows.slice(0, pageSize), next: null, next_args: [] };
    }
    let last = rows[pageSize - 1];
    const missing = sort.items.some((item) => !(item.column in last));
    if (missing && lookupRow && !usesOffset(shape)) {
      const lookup = sortValueLookup(table.name, last, shape, dialect);
      last = { ...last, ...(await lookupRow(lookup.sql, lookup.params)) };
    }
    const next = nextToken(last, {
      ...shape,
      offset,
      pageSize,
      columnTypes: table.column_types,
    });
    const next_args: [string, string][] = [["_next", next]];
    // The sort keys are re-added in key order, so a mixed sort survives the replacement.
    if (!usesOffset(shape) || sort.items.length) next_args.push(...sortArgs(sort));
    return { rows: rows.slice(0, pageSize), next, next_args };
  };
}
