/**
 * Built-in plugin: a menu on each column heading of table pages (sort, facet, hide, filter),
 * drawn by static/column-menu.js. The `column_menus` setting switches it off.
 *
 * @module
 */
import type { ViewHost } from "../../views/host.ts";
import { staticAsset } from "./ui_assets.ts";

/** The menu script, on table pages only. */
export function extra_js_urls({ svc, view_name }: { svc: ViewHost; view_name: string }) {
  if (view_name !== "table" || !svc.setting("column_menus")) return [];
  return [staticAsset(svc, "column-menu.js")];
}
