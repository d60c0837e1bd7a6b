/**
 * The history's routes, in the `[pattern, view]` form of `register_routes`: the history pages of
 * a database, a table and a row (HTML, or JSON with `.json`), and the revert endpoint.
 *
 * @module
 */

import { ownRoutes } from "../special/plugin_route.ts";
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { MethodNotAllowed } from "../../http/errors.ts";
import { historyView } from "./history_page.ts";
import { revertView } from "./revert.ts";
import { type BrowserPageOf, notPosted, pageAbove } from "../write/post_only.ts";

type RouteView = (args: { svc: ViewHost; request: Request }) => Promise<Response>;

const NAME = "[^/.]+";
const DB = `/(?<database>${NAME})`;
const TABLE = `${DB}/(?<table>${NAME})`;
const ROW = `${TABLE}/(?<pks>${NAME})`;
const FORMAT = `(?:\\.(?<format>${NAME}))?`;

const page: RouteView = async ({ svc, request }) => {
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw new MethodNotAllowed("Method not allowed", { allowed: ["GET", "HEAD"] });
  }
  return await historyView(svc, request);
};

const revert: RouteView = async ({ svc, request }) => {
  if (request.method !== "POST") throw notPosted(svc, request, historyPage, ["POST"]);
  return await revertView(svc, request);
};

/** A browser does a revert with the history page's buttons. */
const historyPage: BrowserPageOf = (request) => ({
  does: "undoes recorded changes",
  where: "the history page",
  path: pageAbove(request),
});

/** Every route of the history. */
export const HISTORY_ROUTES: [RegExp, RouteView][] = ownRoutes([
  [new RegExp(`^${DB}/-/history/-/revert$`), revert],
  [new RegExp(`^${DB}/-/history${FORMAT}$`), page],
  [new RegExp(`^${TABLE}/-/history${FORMAT}$`), page],
  [new RegExp(`^${ROW}/-/history${FORMAT}$`), page],
]);
