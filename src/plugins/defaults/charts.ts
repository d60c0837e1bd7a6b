/**
 * Built-in plugin: a "Chart" view of the rows on table, view and query pages — bar, line or
 * scatter from chosen columns, drawn by static/chart-view.js with Observable Plot
 * (static/vendor/chart.js). The `charts` setting switches it off.
 *
 * @module
 */
import type { ViewHost } from "../../views/host.ts";
import { staticAsset } from "./ui_assets.ts";

const PAGES = new Set(["table", "query"]);

/** The chart script (an ES module), on pages that show rows. */
export function extra_js_urls({ svc, view_name }: { svc: ViewHost; view_name: string }) {
  if (!PAGES.has(view_name) || !svc.setting("charts")) return [];
  return [{ url: staticAsset(svc, "chart-view.js"), module: true }];
}

/** "Chart these rows" in the table actions menu opens the chart below the toolbar. */
export function table_actions({ svc }: { svc: ViewHost }) {
  if (!svc.setting("charts")) return [];
  return [{ href: "#chart", label: "Chart these rows" }];
}
