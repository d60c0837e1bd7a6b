/**
 * The built-in route table, as data. Order matters: plugin routes are prepended by boot(),
 * `/-/…` pages come before static mounts, which come before the `/<db>` patterns (a `-` or a
 * mount name would otherwise be taken for a database).
 */
import type { AppHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import type { Router } from "../http/router.ts";
import { indexView } from "../views/index/index.ts";
import { databaseDownloadView, databaseView } from "../views/database/database.ts";
import { editMetadataView } from "../views/database/edit_metadata.ts";
import { queryView } from "../views/query/query.ts";
import {
  deleteQueryView,
  editQueryView,
  queryDefinitionView,
  storeQueryView,
  updateQueryView,
} from "../views/query/stored_queries.ts";
import { storedQueryListView } from "../views/query/stored_query_list.ts";
import { tableOrCannedQueryView } from "../views/table/table_or_query.ts";
import { rowView } from "../views/row/row.ts";
import {
  actorView,
  configView,
  databasesView,
  metadataView,
  pluginsView,
  settingsView,
  threadsView,
  versionsView,
} from "../views/special/special.ts";
import {
  faviconView,
  pluginStaticView,
  staticMountView,
  staticView,
} from "../views/special/static.ts";
import { authTokenView, createTokenView, logoutView } from "../views/special/auth_pages.ts";
import { allowDebugView, permissionsDebugView } from "../views/special/debug.ts";
import {
  actionsView,
  allowedView,
  checkView,
  rulesView,
} from "../views/special/permission_pages.ts";
import { messagesDebugView } from "../views/special/messages_debug.ts";
import { patternsView } from "../views/special/patterns.ts";
import { customPageView } from "../views/special/custom_page.ts";
import { autocompleteView, jumpView } from "../views/special/jump.ts";
import { metricsView } from "./metrics_view.ts";

/** A view: receives the service and the request, returns a Response. */
export type View = (svc: AppHost, request: Request) => Promise<Response>;

const dashRedirectView: View = (svc) =>
  Promise.resolve(Response.redirect(String(svc.urls.path("-/")), { status: 301 }));

const FORMAT = String.raw`(?:\.(?<format>\w+))?`;
const NAME = String.raw`[^/.]+`;

/** Adds every built-in page to `router`. */
export function addBuiltinRoutes(router: Router, svc: AppHost): void {
  const get = ["GET"];
  const both = ["GET", "POST"];
  const add = (methods: string[], pattern: string, view: View, name: string) =>
    router.add(methods, new RegExp(`^${pattern}$`), view, { name });

  add(get, `/${FORMAT}`, indexView, "index");
  // The reference also serves the index at `/-/` and sends `/-` there (301).
  add(get, `/-/${FORMAT}`, indexView, "index-alias");
  add(get, `/-`, dashRedirectView, "index-redirect");
  add(get, `/-/versions${FORMAT}`, versionsView, "versions");
  add(get, `/-/plugins${FORMAT}`, pluginsView, "plugins");
  add(get, `/-/settings${FORMAT}`, settingsView, "settings");
  add(get, `/-/config${FORMAT}`, configView, "config");
  add(get, `/-/threads${FORMAT}`, threadsView, "threads");
  add(get, `/-/databases${FORMAT}`, databasesView, "databases");
  add(get, `/-/metadata${FORMAT}`, metadataView, "metadata");
  add(get, `/-/actor${FORMAT}`, actorView, "actor");
  add(get, `/-/metrics`, metricsView, "metrics");
  add(get, `/-/static/(?<path>.+)`, staticView, "static");
  add(get, `/-/static-plugins/(?<plugin>[^/]+)/(?<path>.+)`, pluginStaticView, "static-plugins");
  add(get, `/favicon\\.ico`, faviconView, "favicon");
  add(get, `/-/auth-token`, authTokenView, "auth-token");
  add(["GET", "POST"], `/-/create-token`, createTokenView, "create-token");
  add(["GET", "POST"], `/-/logout`, logoutView, "logout");
  add(["GET", "POST"], `/-/messages`, messagesDebugView, "messages");
  add(["GET", "POST"], `/-/permissions${FORMAT}`, permissionsDebugView, "permissions");
  add(["GET", "POST"], `/-/allow-debug`, allowDebugView, "allow-debug");
  add(get, `/-/actions${FORMAT}`, actionsView, "actions");
  add(get, `/-/rules${FORMAT}`, rulesView, "rules");
  add(get, `/-/check${FORMAT}`, checkView, "check");
  add(get, `/-/allowed${FORMAT}`, allowedView, "allowed");
  add(get, `/-/patterns`, patternsView, "patterns");

  for (const [mount] of svc.options.static_mounts ?? []) {
    const escaped = mount.replace(/^\/+|\/+$/g, "").replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    add(get, `/(?<mount>${escaped})/(?<path>.+)`, staticMountView, `mount:${mount}`);
  }

  add(get, `/-/queries${FORMAT}`, storedQueryListView, "global-query-list");
  add(get, `/-/jump(?:\\.json)?`, jumpView, "jump");
  add(get, `/(?<database>${NAME})\\.db`, databaseDownloadView, "database-download");
  add(get, `/(?<database>${NAME})${FORMAT}`, databaseView, "database");
  add(get, `/(?<database>${NAME})/-/query${FORMAT}`, queryView, "query");
  add(get, `/(?<database>${NAME})/-/queries${FORMAT}`, storedQueryListView, "query-list");
  add(get, `/(?<database>${NAME})/-/autocomplete`, autocompleteView, "autocomplete");
  add(both, `/(?<database>${NAME})/-/queries/store`, storeQueryView, "query-store");
  add(both, `/(?<database>${NAME})/-/edit-metadata`, editMetadataView, "edit-metadata-database");
  add(
    both,
    `/(?<database>${NAME})/(?<table>${NAME})/-/edit-metadata`,
    editMetadataView,
    "edit-metadata",
  );
  const QUERY = `/(?<database>${NAME})/(?<query>${NAME})/-`;
  add(get, `${QUERY}/definition`, queryDefinitionView, "query-definition");
  add(both, `${QUERY}/edit`, editQueryView, "query-edit");
  // GET too, to tell a browser that opens it where queries are edited (`updateQueryView`).
  add(both, `${QUERY}/update`, updateQueryView, "query-update");
  add(both, `${QUERY}/delete`, deleteQueryView, "query-delete");
  add(
    ["GET", "POST"],
    `/(?<database>${NAME})/(?<table>${NAME})${FORMAT}`,
    tableOrCannedQueryView,
    "table",
  );
  add(get, `/(?<database>${NAME})/(?<table>${NAME})/(?<pks>${NAME})${FORMAT}`, rowView, "row");
  // Last: any GET path may be a custom page (also when an earlier route's view found nothing).
  add(get, `/.*`, customPageView, CUSTOM_PAGE_ROUTE);
}

/** The name of the last route, which answers custom pages. */
export const CUSTOM_PAGE_ROUTE = "custom-page";

/** Prepends `register_routes` results so plugin routes win over built-ins. */
export function addPluginRoutes(router: Router, routes: [RegExp | string, unknown][]): void {
  for (const [pattern, view] of [...routes].reverse()) {
    router.prepend("*", pattern, pluginView(view), { name: `plugin:${String(pattern)}` });
  }
}

/** Adapts a plugin's view (one object of named values) to the internal View signature. */
function pluginView(view: unknown): View {
  return async (svc, request) => {
    const { callPluginView } = await import("../views/special/plugin_route.ts");
    return await callPluginView(svc, request, view);
  };
}
