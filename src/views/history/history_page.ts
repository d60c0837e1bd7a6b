/**
 * History pages, HTML and `.json`: `/<db>/-/history` (recent changes of a database, filtered by
 * `?table=` and `?request_id=`), `/<db>/<table>/-/history` and `/<db>/<table>/<pks>/-/history`
 * (one row's changes, linked from the row page). Each change shows its id, actor, time,
 * operation, the values before and after, and the request that made it; actors holding
 * `revert-change` get buttons that undo one change or its whole request. Only changes to tables
 * the actor may see are listed.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { NotFound } from "../../http/errors.ts";
import { Response } from "../../http/response.ts";
import { renderPage } from "../../render/render_page.ts";
import type { HistoryEntry } from "../../db/history/store.ts";
import { parseRow } from "../../db/history/values.ts";
import { integralRealText } from "../../util/json_rows.ts";
import { rowPathOf } from "../../util/tilde.ts";
import { allowed, requireVisible, targetDatabase } from "../write/target.ts";
import { type HistoryQuery, historyQuery, keyCandidates } from "./args.ts";

/** GET a history page. */
export async function historyView(svc: ViewHost, request: Request): Promise<Response> {
  const db = targetDatabase(svc, request);
  const query = historyQuery(request);
  const pathTable = request.url_vars.table ? query.table : null;
  await requireVisible(svc, request.actor, db.name, pathTable);
  const found = await svc.history.changes(db, {
    table: query.table,
    pks: query.pks ? keyCandidates(query.pks) : null,
    request_id: query.request_id,
    before_id: query.next,
    limit: query.size,
  });
  // A table that is not there and has no recorded change has no history page: a 404 as the write
  // endpoints answer (a dropped table's recorded changes stay readable here).
  if (pathTable && !found.length && query.next === null && !(await db.table_exists(pathTable))) {
    throw new NotFound(`Table not found: ${pathTable}`);
  }
  const changes = await visibleOnly(svc, request, db.name, found);
  const nextId = found.length === query.size ? found[found.length - 1].id : null;
  const nextUrl = nextId === null ? null : pageUrl(request, nextId);
  const mode = await svc.history.mode(db);
  const rowUrl = (change: HistoryEntry) =>
    `${svc.urls.table(db.name, change.table)}/${rowPathOf(change.pks)}`;
  if (query.format === "json") {
    return jsonAnswer(db.name, query, changes, rowUrl, nextId, nextUrl, mode);
  }
  const mayRevert = db.is_mutable &&
    await allowed(svc, request.actor, "revert-change", db.name, null);
  return await renderPage(svc, request, "history.html", {
    database: db.name,
    database_url: svc.urls.database(db.name),
    table: query.table,
    table_url: query.table ? svc.urls.table(db.name, query.table) : null,
    scope: query.pks ? "row" : pathTable ? "table" : "database",
    pks: query.pks,
    row_url: query.pksPath ? `${svc.urls.table(db.name, query.table!)}/${query.pksPath}` : null,
    request_id: query.request_id,
    history_url: `${svc.urls.database(db.name)}/-/history`,
    // The database page's filter: the tables whose history the actor may read.
    filter_tables: pathTable
      ? []
      : await visibleTables(svc, request, db.name, await db.table_names()),
    mode,
    engine: db.engine,
    changes: changes.map((change) => ({
      ...change,
      row_url: change.after || change.before ? rowUrl(change) : null,
      key_text: change.pks.map(String).join(", "),
      request_short: change.request_id.slice(0, 8),
      columns: columnDiff(change),
    })),
    next_url: nextUrl,
    revert_url: mayRevert ? `${svc.urls.database(db.name)}/-/history/-/revert` : null,
    return_to: request.full_path,
  }, { view_name: "history", database: db.name, table: query.table });
}

async function visibleOnly(
  svc: ViewHost,
  request: Request,
  database: string,
  changes: HistoryEntry[],
): Promise<HistoryEntry[]> {
  const seen = new Map<string, boolean>();
  const kept: HistoryEntry[] = [];
  for (const change of changes) {
    if (!seen.has(change.table)) {
      const [visible] = await svc.check_visibility(request.actor, {
        action: "view-table",
        resource: [database, change.table],
      });
      seen.set(change.table, visible);
    }
    if (seen.get(change.table)) kept.push(change);
  }
  return kept;
}

async function visibleTables(
  svc: ViewHost,
  request: Request,
  database: string,
  tables: string[],
): Promise<string[]> {
  const kept: string[] = [];
  for (const table of tables) {
    if (table === "_vitrine_history" || table.startsWith("sqlite_")) continue;
    const [visible] = await svc.check_visibility(request.actor, {
      action: "view-table",
      resource: [database, table],
    });
    if (visible) kept.push(table);
  }
  return kept;
}

function pageUrl(request: Request, next: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of request.args.pairs()) {
    if (key !== "_next") params.append(key, value);
  }
  params.set("_next", String(next));
  return `${request.path}?${params}`;
}

/** The JSON answer; `before` and `after` are the recorded JSON itself (a REAL stays `12.0`). */
function jsonAnswer(
  database: string,
  query: HistoryQuery,
  changes: HistoryEntry[],
  rowUrl: (change: HistoryEntry) => string,
  next: number | null,
  nextUrl: string | null,
  mode: string,
): Response {
  const items = changes.map((change) => {
    const { before_json, after_json, before: _b, after: _a, actor: _actor, ...rest } = change;
    const head = JSON.stringify({
      ...rest,
      actor: change.actor_id,
      row_url: rowUrl(change),
    });
    return `${head.slice(0, -1)},"before":${before_json ?? "null"},"after":${
      after_json ?? "null"
    }}`;
  });
  const head = JSON.stringify({
    ok: true,
    database,
    table: query.table,
    pks: query.pks,
    request_id: query.request_id,
    recorded_in: mode,
    next: next === null ? null : String(next),
    next_url: nextUrl,
  });
  return new Response(`${head.slice(0, -1)},"changes":[${items.join(",")}]}`, {
    content_type: "application/json; charset=utf-8",
  });
}

/** One column of a change: its value before and after, as text, and whether it changed. */
interface ColumnChange {
  name: string;
  before: string | null;
  after: string | null;
  /** NULL values, marked on the page so they are not read as the text "null". */
  before_null: boolean;
  after_null: boolean;
  changed: boolean;
}

function columnDiff(change: HistoryEntry): ColumnChange[] {
  const before = new Map(change.before_json ? parseRow(change.before_json) : []);
  const after = new Map(change.after_json ? parseRow(change.after_json) : []);
  const names = [...new Set([...before.keys(), ...after.keys()])];
  return names.map((name) => {
    const was = before.has(name) ? cellText(before.get(name)!) : null;
    const now = after.has(name) ? cellText(after.get(name)!) : null;
    const before_null = before.get(name)?.value === null;
    const after_null = after.get(name)?.value === null;
    const changed = was !== now || before_null !== after_null;
    return { name, before: was, after: now, before_null, after_null, changed };
  });
}

function cellText(cell: { value: unknown; real: boolean }): string {
  const { value, real } = cell;
  if (value === null) return "null";
  if (value instanceof Uint8Array) return `<Binary: ${value.byteLength} bytes>`;
  if (typeof value === "number" && real && Number.isInteger(value)) {
    return integralRealText(value);
  }
  return String(value);
}
