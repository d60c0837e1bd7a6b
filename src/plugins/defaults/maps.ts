/**
 * Built-in plugin: a map of the rows when a table, view or query has latitude and longitude
 * columns (`lat`/`latitude` and `lng`/`lon`/`long`/`longitude`, any case). static/map-view.js
 * draws it with Leaflet and Leaflet.markercluster (static/vendor/map.js), clustering thousands
 * of points; a point opens its row. Settings: `maps` (off switch), `map_tile_url`,
 * `map_tile_attribution`, `map_max_points`.
 *
 * @module
 */
import type { ViewHost } from "../../views/host.ts";
import type { Request } from "../../http/request.ts";
import { allowCspSource } from "../../http/csp.ts";
import { scriptJson, staticAsset } from "./ui_assets.ts";

const PAGES = new Set(["table", "query"]);
const LATITUDE = /^(lat|latitude)$/i;
const LONGITUDE = /^(lng|lon|long|longitude)$/i;

interface PageArgs {
  svc: ViewHost;
  view_name: string;
  columns: string[] | null;
  request?: Request | null;
}

/** The latitude and longitude columns of a page, or null when it has no such pair. */
export function coordinateColumns(columns: string[] | null): [string, string] | null {
  const latitude = columns?.find((c) => LATITUDE.test(c));
  const longitude = columns?.find((c) => LONGITUDE.test(c));
  return latitude && longitude ? [latitude, longitude] : null;
}

function wanted({ svc, view_name, columns }: PageArgs): [string, string] | null {
  if (!PAGES.has(view_name) || !svc.setting("maps")) return null;
  return coordinateColumns(columns);
}

/** Leaflet's stylesheet. */
export function extra_css_urls(args: PageArgs) {
  return wanted(args) ? [staticAsset(args.svc, "vendor/map.css")] : [];
}

/** The map script (an ES module). */
export function extra_js_urls(args: PageArgs) {
  return wanted(args) ? [{ url: staticAsset(args.svc, "map-view.js"), module: true }] : [];
}

/** The map's settings for the script: the two columns, the tiles and the point limit. */
export function extra_body_script(args: PageArgs) {
  const pair = wanted(args);
  if (!pair) return null;
  const { svc, request } = args;
  // The tiles are images from another site: the page's Content-Security-Policy must allow it.
  if (request) allowCspSource(request, "img-src", String(svc.setting("map_tile_url")));
  const config = {
    latitude: pair[0],
    longitude: pair[1],
    tile_url: String(svc.setting("map_tile_url")),
    attribution: String(svc.setting("map_tile_attribution")),
    max_points: Number(svc.setting("map_max_points")),
  };
  return `globalThis.vitrineMap = ${scriptJson(config)};`;
}
