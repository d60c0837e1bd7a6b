/**
 * Built-in plugin: a map of the rows when a table, view or query has latitude and longitude
 * columns (`lat`/`latitude` and `lng`/`lon`/`long`/`longitude`, any case), or a table has a
 * SpatiaLite POINT geometry column (its blobs are read in the page). static/map-view.js
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
  database?: string | null;
  table?: string | null;
  request?: Request | null;
}

/** What the map plots: a latitude and longitude pair, or a SpatiaLite POINT geometry column. */
type MapSource = { latitude: string; longitude: string } | { geometry: string };

/** The latitude and longitude columns of a page, or null when it has no such pair. */
export function coordinateColumns(columns: string[] | null): [string, string] | null {
  const latitude = columns?.find((c) => LATITUDE.test(c));
  const longitude = columns?.find((c) => LONGITUDE.test(c));
  return latitude && longitude ? [latitude, longitude] : null;
}

/**
 * The table's SpatiaLite POINT geometry column among `columns` (from its `geometry_columns`
 * catalogue, which needs no extension to read), or null.
 */
async function pointGeometryColumn(args: PageArgs): Promise<string | null> {
  const { svc, database, table, columns } = args;
  const db = database ? svc.databases.get(database) : undefined;
  if (!db || !table || !columns?.length || !(await db.table_exists("geometry_columns"))) {
    return null;
  }
  try {
    const result = await db.execute(
      "select f_geometry_column from geometry_columns " +
        "where lower(f_table_name) = lower(?) and geometry_type % 1000 = 1",
      [table],
      { log_sql_errors: false },
    );
    const names = result.rows.map((row) => String(row[0]).toLowerCase());
    return columns.find((column) => names.includes(column.toLowerCase())) ?? null;
  } catch {
    return null; // an older catalogue layout: no map from it
  }
}

/** Each page's map source, worked out once for its three hooks. */
const sources = new WeakMap<object, Promise<MapSource | null>>();

function wanted(args: PageArgs): Promise<MapSource | null> {
  const { svc, view_name, columns, request } = args;
  if (!PAGES.has(view_name) || !svc.setting("maps")) return Promise.resolve(null);
  const pair = coordinateColumns(columns);
  if (pair) return Promise.resolve({ latitude: pair[0], longitude: pair[1] });
  if (view_name !== "table") return Promise.resolve(null);
  if (!request) return pointGeometryColumn(args).then((c) => c ? { geometry: c } : null);
  let source = sources.get(request);
  if (!source) {
    source = pointGeometryColumn(args).then((c) => c ? { geometry: c } : null);
    sources.set(request, source);
  }
  return source;
}

/** Leaflet's stylesheet. */
export async function extra_css_urls(args: PageArgs) {
  return await wanted(args) ? [staticAsset(args.svc, "vendor/map.css")] : [];
}

/** The map script (an ES module). */
export async function extra_js_urls(args: PageArgs) {
  return await wanted(args) ? [{ url: staticAsset(args.svc, "map-view.js"), module: true }] : [];
}

/** The map's settings for the script: what to plot, the tiles and the point limit. */
export async function extra_body_script(args: PageArgs) {
  const source = await wanted(args);
  if (!source) return null;
  const { svc, request } = args;
  // The tiles are images from another site: the page's Content-Security-Policy must allow it.
  if (request) allowCspSource(request, "img-src", String(svc.setting("map_tile_url")));
  const config = {
    latitude: "latitude" in source ? source.latitude : null,
    longitude: "longitude" in source ? source.longitude : null,
    geometry: "geometry" in source ? source.geometry : null,
    tile_url: String(svc.setting("map_tile_url")),
    attribution: String(svc.setting("map_tile_attribution")),
    max_points: Number(svc.setting("map_max_points")),
  };
  return `globalThis.vitrineMap = ${scriptJson(config)};`;
}
