// The map of rows with latitude and longitude (the built-in `vitrine.maps` plugin loads this
// module and sets `globalThis.vitrineMap`). It loads the rows the page shows — on table pages every
// row that matches the filters, up to `max_points`, page after page — and plots them with
// Leaflet, grouped into clusters that split as you zoom in. A point's popup shows its row and
// links to the row page. Without a tile URL the map is drawn on a plain background.
import { L } from "./vendor/map.js";

const config = globalThis.vitrineMap;
const toolbar = document.querySelector(".rows-toolbar[data-json-url]");
if (config && toolbar) setUp(config, toolbar);

function setUp(config, toolbar) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "toolbar-button map-toggle";
  button.textContent = "Map";
  button.setAttribute("aria-expanded", "true");
  button.setAttribute("aria-controls", "map-panel");
  toolbar.append(button);

  const panel = document.createElement("section");
  panel.className = "data-panel map-panel";
  panel.id = "map-panel";
  panel.setAttribute("aria-labelledby", "map-heading");
  panel.innerHTML = `
    <h2 class="data-panel-title" id="map-heading">Map</h2>
    <div class="map"></div>
    <p class="map-note" role="status">Loading rows…</p>`;
  toolbar.after(panel);

  const map = makeMap(panel.querySelector(".map"), config);
  button.addEventListener("click", () => {
    panel.hidden = !panel.hidden;
    button.setAttribute("aria-expanded", String(!panel.hidden));
    if (!panel.hidden) map.invalidateSize();
  });
  loadRows(toolbar.dataset.jsonUrl, config.max_points).then(
    (loaded) => plot(map, panel, config, loaded),
    (error) => note(panel, `The rows could not be loaded: ${error.message}`),
  );
}

function makeMap(element, config) {
  // A page that scrolls should not zoom the map by accident: the wheel zooms once it is clicked.
  const map = L.map(element, { maxZoom: 19, scrollWheelZoom: false });
  map.once("click", () => map.scrollWheelZoom.enable());
  map.attributionControl.setPrefix('<a href="https://leafletjs.com">Leaflet</a>');
  if (config.tile_url) {
    L.tileLayer(config.tile_url, { attribution: config.attribution, maxZoom: 19 }).addTo(map);
  }
  map.setView([0, 0], 1);
  return map;
}

// Every row the page stands for: on table pages the following pages too (`next`), as long as
// the point limit allows; a query page's JSON already holds its whole result.
async function loadRows(jsonUrl, maxPoints) {
  const url = new URL(jsonUrl, location.href);
  const table = document.body.classList.contains("table");
  if (table) {
    url.searchParams.delete("_next");
    url.searchParams.set("_size", "max");
    url.searchParams.set("_extra", "primary_keys");
    for (const skip of ["_nocount", "_nofacet", "_nosuggest"]) url.searchParams.set(skip, "1");
  }
  const rows = [];
  let primaryKeys = [];
  let more = false;
  while (true) {
    const response = await fetch(url, { headers: { accept: "application/json" } });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    const body = await response.json();
    rows.push(...(body.rows ?? []));
    primaryKeys = body.primary_keys ?? primaryKeys;
    more = Boolean(body.next) || Boolean(body.truncated);
    if (!table || !body.next || rows.length >= maxPoints) break;
    url.searchParams.set("_next", body.next);
  }
  return { rows: rows.slice(0, maxPoints), primaryKeys, more, table };
}

