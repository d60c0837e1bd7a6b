/**
 * `/-/jump?q=`: the finder behind the "/" shortcut (the reference's 1.0a37 endpoint and shape,
 * `{"ok": true, "matches": [{name, url, type, description, display_name?}], "truncated"}`).
 * It finds the databases, tables, views, canned and stored queries the actor may see, plus
 * what plugins list through `jump_items_sql`. Every word of `q` must appear, in order; exact
 * names come first, then names that start with `q`, then databases before tables, views and
 * queries, shorter before longer.
 *
 * `/<db>/-/autocomplete?q=`: table and column names of one database that start with `q` (or
 * contain it), for the SQL editor: `{"ok": true, "matches": [{type, name, table?}]}`.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import type { Actor } from "../../http/actor.ts";
import type { JumpSql } from "../../plugins/hookspecs.ts";
import { HttpError } from "../../http/errors.ts";
import { visibleDatabases } from "../visible_databases.ts";
import { cannedQueries } from "../../config/canned_query_catalog.ts";
import { storedQueryVisibility } from "../query/stored_access.ts";
import { awaitMeMaybe } from "../../util/await_me_maybe.ts";

/** One thing the finder can open. */
interface JumpItem {
  type: string;
  name: string;
  url: string;
  description: string | null;
  display_name?: string;
  search_text: string;
}

/** At most this many matches are answered (`truncated` says when there were more). */
const MAX_MATCHES = 100;

/** GET `/-/jump(.json)?q=`. */
export async function jumpView(svc: ViewHost, request: Request): Promise<Response> {
  await svc.ensure_permissions(request.actor, ["view-instance"]);
  const q = (request.args.get("q") ?? "").trim();
  const words = q.toLowerCase().split(/\s+/).filter(Boolean);
  const matches = (item: JumpItem) => {
    let from = 0;
    const text = item.search_text.toLowerCase();
    for (const word of words) {
      const at = text.indexOf(word, from);
      if (at < 0) return false;
      from = at + word.length;
    }
    return true;
  };
  const items = [
    ...await coreItems(svc, request.actor),
    ...await pluginItems(svc, request),
  ].filter(matches).sort((a, b) => compare(a, b, q.toLowerCase()));
  return Response.json({
    ok: true,
    matches: items.slice(0, MAX_MATCHES).map(({ search_text: _, ...item }) => item),
    truncated: items.length > MAX_MATCHES,
  });
}

const TYPE_ORDER: Record<string, number> = { database: 10, table: 20, view: 25, query: 30 };

