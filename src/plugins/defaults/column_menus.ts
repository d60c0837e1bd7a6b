/**
 * Built-in plugin: a menu on each column heading of table pages (sort, facet, hide, filter),
 * drawn by static/column-menu.js. The `column_menus` setting switches it off.
 *
 * @module
 */
import type { ViewHost } from "../../views/host.ts";
import { staticAsset } from "./ui_assets.ts";

const PAGES = new Set(["table", "patterns"]);

/** The menu script, on table pages and the pattern portfolio (`/-/patterns`). */
export function extra_js_urls({ svc, view_name }: { svc: ViewHost; view_name: string }) {
  if (!PAGES.has(view_name) || !svc.setting("column_menus")) return [];
  return [staticAsset(svc, "column-menu.js")];
}
