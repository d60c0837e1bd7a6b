/**
 * Table page, steps 1–3: gather the table's facts (columns, keys, types, full-text index, foreign
 * keys and their label columns), collect the filter arguments (`_where=`, `_through=`,
 * `filters_from_request` hooks), build the query with `src/table/`, and run one page of it.
 *
 * @module
 */

import { realColumnTypes } from "../../render/json.ts";
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Forbidden } from "../../http/errors.ts";
import { InvalidSql } from "../../util/sql.ts";
import { StatusError } from "../../util/errors.ts";
import { QueryError } from "../../db/errors.ts";
import { ensureSqlTablesVisible } from "../../auth/sql_access.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import type { Row } from "../../db/results.ts";
import type { BindParams, SqlValue } from "../../db/values.ts";
import { buildTableQuery, type TableFacts, type TableQuery } from "../../table/table_sql.ts";
import type { TableRequest } from "../../table/table_request.ts";
import {
  type FilterArgumentsLike,
  type ForeignKey,
  throughFilterArguments,
  whereFilterArguments,
} from "../../table/filter_arguments.ts";
import { TableArgsError } from "../../table/errors.ts";
import { pathWithReplacedArgs } from "../../table/url_args.ts";
import type { CellForeignKey } from "../../render/render_cell.ts";
import type { RowsJsonRequest } from "../../db/read_query.ts";
import type { TextRowsOptions } from "../../util/text_rows.ts";
import { openCursorExport } from "../export_cursor.ts";
import { compoundKeys, labelColumns } from "./table_foreign_keys.ts";

/** Everything the later steps of the table page share. */
export interface TableContext {
  svc: ViewHost;
  request: Request;
  db: Database;
  table: string;
  is_view: boolean;
  /** True when anonymous users could not see this table. */
  private: boolean;
  /** The request's arguments, read once at the top of the view. */
  params: TableRequest;
  facts: TableFacts & { column_details: Record<string, unknown>[] };
  /** Table metadata (`sortable_columns`, `facets`, `label_column`, …). */
  config: Record<string, unknown>;
  /** Outgoing single- and multi-column foreign keys. */
  foreign_keys: ForeignKey[];
  compound_keys: CellForeignKey[];
  /** Label column of each referenced table (null when none). */
  label_columns: Map<string, string | null>;
  query: TableQuery;
  filter_arguments: FilterArgumentsLike[];
  /**
   * The page's queries may be answered from the query cache: a database file (the cache keys a
   * mutable one by its `data_version`) and SQL that is Vitrine's own (no `_where=` clause, no
   * clause from a `filters_from_request` plugin, either of which could call a function like
   * `random()`), on a table or a repeatable view (`db/repeatable.ts`).
   */
  cacheable: boolean;
}

/** One fetched page of the table query. */
export interface FetchedPage {
  /** The page's rows (parsed from the worker's answer on first read). */
  readonly rows: SqlValue[][];
  /** The rows already written as JSON by the read worker (when `json_rows` was asked). */
  encoded: { bytes: Uint8Array; options: RowsJsonRequest } | null;
  /** The rows already written as export lines by the read worker (when `text` was asked). */
  lines: Uint8Array | null;
  /** `REAL` for the columns whose numbers on this page were all stored as REAL. */
  real_column_types: Record<string, string>;
  next: string | null;
  /** Absolute URL of the next page, or null. */
  next_url: string | null;
}