function compare(a: JumpItem, b: JumpItem, q: string): number {
  const shown = (item: JumpItem) => (item.display_name ?? item.name).toLowerCase();
  const relevance = (item: JumpItem) => shown(item) === q ? 0 : shown(item).startsWith(q) ? 1 : 2;
  return relevance(a) - relevance(b) ||
    (TYPE_ORDER[a.type] ?? 50) - (TYPE_ORDER[b.type] ?? 50) ||
    shown(a).length - shown(b).length ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** Databases, tables, views, canned and stored queries the actor may see. */
async function coreItems(svc: ViewHost, actor: Actor | null): Promise<JumpItem[]> {
  const items: JumpItem[] = [];
  for (const { db } of await visibleDatabases(svc, actor)) {
    items.push({
      type: "database",
      name: db.name,
      url: String(svc.urls.database(db.name)),
      description: null,
      search_text: db.name,
    });
    const hidden = new Set(await db.hidden_table_names());
    const tables = (await db.table_names()).filter((name) => !hidden.has(name));
    for (const [type, names] of [["table", tables], ["view", await db.view_names()]] as const) {
      for (const name of names) {
        const [visible] = await svc.check_visibility(actor, {
          action: "view-table",
          resource: [db.name, name],
        });
        if (!visible) continue;
        items.push({
          type,
          name,
          url: String(svc.urls.table(db.name, name)),
          description: db.name,
          search_text: `${name} ${db.name}`,
        });
      }
    }
    for (const query of (await cannedQueries(svc, db.name, actor)).values()) {
      const [visible] = await svc.check_visibility(actor, {
        action: "view-query",
        resource: [db.name, query.name],
      });
      if (visible) items.push(queryItem(svc, db.name, query.name, query.title, query.description));
    }
    for (const query of await svc.stored_queries.list(db.name)) {
      if (!(await storedQueryVisibility(svc, actor, query))[0]) continue;
      items.push(queryItem(svc, db.name, query.name, query.title, query.description));
    }
  }
  return items;
}

function queryItem(
  svc: ViewHost,
  database: string,
  name: string,
  title: unknown,
  description: unknown,
): JumpItem {
  const display = typeof title === "string" && title ? title : undefined;
  return {
    type: "query",
    name,
    url: String(svc.urls.query(database, name)),
    description: typeof description === "string" ? description : database,
    ...(display ? { display_name: display } : {}),
    search_text: [name, display ?? "", database].join(" "),
  };
}

/** The rows of every `jump_items_sql` answer. */
async function pluginItems(svc: ViewHost, request: Request): Promise<JumpItem[]> {
  const fragments: JumpSql[] = [];
  for (const answer of await svc.hooks.call("jump_items_sql", { actor: request.actor, request })) {
    const value = await awaitMeMaybe<JumpSql | JumpSql[] | null | undefined>(answer);
    if (value) fragments.push(...(Array.isArray(value) ? value : [value]));
  }
  const items: JumpItem[] = [];
  for (const fragment of fragments) {
    if (!fragment || typeof fragment.sql !== "string") {
      throw new HttpError(500, "jump_items_sql must return {sql, params?, database?} objects");
    }
    const db = fragment.database
      ? svc.get_database(fragment.database)
      : svc.get_internal_database();
    const results = await db.execute(
      `select type, label, description, url, search_text, display_name from ${
        db.dialect.subquery(`\n${fragment.sql}\n`)
      }`,
      (fragment.params ?? {}) as never,
      { page_size: MAX_MATCHES * 10 },
    );
    for (const row of results.values) {
      const [type, label, description, url, search_text, display_name] = row;
      items.push({
        type: String(type),
        name: String(label),
        url: resolveUrl(svc, url),
        description: description === null ? null : String(description),
        ...(display_name === null ? {} : { display_name: String(display_name) }),
        search_text: String(search_text ?? label),
      });
    }
  }
  return items;
}

/** A path, or `{"method": "table", "database": …, "table": …}` calling that `svc.urls` method. */
function resolveUrl(svc: ViewHost, url: unknown): string {
  const text = String(url ?? "");
  if (text === "" || text.startsWith("/")) return text;
  let spec: Record<string, string>;
  try {
    spec = JSON.parse(text);
  } catch {
    throw new HttpError(500, `jump item url must start with / or be a JSON object: ${text}`);
  }
  const u = svc.urls;
  const calls: Record<string, () => unknown> = {
    instance: () => u.instance(),
    path: () => u.path(spec.path),
    database: () => u.database(spec.database),
    table: () => u.table(spec.database, spec.table),
    query: () => u.query(spec.database, spec.query),
    row: () => u.row(spec.database, spec.table, spec.row_path),
  };
  const call = calls[spec.method];
  if (!call) throw new HttpError(500, `jump item url names no urls method: ${spec.method}`);
  return String(call());
}

/** GET `/<db>/-/autocomplete?q=`: visible tables and their columns whose names match. */
export async function autocompleteView(svc: ViewHost, request: Request): Promise<Response> {
  const db = svc.resolve_database(request);
  await svc.ensure_permissions(request.actor, [["view-database", db.name], "view-instance"]);
  const q = (request.args.get("q") ?? "").trim().toLowerCase();
  const found: { type: string; name: string; table?: string; starts: boolean }[] = [];
  const consider = (entry: { type: string; name: string; table?: string }) => {
    const name = entry.name.toLowerCase();
    if (!q || name.includes(q)) found.push({ ...entry, starts: name.startsWith(q) });
  };
  // Hidden tables (full-text index internals among them) stay out, as on the database page.
  const hidden = new Set(await db.hidden_table_names());
  const tables = (await db.table_names()).filter((name) => !hidden.has(name));
  for (const table of [...tables, ...await db.view_names()]) {
    const [visible] = await svc.check_visibility(request.actor, {
      action: "view-table",
      resource: [db.name, table],
    });
    if (!visible) continue;
    consider({ type: "table", name: table });
    for (const column of await db.table_columns(table)) {
      consider({ type: "column", name: column, table });
    }
  }
  found.sort((a, b) =>
    Number(b.starts) - Number(a.starts) || (a.type === b.type ? 0 : a.type === "table" ? -1 : 1) ||
    a.name.length - b.name.length || a.name.localeCompare(b.name)
  );
  return Response.json({
    ok: true,
    matches: found.slice(0, MAX_MATCHES).map(({ starts: _, ...entry }) => entry),
    truncated: found.length > MAX_MATCHES,
  });
}
