/**
 * The write API's routes, in the `[pattern, view]` form of `register_routes`. The endpoints
 * answer JSON only, so they count as `.json` URLs: every error they raise, a 405 for a GET
 * included, comes back as a JSON error body.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { MethodNotAllowed } from "../../http/errors.ts";
import { insertView, upsertView } from "./insert.ts";
import { deleteView, updateView } from "./row_edit.ts";
import { bulkDeleteView, bulkUpdateView } from "./bulk.ts";
import { createTableView } from "./create.ts";
import { dropTableView } from "./drop.ts";
import { alterTableView } from "./alter.ts";
import { executeWriteView } from "./execute_write.ts";
import { setColumnTypeView } from "./set_column_type.ts";
import { createTablePage } from "./create_table_page.ts";
import { alterTablePage } from "./alter_table_page.ts";

type View = (svc: ViewHost, request: Request) => Promise<Response>;
type RouteView = (args: { svc: ViewHost; request: Request }) => Promise<Response>;

const NAME = "[^/.]+";
const DB = `/(?<database>${NAME})`;
const TABLE = `${DB}/(?<table>${NAME})`;
const ROW = `${TABLE}/(?<pks>${NAME})`;

/** A POST-only JSON endpoint. */
function endpoint(view: View): RouteView {
  return async ({ svc, request }) => {
    request.url_vars = { ...request.url_vars, format: "json" };
    if (request.method === "OPTIONS") {
      // CORS preflights (with --cors) and plain OPTIONS requests learn the one method.
      const response = Response.text("ok");
      if (!svc.options.cors) response.headers["allow"] = "POST, OPTIONS";
      return response;
    }
    if (request.method !== "POST") {
      throw new MethodNotAllowed("Method not allowed", { allowed: ["POST", "OPTIONS"] });
    }
    return await view(svc, request);
  };
}

/** Every route of the write API and the create-table page. */
export const WRITE_ROUTES: [RegExp, RouteView][] = [
  [new RegExp(`^${DB}/-/create$`), endpoint(createTableView)],
  [new RegExp(`^${DB}/-/execute-write$`), endpoint(executeWriteView)],
  [new RegExp(`^${TABLE}/-/insert$`), endpoint(insertView)],
  [new RegExp(`^${TABLE}/-/upsert$`), endpoint(upsertView)],
  [new RegExp(`^${TABLE}/-/drop$`), endpoint(dropTableView)],
  [new RegExp(`^${TABLE}/-/alter$`), endpoint(alterTableView)],
  [new RegExp(`^${TABLE}/-/update-rows$`), endpoint(bulkUpdateView)],
  [new RegExp(`^${TABLE}/-/delete-rows$`), endpoint(bulkDeleteView)],
  [new RegExp(`^${TABLE}/-/set-column-type$`), endpoint(setColumnTypeView)],
  [new RegExp(`^${ROW}/-/update$`), endpoint(updateView)],
  [new RegExp(`^${ROW}/-/delete$`), endpoint(deleteView)],
  [/^\/-\/create-table$/, ({ svc, request }) => createTablePage(svc, request)],
  [new RegExp(`^${TABLE}/-/alter-table$`), ({ svc, request }) => alterTablePage(svc, request)],
];