/** Builds the TableContext for a request (throws 400/403 for bad arguments). */
export async function prepareTable(
  svc: ViewHost,
  request: Request,
  resolved: { db: Database; table: string; is_view: boolean; private: boolean },
  params: TableRequest,
): Promise<TableContext> {
  const { db, table, is_view } = resolved;
  const config = (svc.metadata().table(db.name, table) ?? {}) as Record<string, unknown>;
  const facts = await tableFacts(db, table, is_view, config);
  const foreign_keys = is_view ? [] : await db.foreign_keys_for_table(table);
  const label_columns = await labelColumns(svc, request, db, foreign_keys);
  await checkSearchArgs(svc, request, db, facts, params);
  const filter_arguments = await filterArguments(svc, request, db, table, params);
  const query = buildTableQuery({
    table: facts,
    request: params,
    settings: svc.settings,
    config,
    filter_arguments,
    dialect: db.dialect,
  });
  return {
    svc,
    request,
    db,
    table,
    is_view,
    private: resolved.private,
    params,
    facts,
    config,
    foreign_keys,
    compound_keys: is_view ? [] : await compoundKeys(db, table),
    label_columns,
    query,
    filter_arguments,
    cacheable: !db.is_memory && params.where.length === 0 &&
      filter_arguments.slice(2).every((f) => !f.where_clauses?.length) &&
      (!is_view || await db.is_repeatable(table)),
  };
}

/**
 * Each table's facts, by the column details they were read from: the schema cache hands out the
 * same details until the schema changes (then it reads them again, and every other answer the
 * facts are made of too), so facts found here are current. A page asks on every request.
 */
const keptFacts = new WeakMap<readonly Row[], Map<string, TableContext["facts"]>>();

async function tableFacts(
  db: Database,
  table: string,
  is_view: boolean,
  config: Record<string, unknown>,
): Promise<TableContext["facts"]> {
  const rows = await db.table_column_details(table);
  const configuredFts = config.fts_table as string | undefined;
  const key = `${is_view}\u0000${configuredFts ?? "\u0001"}`;
  let kept = keptFacts.get(rows);
  const known = kept?.get(key);
  if (known) return known;
  const details = rows.map((row) => row.toObject());
  // Every column `table_xinfo` lists, as the reference selects them: the hidden columns of
  // full-text tables (the table-named column, `docid`, `__langid`, `rank`) and generated columns.
  const columns = details.map((d) => String(d.name));
  const column_types: Record<string, string | null> = {};
  for (const d of details) column_types[String(d.name)] = (d.type as string | null) || null;
  const fts_table = is_view ? null : configuredFts ?? await db.fts_table(table);
  const ftsDefinition = fts_table ? await db.get_table_definition(fts_table) : null;
  const facts = {
    name: table,
    columns,
    pks: is_view ? [] : await db.primary_keys(table),
    is_view,
    column_types,
    column_details: details,
    fts_table,
    fts_columns: fts_table ? await db.table_columns(fts_table) : [],
    is_fts5: /using\s+fts5/i.test(ftsDefinition ?? ""),
    text_columns: columns.filter((c) => /TEXT|CHAR|CLOB|^$/i.test(column_types[c] ?? "")),
    // A ready-made search document (PostgreSQL); SQLite searches its FTS tables instead.
    search_vector: columns.find((c) => column_types[c] === "tsvector") ?? null,
  };
  // Shared by every page of the table from now on: frozen, so that none can change it for others.
  for (const value of Object.values(facts)) if (typeof value === "object") Object.freeze(value);
  for (const detail of details) Object.freeze(detail);
  if (!kept) keptFacts.set(rows, kept = new Map());
  kept.set(key, Object.freeze(facts));
  return facts;
}

/**
 * `_fts_table=` / `_fts_pk=` name SQL objects from the URL: the table must be a full-text index
 * the actor may see (matches against a hidden index would reveal its contents), the key a column.
 */
async function checkSearchArgs(
  svc: ViewHost,
  request: Request,
  db: Database,
  facts: TableFacts,
  params: TableRequest,
): Promise<void> {
  const ftsTable = params.fts_table;
  if (ftsTable) {
    const definition = await db.table_exists(ftsTable)
      ? await db.get_table_definition(ftsTable)
      : null;
    if (!/using\s+fts[345]/i.test(definition ?? "")) {
      throw new TableArgsError(`Invalid _fts_table: ${ftsTable}`);
    }
    const [visible] = await svc.check_visibility(request.actor, {
      action: "view-table",
      resource: [db.name, ftsTable],
    });
    if (!visible) throw new Forbidden("You do not have permission to view the _fts_table");
  }
  const ftsPk = params.fts_pk;
  if (ftsPk && ftsPk !== "rowid" && !facts.columns.includes(ftsPk)) {
    throw new TableArgsError(`Invalid _fts_pk: ${ftsPk}`);
  }
}

