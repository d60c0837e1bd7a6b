/**
 * Built-in plugin: the SQL editor of the database and query pages — CodeMirror 6 with SQLite
 * highlighting, completion of the database's tables and columns, formatting and Ctrl/Cmd+Enter
 * to run (static/code-editor.js on static/vendor/editor.js). It replaces the plain text box,
 * which stays in the page as the form field. The `sql_editor` setting switches it off.
 *
 * @module
 */
import type { ViewHost } from "../../views/host.ts";
import type { Request } from "../../http/request.ts";
import { scriptJson, staticAsset } from "./ui_assets.ts";

const PAGES = new Set(["database", "query"]);
/** Completion is a convenience: a very large schema is cut rather than bloating every page. */
const MAX_TABLES = 500;

interface PageArgs {
  svc: ViewHost;
  view_name: string;
  database: string | null;
  request: Request | null;
}

function wanted({ svc, view_name, database }: PageArgs): boolean {
  return PAGES.has(view_name) && Boolean(database) && Boolean(svc.setting("sql_editor"));
}

/** The editor script (an ES module); the pattern portfolio shows it too, with no schema. */
export function extra_js_urls(args: PageArgs) {
  const shown = wanted(args) ||
    (args.view_name === "patterns" && Boolean(args.svc.setting("sql_editor")));
  return shown ? [{ url: staticAsset(args.svc, "code-editor.js"), module: true }] : [];
}

/**
 * The tables and views the actor may see, with their columns, for completion. Only for actors
 * who may run SQL on this database: anyone else gets no editor and no names.
 */
export async function extra_body_script(args: PageArgs) {
  if (!wanted(args)) return null;
  const { svc, database, request } = args;
  const actor = (request?.actor ?? null) as Record<string, unknown> | null;
  if (!await svc.permission_allowed(actor, "execute-sql", database!)) return null;
  const db = svc.get_database(database!);
  // Hidden tables (full-text index internals, spatial indexes) would only crowd the list.
  const hidden = new Set(await db.hidden_table_names());
  const names = [...await db.table_names(), ...await db.view_names()]
    .filter((name) => !hidden.has(name)).slice(0, MAX_TABLES);
  const schema: Record<string, string[]> = {};
  for (const name of names) {
    const [visible] = await svc.check_visibility(actor, {
      action: "view-table",
      resource: [database!, name],
    });
    if (visible) schema[name] = [...await db.table_columns(name)];
  }
  return `globalThis.vitrineSqlSchema = ${scriptJson(schema)};`;
}
