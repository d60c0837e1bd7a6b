/**
 * Example plugin: one search box over every full-text-indexed table of every database, as the
 * well-known `datasette-search-all` does.
 *
 * - `/-/search?q=…` shows, per table, its first matching rows with a link to the table filtered
 *   by the same search (`?_search=`); `/-/search.json?q=…` answers
 *   `{"q", "results": [{"database", "table", "url", "columns", "rows", "more"}]}`.
 * - Only tables the actor may see are searched (`check_visibility`), so a private table's rows
 *   never show to someone who could not open it.
 * - The home page gets a search form through `top_homepage` when at least one table is searchable.
 *
 * Run: `vitrine serve data.db --plugin examples/plugins/search_all.ts`
 */
import {
  type Actor,
  type HookArgs,
  type Request,
  Response,
  type RouteView,
  type Service,
} from "../../mod.ts";

export const version = "0.1.0";

/** Rows shown per table. */
const PER_TABLE = 5;

interface Searchable {
  database: string;
  table: string;
  fts: string;
}

/** Every table with a full-text index that `actor` may see. */
export async function searchableTables(svc: Service, actor: Actor | null): Promise<Searchable[]> {
  const found: Searchable[] = [];
  for (const db of svc.databases.values()) {
    if (db.name === "_internal") continue;
    for (const table of await db.table_names()) {
      const fts = await db.fts_table(table);
      if (!fts || fts === table) continue;
      const [visible] = await svc.check_visibility(actor, {
        action: "view-table",
        resource: [db.name, table],
      });
      if (visible) found.push({ database: db.name, table, fts });
    }
  }
  return found;
}

/** Words as FTS phrases, so punctuation in a search is never FTS syntax. */
function ftsQuery(q: string): string {
  return q.split(/\s+/).filter(Boolean).map((word) => `"${word.replaceAll('"', '""')}"`).join(" ");
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

async function search(svc: Service, request: Request, q: string) {
  const results = [];
  for (const { database, table, fts } of await searchableTables(svc, request.actor)) {
    const sql = `select * from ${quote(table)} where rowid in (select rowid from ${
      quote(fts)
    } where ${quote(fts)} match :q order by rank) limit ${PER_TABLE + 1}`;
    const found = await svc.get_database(database).execute(sql, { q: ftsQuery(q) });
    if (!found.rows.length) continue;
    const columns = found.columns;
    const rows = found.rows.slice(0, PER_TABLE).map((row) =>
      Object.fromEntries(columns.map((column, i) => [column, row[i]]))
    );
    results.push({
      database,
      table,
      url: `${svc.urls.table(database, table)}?_search=${encodeURIComponent(q)}`,
      columns,
      rows,
      more: found.rows.length > PER_TABLE,
    });
  }
  return results;
}

const searchView: RouteView = async ({ svc, request }) => {
  await svc.ensure_permissions(request.actor, ["view-instance"]);
  const q = String(request.args.get("q") ?? "").trim();
  const results = q ? await search(svc, request, q) : [];
  if (request.url_vars.format === "json") return Response.json({ q, results });
  const html = await svc.render_template("search_all.html", {
    q,
    results,
    searched: Boolean(q),
  }, request);
  return Response.html(html);
};

export function register_routes(_: HookArgs<"register_routes">): [RegExp, RouteView][] {
  return [[/^\/-\/search(?:\.(?<format>json))?$/, searchView]];
}

/** A search form at the top of the home page, when there is something to search. */
export async function top_homepage({ svc, request }: HookArgs<"top_homepage">) {
  if (!(await searchableTables(svc, request.actor)).length) return null;
  return await svc.render_template("search_all_form.html", {}, request);
}