/** `_where=` (needs `execute-sql`), `_through=`, then every `filters_from_request` hook. */
async function filterArguments(
  svc: ViewHost,
  request: Request,
  db: Database,
  table: string,
  params: TableRequest,
): Promise<FilterArgumentsLike[]> {
  const args = params.args;
  const allowed = params.where.length
    ? await svc.permission_allowed(request.actor, "execute-sql", db.name) !== false
    : true;
  const where = whereFilterArguments(args, {
    allowed,
    path: request.path,
  });
  // A `_where=` clause is custom SQL: it may not read tables the actor cannot view.
  const clauses = params.where.join("\n");
  if (clauses) await ensureSqlTablesVisible(svc, request.actor, db, clauses);
  const through = await throughFilterArguments(args, table, async (t) => {
    // Filtering through a table reveals which of its rows exist.
    const [visible] = await svc.check_visibility(request.actor, {
      action: "view-table",
      resource: [db.name, t],
    });
    if (!visible) throw new Forbidden("You do not have permission to view the _through table");
    return await db.foreign_keys_for_table(t);
  }, db.dialect);
  const fromHooks = await svc.hooks.call("filters_from_request", {
    request,
    database: db.name,
    table,
  });
  return [where, through, ...(fromHooks as FilterArgumentsLike[])];
}

/** SQLite's SQLITE_MISMATCH: PostgreSQL refused a bound value for its column's type. */
const DATA_MISMATCH = 20;

/**
 * The 400 a failed table query is to the visitor: a filter value the column's type refuses
 * (PostgreSQL's `?id=abc` on an int; SQLite compares it and finds no rows), or "Invalid SQL".
 */
function userError(error: unknown): unknown {
  if (!(error instanceof QueryError) || error.storage_failure) return error;
  if (error.code === DATA_MISMATCH) {
    return new StatusError(
      400,
      `A filter's value does not fit its column's type: ${error.message}`,
      { title: "Invalid filter", cause: error },
    );
  }
  return new InvalidSql(error.message, { cause: error });
}

/** Runs the page query and works out the `_next` token and URL. */
export async function fetchPage(
  ctx: TableContext,
  query: TableQuery = ctx.query,
  json: RowsJsonRequest | null = null,
  text: TextRowsOptions | null = null,
): Promise<FetchedPage> {
  const { svc, request, db } = ctx;
  const limit = ctx.params.timelimit;
  // The SQL carries its own `limit size+1`; execute()'s cap would drop the look-ahead row.
  const results = await db.execute(query.sql, query.params as BindParams, {
    truncate: false,
    custom_time_limit: limit,
    json_rows: json,
    text_rows: text,
    // Pages of an export are read once each: kept, they would only push useful answers out.
    cache: ctx.cacheable && text === null,
  }).catch((error) => {
    // Names are quoted and values bound, so an SQLite error here comes from SQL the user wrote
    // (`_where=`, a raw full-text query): theirs to fix, a 400 like the reference's.
    throw userError(error);
  });
  // The pager reads the count and the last row of the page only: one object, not one per row
  // (and, for a page the worker wrote as JSON, without parsing the others at all).
  const objects = new Array<Record<string, unknown>>(results.length);
  const last = query.page_size - 1;
  if (last >= 0 && results.length > query.page_size) {
    objects[last] = rowObject(results.columns, results.page?.edge ?? results.values[last]);
  }
  const page = await query.page(objects, async (sql, params) => {
    return (await db.execute(sql, params as BindParams)).first()?.toObject() ?? null;
  });
  let rows: SqlValue[][] | null = null;
  const fetched = {
    get rows() {
      return rows ??= results.values.slice(0, query.page_size);
    },
    encoded: results.page && json ? { bytes: results.page.bytes, options: json } : null,
    lines: results.page && text ? results.page.bytes : null,
    real_column_types: realColumnTypes(results.columns, results.real_columns),
  };
  if (!page.next) return Object.assign(fetched, { next: null, next_url: null });
  const path = pathWithReplacedArgs(request.path, [...ctx.params.pairs], page.next_args);
  return Object.assign(fetched, { next: page.next, next_url: svc.absolute_url(request, path) });
}

