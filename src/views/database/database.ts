/**
 * The database page `/<db>(.json)`: tables with row counts, views, canned queries and the SQL
 * form. With `?sql=` the same URL is the custom SQL page (the spec's form, answered directly).
 * The `.db` download lives in database_download.ts and is re-exported for the route table.
 */
import type { ViewHost } from "../host.ts";
import type { Actor } from "../../http/actor.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { tableCounts } from "../table_counts.ts";
import { respondWithFormat } from "../../render/output_format.ts";
import { renderPage } from "../../render/render_page.ts";
import { templateCandidates } from "../../render/template_lookup.ts";
import { cannedQueries, type CannedQueryDefinition } from "../../config/canned_query_catalog.ts";
import { customSqlView } from "../query/query.ts";
import { mayStoreQuery, storedQueryVisibility } from "../query/stored_access.ts";
import { downloadAllowed } from "./database_download.ts";
import { queriesJson } from "./queries_json.ts";
import { describingMetadata } from "../query/query_json.ts";
import { actionLinks, topHtml } from "../page_hooks.ts";

export { databaseDownloadView } from "./database_download.ts";

/** Per-table budget for the page's row counts; a slow count shows as "Many rows". */
const COUNT_LIMIT_MS = 25;

/** GET `/<db>` and `/<db>.json`; with `?sql=` the custom SQL page. */
export async function databaseView(svc: ViewHost, request: Request): Promise<Response> {
  if (request.args.get("sql")) return await customSqlView(svc, request);
  const db = svc.resolve_database(request);
  const actor = request.actor;
  await svc.ensure_permissions(actor, [["view-database", db.name], "view-instance"]);
  const [, isPrivate] = await svc.check_visibility(actor, {
    action: "view-database",
    resource: db.name,
  });
  const allowExecuteSql = Boolean(
    await svc.permission_allowed(actor, "execute-sql", db.name),
  );
  const tables = await listTables(svc, db, actor);
  const views = await listViews(svc, db, actor);
  const queries = await listQueries(svc, db, actor);
  const metadata = describingMetadata(svc.metadata().database(db.name));
  const data: Record<string, unknown> = {
    ok: true,
    database: db.name,
    private: isPrivate,
    path: String(svc.urls.database(db.name)),
    size: db.size,
    tables,
    hidden_count: tables.filter((table) => table.hidden).length,
    views,
    queries,
    allow_execute_sql: allowExecuteSql,
  };
  // Column names are only for the SQL editor's completion: no SQL, no schema details.
  if (allowExecuteSql) {
    const visible = new Set([...tables, ...views].map((entry) => entry.name));
    data.table_columns = await tableColumns(db, visible);
  }
  data.metadata = metadata;
  return await respondWithFormat(request, {
    // 1.0's query listing (stored queries too, with 1.0's keys) and its list keys after it.
    json: async () => {
      const { queries: _canned, allow_execute_sql, ...rest } = data;
      const listing = await queriesJson(svc, db, actor, queries);
      return Response.json(spliceAfter(rest, "views", { ...listing, allow_execute_sql }));
    },
    html: async () => {
      const database_actions = await actionLinks(svc, "database_actions", {
        actor,
        database: db.name,
        request,
      });
      const top = await topHtml(svc, "top_database", { request, database: db.name });
      // The page's `metadata` comes from the shared context (title, licence inherited).
      const { metadata: _json, ok: _ok, ...page } = data;
      return await renderPage(svc, request, templateCandidates("database", { database: db.name }), {
        ...page,
        // The template wants a `write` flag on every query, configured or not.
        queries: [
          ...queries.map((query) => ({ ...query, write: Boolean(query.write) })),
          ...await listStoredQueries(svc, db, actor),
        ],
        stored_queries_url: `${svc.urls.database(db.name)}/-/queries`,
        store_query_url: await mayStoreQuery(svc, actor, db)
          ? `${svc.urls.database(db.name)}/-/queries/store`
          : null,
        show_hidden: Boolean(request.args.get("_show_hidden")),
        database_actions,
        top_database: () => top,
        allow_download: await downloadAllowed(svc, db, actor),
        renderers: { json: String(svc.urls.database(db.name, { format: "json" })) },
        default_sql: defaultSql(db, tables),
        attached_databases: await attachedDatabases(svc, db, actor),
      }, { view_name: "database", database: db.name });
    },
  });
}

interface TableEntry {
  name: string;
  columns: string[];
  primary_keys: string[];
  count: number | null;
  count_truncated: boolean;
  hidden: boolean;
  fts_table: string | null;
  foreign_keys: unknown;
  private: boolean;
  /** Why the table cannot be read (a missing virtual-table module); only when it cannot. */
  unavailable?: string;
}