function plot(map, panel, config, { rows, primaryKeys, more, table }) {
  const dot = L.divIcon({ className: "map-dot", iconSize: [14, 14] });
  const clusters = L.markerClusterGroup({
    chunkedLoading: true,
    showCoverageOnHover: false,
    maxClusterRadius: 48,
    iconCreateFunction: (cluster) =>
      L.divIcon({
        className: "map-cluster",
        html: `<span>${cluster.getChildCount().toLocaleString()}</span>`,
        iconSize: [38, 38],
      }),
  });
  const keys = primaryKeys.length ? primaryKeys : rows[0] && "rowid" in rows[0] ? ["rowid"] : [];
  const labelColumn = Object.keys(rows[0] ?? {}).find((column) =>
    typeof rows[0][column] === "string" && column !== config.latitude &&
    column !== config.longitude && column !== config.geometry
  );
  const markers = [];
  for (const row of rows) {
    const point = coordinates(row, config);
    if (!point) continue;
    const [lat, lng] = point;
    if (!isFinite(lat) || !isFinite(lng) || Math.abs(lat) > 90 || Math.abs(lng) > 180) continue;
    const label = String(
      valueOf(row[labelColumn]) ?? keys.map((k) => valueOf(row[k])).join(", ") ?? "",
    );
    const marker = L.marker([lat, lng], { icon: dot, title: label, alt: label, keyboard: true });
    marker.bindPopup(() => popup(row, label, table && keys.length ? rowUrl(row, keys) : null));
    markers.push(marker);
  }
  // Bounds from the points themselves: chunked loading fills the cluster group later.
  const plotted = markers.length;
  // Nothing to show: no empty grey box above the table, only the note.
  panel.querySelector(".map").hidden = plotted === 0;
  if (plotted) {
    const bounds = L.latLngBounds(markers.map((marker) => marker.getLatLng()));
    map.fitBounds(bounds, { padding: [24, 24], maxZoom: 16 });
  }
  clusters.addLayers(markers);
  map.addLayer(clusters);
  panel.dataset.points = String(plotted);
  const missing = rows.length - plotted;
  const parts = [
    `${plotted.toLocaleString()} row${plotted === 1 ? "" : "s"} on the map`,
    missing ? `${missing.toLocaleString()} without coordinates` : "",
    more ? `the first ${rows.length.toLocaleString()} rows only` : "",
  ];
  note(panel, parts.filter(Boolean).join("; ") + ".");
  panel.dataset.ready = "1";
}

// [latitude, longitude] of a row, or null: from the two columns, or a SpatiaLite POINT.
function coordinates(row, config) {
  if (config.geometry) return spatialitePoint(row[config.geometry]);
  if (row[config.latitude] === null || row[config.longitude] === null) return null;
  return [Number(row[config.latitude]), Number(row[config.longitude])];
}

// A SpatiaLite geometry BLOB as the JSON API sends it ({"$base64": true, "encoded": …}): the
// header holds the endianness (byte 1) and the class (bytes 39–42, 1 for a point, +1000 per
// extra dimension); a point's X (longitude) and Y (latitude) follow.
function spatialitePoint(value) {
  if (!value || value.$base64 !== true || typeof value.encoded !== "string") return null;
  const bytes = Uint8Array.from(atob(value.encoded), (c) => c.charCodeAt(0));
  if (bytes.length < 60 || bytes[0] !== 0 || bytes[38] !== 0x7c) return null;
  if (bytes[bytes.length - 1] !== 0xfe) return null;
  const view = new DataView(bytes.buffer);
  const little = bytes[1] === 1;
  if (view.getInt32(39, little) % 1000 !== 1) return null;
  return [view.getFloat64(51, little), view.getFloat64(43, little)];
}

// A foreign-key value may come as {value, label}.
function valueOf(value) {
  return value && typeof value === "object" && "value" in value ? value.value : value;
}

// The row page: this table's path, then the key values tilde-encoded and joined with commas.
function rowUrl(row, keys) {
  return `${location.pathname}/${
    keys.map((key) => tildeEncode(String(valueOf(row[key])))).join(",")
  }`;
}

function tildeEncode(text) {
  let out = "";
  for (const byte of new TextEncoder().encode(text)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9_-]/.test(c)) out += c;
    else if (byte === 0x20) out += "+";
    else out += `~${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

// The popup: the row's label, a few of its values and the link to the whole row.
function popup(row, label, href) {
  const box = document.createElement("div");
  box.className = "map-popup";
  const title = document.createElement("strong");
  title.textContent = label;
  box.append(title);
  const list = document.createElement("dl");
  for (const [column, value] of Object.entries(row).slice(0, 8)) {
    const term = document.createElement("dt");
    term.textContent = column;
    const detail = document.createElement("dd");
    const shown = valueOf(value);
    detail.textContent = shown === null ? "null" : String(shown);
    list.append(term, detail);
  }
  box.append(list);
  if (href) {
    const link = document.createElement("a");
    link.href = href;
    link.className = "map-row-link";
    link.textContent = "Open this row";
    box.append(link);
  }
  return box;
}

function note(panel, text) {
  panel.querySelector(".map-note").textContent = text;
}
