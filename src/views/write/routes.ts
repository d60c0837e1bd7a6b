/**
 * The write API's routes, in the `[pattern, view]` form of `register_routes`. The endpoints
 * answer JSON only, so they count as `.json` URLs: every error they raise comes back as a JSON
 * error body, a 405 for a GET too, except to a browser opening one (`post_only.ts`).
 *
 * @module
 */

import { ownRoutes } from "../special/plugin_route.ts";
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { insertView, upsertView } from "./insert.ts";
import { uploadView } from "./upload.ts";
import { deleteView, updateView } from "./row_edit.ts";
import { bulkDeleteView, bulkUpdateView } from "./bulk.ts";
import { createTableView } from "./create.ts";
import { dropTableView } from "./drop.ts";
import { alterTableView } from "./alter.ts";
import { executeWriteView } from "./execute_write.ts";
import { setColumnTypeView } from "./set_column_type.ts";
import { createTablePage } from "./create_table_page.ts";
import { alterTablePage } from "./alter_table_page.ts";
import { type BrowserPageOf, databaseOf, notPosted, pageAbove } from "./post_only.ts";

type View = (svc: ViewHost, request: Request) => Promise<Response>;
type RouteView = (args: { svc: ViewHost; request: Request }) => Promise<Response>;

const NAME = "[^/.]+";
const DB = `/(?<database>${NAME})`;
const TABLE = `${DB}/(?<table>${NAME})`;
const ROW = `${TABLE}/(?<pks>${NAME})`;

/**
 * A POST-only JSON endpoint; `page` is where a browser does the same (told to a browser that
 * opens the endpoint's address, `post_only.ts`).
 */
function endpoint(view: View, page: BrowserPageOf): RouteView {
  return async ({ svc, request }) => {
    if (request.method === "OPTIONS") {
      // CORS preflights (with --cors) and plain OPTIONS requests learn the one method.
      const response = Response.text("ok");
      if (!svc.options.cors) response.headers["allow"] = "POST, OPTIONS";
      return response;
    }
    if (request.method !== "POST") throw notPosted(svc, request, page, ["POST", "OPTIONS"]);
    request.url_vars = { ...request.url_vars, format: "json" };
    return await view(svc, request);
  };
}

/** Endpoints whose browser page is the table's (or row's) own page, above their path. */
const above = (does: string, where: string): BrowserPageOf => (request) => ({
  does,
  where,
  path: pageAbove(request),
});

const createPage: BrowserPageOf = (request) => ({
  does: "creates tables",
  where: "the page that creates a table",
  path: `/-/create-table?database=${encodeURIComponent(databaseOf(request))}`,
});
const alterPage: BrowserPageOf = (request) => ({
  does: "alters a table",
  where: "the page that alters this table",
  path: `${pageAbove(request)}/-/alter-table`,
});

/** Every route of the write API and the create-table page. */
export const WRITE_ROUTES: [RegExp, RouteView][] = ownRoutes([
  [new RegExp(`^${DB}/-/create$`), endpoint(createTableView, createPage)],
  [
    new RegExp(`^${DB}/-/execute-write$`),
    endpoint(executeWriteView, above("runs write SQL", "the database page")),
  ],
  [
    new RegExp(`^${TABLE}/-/insert$`),
    endpoint(insertView, above("inserts rows", "the table page")),
  ],
  [
    new RegExp(`^${TABLE}/-/upsert$`),
    endpoint(upsertView, above("inserts or updates rows", "the table page")),
  ],
  [
    new RegExp(`^${TABLE}/-/upload$`),
    endpoint(uploadView, above("inserts a part of an uploaded CSV file", "the table page")),
  ],
  [
    new RegExp(`^${TABLE}/-/drop$`),
    endpoint(dropTableView, above("drops a table", "the table page")),
  ],
  [new RegExp(`^${TABLE}/-/alter$`), endpoint(alterTableView, alterPage)],
  [
    new RegExp(`^${TABLE}/-/update-rows$`),
    endpoint(bulkUpdateView, above("updates rows", "the table page")),
  ],
  [
    new RegExp(`^${TABLE}/-/delete-rows$`),
    endpoint(bulkDeleteView, above("deletes rows", "the table page")),
  ],
  [
    new RegExp(`^${TABLE}/-/set-column-type$`),
    endpoint(setColumnTypeView, above("sets a column's type", "the table page")),
  ],
  [new RegExp(`^${ROW}/-/update$`), endpoint(updateView, above("updates a row", "the row page"))],
  [new RegExp(`^${ROW}/-/delete$`), endpoint(deleteView, above("deletes a row", "the row page"))],
  [/^\/-\/create-table$/, ({ svc, request }) => createTablePage(svc, request)],
  [new RegExp(`^${TABLE}/-/alter-table$`), ({ svc, request }) => alterTablePage(svc, request)],
]);