/**
 * The declared column types with `REAL` for the columns whose numbers on `page` were all stored as
 * REAL (an untyped column, a view's expression): their whole numbers print as `12.0`.
 */
export function pageColumnTypes(
  ctx: TableContext,
  page: Pick<FetchedPage, "real_column_types">,
): Record<string, string | null> {
  const declared = ctx.facts.column_types ?? {};
  const stored = page.real_column_types;
  return Object.keys(stored).length ? { ...declared, ...stored } : declared;
}

/** One row as `{column: value}`; the first of duplicate names wins, as in `Row.toObject()`. */
function rowObject(columns: string[], row: SqlValue[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    if (!Object.hasOwn(out, column)) out[column] = row[i];
  });
  return out;
}

/** The following page after `next` (for `_stream=on`), with the same filters and sort. */
export async function fetchAfter(
  ctx: TableContext,
  next: string,
  text: TextRowsOptions | null = null,
): Promise<{ rows: SqlValue[][]; next: string | null; lines: Uint8Array | null }> {
  const page = await fetchPage(ctx, queryAfter(ctx, next), null, text);
  return {
    get rows() {
      return page.rows;
    },
    next: page.next,
    lines: page.lines,
  };
}

/** The table query of the page after `next`, with the request's filters and sort. */
function queryAfter(ctx: TableContext, next: string) {
  return buildTableQuery({
    table: ctx.facts,
    request: { ...ctx.params, next },
    settings: ctx.svc.settings,
    config: ctx.config,
    filter_arguments: ctx.filter_arguments,
    dialect: ctx.db.dialect,
  });
}

/** How a `_stream=on` export goes on after its first page. */
export interface ExportPages {
  fetchNext(
    next: string,
    text?: TextRowsOptions | null,
  ): Promise<{ rows: SqlValue[][]; next: string | null; lines: Uint8Array | null }>;
  closeStream(): void;
}

/**
 * The first page of a `_stream=on` table or view export and how it goes on, every row from one
 * cursor over the export query (`views/export_cursor.ts`): one statement, one snapshot, no key
 * seek or `OFFSET` per page. Null without read workers (then {@link exportPages}).
 */
export async function exportFromCursor(
  ctx: TableContext,
): Promise<{ page: FetchedPage; more: ExportPages } | null> {
  const limit = ctx.params.timelimit;
  const query = ctx.query;
  const cursor = await openCursorExport(ctx.db, query.export_sql, query.params as BindParams, limit)
    .catch((error) => {
      // As in `fetchPage`: an SQLite error here comes from SQL the user wrote.
      throw userError(error);
    });
  if (!cursor) return null;
  const page: FetchedPage = {
    rows: cursor.rows,
    encoded: null,
    lines: null,
    real_column_types: cursor.column_types,
    next: cursor.next,
    next_url: null,
  };
  return { page, more: { fetchNext: cursor.fetchNext, closeStream: cursor.closeStream } };
}

/** A table or view export without read workers: page after page with `fetchAfter`. */
export function exportPages(ctx: TableContext): ExportPages {
  return {
    fetchNext: (next, text = null) => fetchAfter(ctx, next, text),
    closeStream() {},
  };
}