/** Visible tables, visible ones first then hidden, each group by name. */
async function listTables(svc: ViewHost, db: Database, actor: Actor | null): Promise<TableEntry[]> {
  const names = await db.table_names();
  const hidden = new Set(await db.hidden_table_names());
  const counts = await tableCounts(svc, db, names, { limitMs: COUNT_LIMIT_MS });
  const foreignKeys = await db.get_all_foreign_keys();
  const privacy = new Map<string, boolean>();
  for (const name of names) {
    const [visible, isPrivate] = await svc.check_visibility(actor, {
      action: "view-table",
      resource: [db.name, name],
    });
    if (visible) privacy.set(name, isPrivate);
  }
  // Foreign keys name their other table: keep only those pointing at tables the actor may see.
  const seen = (fk: { other_table: string }) => privacy.has(fk.other_table);
  const tables: TableEntry[] = [];
  for (const [name, isPrivate] of privacy) {
    const keys = foreignKeys[name] ?? { incoming: [], outgoing: [] };
    const unavailable = await db.table_unavailable(name);
    tables.push({
      name,
      columns: await db.table_columns(name),
      primary_keys: await db.primary_keys(name),
      count: counts[name] ?? null,
      // 1.0's flag for a count cut at a cap; these counts are exact, or null when too slow.
      count_truncated: false,
      hidden: hidden.has(name),
      fts_table: await db.fts_table(name),
      foreign_keys: { incoming: keys.incoming.filter(seen), outgoing: keys.outgoing.filter(seen) },
      private: isPrivate,
      ...(unavailable ? { unavailable } : {}),
    });
  }
  return tables.sort((a, b) =>
    Number(a.hidden) - Number(b.hidden) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}

/** Visible SQL views, by name (as 1.0 lists them). */
async function listViews(svc: ViewHost, db: Database, actor: Actor | null) {
  const views = [];
  for (const name of [...await db.view_names()].sort()) {
    const [visible, isPrivate] = await svc.check_visibility(actor, {
      action: "view-table",
      resource: [db.name, name],
    });
    if (visible) views.push({ name, private: isPrivate });
  }
  return views;
}

/** Canned queries (metadata and hooks) the actor may see, each with `private`. */
async function listQueries(
  svc: ViewHost,
  db: Database,
  actor: Actor | null,
): Promise<(CannedQueryDefinition & { private: boolean })[]> {
  const queries = [];
  for (const query of (await cannedQueries(svc, db.name, actor)).values()) {
    const [visible, isPrivate] = await svc.check_visibility(actor, {
      action: "view-query",
      resource: [db.name, query.name],
    });
    if (visible) queries.push({ ...query, private: isPrivate });
  }
  return queries;
}

/** The stored queries the actor may see, shaped like canned ones for the page's list. */
async function listStoredQueries(
  svc: ViewHost,
  db: Database,
  actor: Actor | null,
): Promise<Record<string, unknown>[]> {
  const queries = [];
  for (const query of await svc.stored_queries.list(db.name)) {
    const [visible, isPrivate] = await storedQueryVisibility(svc, actor, query);
    if (!visible) continue;
    const { name, title, description, sql, fragment } = query;
    queries.push({ name, title, description, sql, fragment, private: isPrivate, stored: true });
  }
  return queries;
}

/** Table → sorted column names, then every view with an empty list (the reference's shape). */
async function tableColumns(
  db: Database,
  visible: Set<string>,
): Promise<Record<string, string[]>> {
  const result: Record<string, string[]> = {};
  // In name order, as the `tables` list (the reference's key order, example 02).
  for (const table of [...await db.table_names()].sort()) {
    if (visible.has(table)) result[table] = [...await db.table_columns(table)].sort();
  }
  for (const view of await db.view_names()) if (visible.has(view)) result[view] = [];
  return result;
}

/**
 * With `--crossdb`, the databases `/_memory` ATTACHes (file databases, at most ten, the same
 * list as auth/sql_access.ts) that the actor may see: an empty editor says nothing about them.
 */
async function attachedDatabases(svc: ViewHost, db: Database, actor: Actor | null) {
  if (!svc.options.crossdb || db.name !== "_memory") return [];
  const names = [];
  for (const other of [...svc.databases.values()].filter((d) => !d.is_memory).slice(0, 10)) {
    const [visible] = await svc.check_visibility(actor, {
      action: "view-database",
      resource: other.name,
    });
    if (visible) names.push(other.name);
  }
  return names;
}

/** A starting query for the editor: the first visible table. */
function defaultSql(db: Database, tables: TableEntry[]): string {
  const first = tables.find((table) => !table.hidden);
  if (!first) return "";
  // SQLite's editor has always started with the bracketed name.
  const from = db.engine === "sqlite"
    ? `[${first.name.replaceAll("]", "]]")}]`
    : db.dialect.tableName(first.name);
  return `select * from ${from} limit 10`;
}

/** `entries` with `added` inserted after `key` (the JSON's key order). */
function spliceAfter(
  entries: Record<string, unknown>,
  key: string,
  added: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(entries)) {
    out[name] = value;
    if (name === key) Object.assign(out, added);
  }
  return out;
}
