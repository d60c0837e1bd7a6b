/** The index page `/`: every database the actor may see, with its biggest tables. */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { databaseColor } from "../../render/page_extras.ts";
import { isFile } from "../../util/files.ts";
import { tableCounts } from "../table_counts.ts";
import { respondWithFormat } from "../../render/output_format.ts";
import { renderPage } from "../../render/render_page.ts";
import { actionLinks, topHtml } from "../page_hooks.ts";
import { visibleDatabases } from "../visible_databases.ts";
import { CONFIGURATION_KEYS } from "../../config/config_file.ts";

/** How many tables and views each database shows on the index. */
const TRUNCATE_AT = 5;
/** Per-table count budget on the index; one timeout drops that database's counts. */
const INDEX_COUNT_LIMIT_MS = 10;

/** What 1.0 says of its index JSON, which it leaves out of its stable interface. */
const UNSTABLE = "Outside Vitrine's stable API: the shape of this index may still change";

/**
 * GET `/` and `/.json`. The JSON is 1.0's: `databases` is a list (it was an object keyed by
 * name before 1.0; docs/json-api.md "Changed from earlier versions").
 */
export async function indexView(svc: ViewHost, request: Request): Promise<Response> {
  await svc.ensure_permissions(request.actor, ["view-instance"]);
  const databases: Record<string, unknown>[] = [];
  for (const { db, isPrivate } of await visibleDatabases(svc, request.actor)) {
    // A file deleted a moment ago, before the data library (cli/library.ts) took it away,
    // cannot be opened: leave it out rather than fail the page.
    if (db.path !== null && !db.is_memory && !isFile(db.path)) continue;
    databases.push(await databaseSummary(svc, request, db, isPrivate));
  }
  const metadata = instanceMetadata(svc);
  return await respondWithFormat(request, {
    json: () => Response.json({ ok: true, unstable: UNSTABLE, databases, metadata }),
    html: async () => {
      const top = await topHtml(svc, "top_homepage", { request });
      return await renderPage(svc, request, "index.html", {
        databases,
        metadata,
        private: false,
        homepage_actions: await actionLinks(svc, "homepage_actions", {
          actor: request.actor,
          request,
        }),
        top_homepage: () => top,
      }, { view_name: "index" });
    },
  });
}

async function databaseSummary(
  svc: ViewHost,
  request: Request,
  db: Database,
  isPrivate: boolean,
): Promise<Record<string, unknown>> {
  const hidden = new Set(await db.hidden_table_names());
  const names = await db.table_names();
  const counts = await tableCounts(svc, db, names, {
    limitMs: INDEX_COUNT_LIMIT_MS,
    allOrNothing: true,
  });
  const tables = [];
  for (const name of names) {
    const [visible, tablePrivate] = await svc.check_visibility(request.actor, {
      action: "view-table",
      resource: [db.name, name],
    });
    if (!visible) continue;
    const unavailable = await db.table_unavailable(name);
    tables.push({
      name,
      columns: await db.table_columns(name),
      primary_keys: await db.primary_keys(name),
      count: counts[name],
      hidden: hidden.has(name),
      fts_table: await db.fts_table(name),
      // Filled in below when the order is by relationships, as the reference does.
      num_relationships_for_sorting: 0,
      private: tablePrivate,
      ...(unavailable ? { unavailable } : {}),
    });
  }
  // Like the reference: `?_sort=relationships`, or no usable counts, orders tables by how many
  // foreign keys point from or to them; then by count, then by name (both descending).
  // An unavailable table (missing module) never has a count; it does not hide the others'.
  const countable = tables.filter((t) => !t.unavailable).map((t) => counts[t.name]);
  const counted = countable.some((count) => count !== null);
  if (request.args.get("_sort") === "relationships" || !counted) {
    const keys = await db.get_all_foreign_keys();
    for (const table of tables) {
      const fks = keys[table.name];
      if (fks) table.num_relationships_for_sorting = fks.incoming.length + fks.outgoing.length;
    }
  }
  const shown = tables.filter((t) => !t.hidden);
  const hiddenTables = tables.filter((t) => t.hidden);
  shown.sort((a, b) =>
    b.num_relationships_for_sorting - a.num_relationships_for_sorting ||
    (b.count ?? 0) - (a.count ?? 0) || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0)
  );
  const views = [];
  for (const name of await db.view_names()) {
    const [visible, viewPrivate] = await svc.check_visibility(request.actor, {
      action: "view-table",
      resource: [db.name, name],
    });
    if (visible) views.push({ name, private: viewPrivate });
  }
  const tablesAndViews = [...shown, ...views];
  const sum = (list: { count: number | null }[]) =>
    list.reduce((total, t) => total + (t.count ?? 0), 0);
  return {
    name: db.name,
    hash: db.hash,
    color: databaseColor(db),
    path: String(svc.urls.database(db.name)),
    tables_and_views_truncated: tablesAndViews.slice(0, TRUNCATE_AT),
    tables_and_views_more: tablesAndViews.length > TRUNCATE_AT,
    tables_count: shown.length,
    table_rows_sum: sum(shown),
    show_table_row_counts: countable.every((count) => count !== null),
    hidden_table_rows_sum: sum(hiddenTables),
    hidden_tables_count: hiddenTables.length,
    views_count: views.length,
    private: isPrivate,
    // Attached while the server ran (a data library's new file): when, to the minute.
    ...(db.added_at ? { added_at: db.added_at.toISOString().slice(0, 16).replace("T", " ") } : {}),
  };
}

/**
 * Instance-level metadata: the describing keys only (title, license, source, about, …). Like the
 * reference (which keeps the others in its configuration file), `/.json`'s `metadata` leaves out
 * the keys that configure the instance.
 */
function instanceMetadata(svc: ViewHost): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(svc.metadata().instance()).filter(([key]) => !CONFIGURATION_KEYS.has(key)),
  );
}
