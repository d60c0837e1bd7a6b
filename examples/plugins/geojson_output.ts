/**
 * Example plugin: a GeoJSON output format that streams.
 *
 * Any table, view or query with `latitude` and `longitude` columns (or `lat` / `lng` / `lon`)
 * gains a `.geojson` representation: a FeatureCollection whose features carry the other columns
 * as properties. The renderer declares `stream: true`, so with `_stream=on`
 * (`/db/places.geojson?_stream=on`) it receives `row_stream`, every row of the table as an async
 * iterable, and writes the features as they come: a table of millions of rows goes out in
 * constant memory. Without `_stream` it writes the page's `rows`.
 *
 * Run: `vitrine serve data.db --plugin examples/plugins/geojson_output.ts`
 */
// Published plugins import the same names from the vitrine package instead of a path.
import { type HookArgs, type OutputRenderer, Response, type SqlRow } from "../../mod.ts";

export const version = "0.1.0";

const LATITUDE = ["latitude", "lat"];
const LONGITUDE = ["longitude", "lng", "lon", "long"];

/** The named values `render` receives (a subset; see docs/plugins.md). */
interface GeoArgs {
  columns: string[];
  rows: SqlRow[];
  row_stream?: AsyncIterable<SqlRow> | null;
  error?: string | null;
}

/** `.geojson`, offered where the page has a latitude and a longitude column. */
export function register_output_renderer(_: HookArgs<"register_output_renderer">): OutputRenderer {
  return {
    extension: "geojson",
    stream: true,
    can_render: ({ columns }) => coordinateColumns(columns) !== null,
    render: (args) => renderGeoJson(args as GeoArgs),
  };
}

function coordinateColumns(columns: string[]): [number, number] | null {
  const find = (names: string[]) => columns.findIndex((c) => names.includes(c.toLowerCase()));
  const [lat, lng] = [find(LATITUDE), find(LONGITUDE)];
  return lat < 0 || lng < 0 ? null : [lat, lng];
}

function renderGeoJson({ columns, rows, row_stream, error }: GeoArgs): Response {
  if (error) return Response.json({ ok: false, error }, { status: 400 });
  const where = coordinateColumns(columns);
  if (!where) {
    return Response.json({ ok: false, error: "No latitude/longitude columns" }, { status: 400 });
  }
  const [lat, lng] = where;
  const encoder = new TextEncoder();
  // Features are written in batches: one chunk per few hundred rows, not per row.
  const iterator = row_stream ? row_stream[Symbol.asyncIterator]() : rows[Symbol.iterator]();
  let first = true;
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let text = started ? "" : '{"type":"FeatureCollection","features":[\n';
      started = true;
      for (let i = 0; i < 500; i++) {
        const next = await iterator.next();
        if (next.done) {
          controller.enqueue(encoder.encode(text + "\n]}\n"));
          controller.close();
          return;
        }
        text += (first ? "" : ",\n") + feature(columns, next.value, lat, lng);
        first = false;
      }
      controller.enqueue(encoder.encode(text));
    },
    async cancel() {
      await iterator.return?.();
    },
  });
  return new Response(body, { content_type: "application/geo+json" });
}

function feature(columns: string[], row: SqlRow, lat: number, lng: number): string {
  const properties: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    if (i !== lat && i !== lng) properties[column] = plain(row[i]);
  });
  return JSON.stringify({
    type: "Feature",
    geometry: { type: "Point", coordinates: [Number(row[lng]), Number(row[lat])] },
    properties,
  });
}

/** BLOBs and big integers have no JSON form of their own. */
function plain(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  return value;
}
