// The "Chart" view of table, view and query pages (the built-in `vitrine.charts` plugin loads
// this module). A toolbar button opens a panel that fetches this page's rows as JSON, suggests a
// chart from the column types — categories and a number: bar; dates: line (or dots when dates
// repeat); two numbers: scatter — and draws it with Observable Plot. Every choice can be changed:
// chart type, x, y (a number column or the count of rows) and a colour column.
import { barY, dot, lineY, plot, ruleY } from "./vendor/chart.js";

const COUNT = "(number of rows)";
const DATE = /^\d{4}-\d{2}(-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?)?$/;

const toolbar = document.querySelector(".rows-toolbar[data-json-url]");
if (toolbar && document.querySelector("table.rows-and-columns")) setUp(toolbar);

function setUp(toolbar) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "toolbar-button chart-toggle";
  button.textContent = "Chart";
  button.setAttribute("aria-expanded", "false");
  button.setAttribute("aria-controls", "chart-panel");
  toolbar.append(button);

  const panel = document.createElement("section");
  panel.className = "data-panel chart-panel";
  panel.id = "chart-panel";
  panel.hidden = true;
  panel.setAttribute("aria-labelledby", "chart-heading");
  panel.innerHTML = `
    <h2 class="data-panel-title" id="chart-heading">Chart</h2>
    <form class="chart-controls">
      <label>Type <select name="type">
        <option value="bar">Bar</option><option value="line">Line</option>
        <option value="scatter">Scatter</option></select></label>
      <label>X <select name="x"></select></label>
      <label>Y <select name="y"></select></label>
      <label class="chart-combine" hidden>Combine <select name="combine">
        <option value="sum">Sum</option><option value="mean">Average</option>
        <option value="min">Minimum</option><option value="max">Maximum</option></select></label>
      <label>Colour <select name="color"></select></label>
    </form>
    <div class="chart-figure"></div>
    <p class="chart-note" role="status"></p>`;
  toolbar.after(panel);

  let data = null;
  const open = async () => {
    panel.hidden = false;
    button.setAttribute("aria-expanded", "true");
    if (!data) {
      note(panel, "Loading rows…");
      try {
        data = await loadRows(toolbar.dataset.jsonUrl);
      } catch (error) {
        note(panel, `The rows could not be loaded: ${error.message}`);
        return;
      }
      fillControls(panel, data);
    }
    draw(panel, data);
  };
  button.addEventListener("click", () => {
    if (panel.hidden) open();
    else {
      panel.hidden = true;
      button.setAttribute("aria-expanded", "false");
    }
  });
  panel.querySelector("form").addEventListener("change", (event) => {
    // A new x suggests a fitting chart type again; other changes keep the user's choices.
    if (event.target.name === "x") panel.querySelector("[name=type]").value = suggestType(data);
    draw(panel, data);
  });
  if (location.hash === "#chart") open();
  addEventListener("hashchange", () => location.hash === "#chart" && open());
}

// This page's rows as objects; on table pages foreign keys come with their labels.
async function loadRows(jsonUrl) {
  const url = new URL(jsonUrl, location.href);
  if (document.body.classList.contains("table")) url.searchParams.set("_labels", "on");
  const response = await fetch(url, { headers: { accept: "application/json" } });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const body = await response.json();
  const rows = (body.rows ?? []).map((row) =>
    Object.fromEntries(
      Object.entries(row).map((
        [key, value],
      ) => [key, value && typeof value === "object" && "label" in value ? value.label : value]),
    )
  );
  const columns = body.columns ?? Object.keys(rows[0] ?? {});
  return { rows, columns, kinds: columnKinds(rows, columns) };
}

// "number", "date" or "text" for each column with any values; empty columns are left out.
function columnKinds(rows, columns) {
  const kinds = {};
  for (const column of columns) {
    const values = rows.map((row) => row[column]).filter((v) => v !== null && v !== "");
    if (!values.length) continue;
    if (values.every((v) => typeof v === "number")) kinds[column] = "number";
    else if (values.every((v) => typeof v === "string" && DATE.test(v))) kinds[column] = "date";
    else kinds[column] = "text";
  }
  return kinds;
}

const looksLikeKey = (name) => /^(id|rowid|pk)$|_id$/i.test(name);

function distinct(data, column) {
  return new Set(data.rows.map((row) => row[column])).size;
}

// The x column: a date, else text with repeated values (categories), else any text, else a
// number that is not a key.
function suggestX(data) {
  const columns = Object.keys(data.kinds);
  const of = (kind) => columns.filter((c) => data.kinds[c] === kind && !looksLikeKey(c));
  const categories = of("text").filter((c) =>
    distinct(data, c) <= Math.max(2, data.rows.length / 2)
  );
  return of("date")[0] ?? categories[0] ?? of("text")[0] ?? of("number")[0] ?? columns[0];
}

function suggestY(data, x) {
  const numbers = Object.keys(data.kinds).filter((c) => data.kinds[c] === "number" && c !== x);
  return numbers.find((c) => !looksLikeKey(c)) ?? COUNT;
}

function suggestType(data) {
  const form = new FormData(document.querySelector(".chart-controls"));
  const x = form.get("x");
  const kind = data.kinds[x];
  if (kind === "number") return form.get("y") === COUNT ? "bar" : "scatter";
  if (kind === "date") return distinct(data, x) === data.rows.length ? "line" : "scatter";
  return "bar";
}

function fillControls(panel, data) {
  const options = (select, names, chosen) => {
    select.replaceChildren(...names.map((name) => new Option(name, name, false, name === chosen)));
  };
  const columns = Object.keys(data.kinds);
  const x = suggestX(data);
  options(panel.querySelector("[name=x]"), columns, x);
  const numbers = columns.filter((c) => data.kinds[c] === "number");
  options(panel.querySelector("[name=y]"), [...numbers, COUNT], suggestY(data, x));
  const colour = panel.querySelector("[name=color]");
  options(colour, ["", ...columns.filter((c) => data.kinds[c] === "text")], "");
  colour.options[0].textContent = "(none)";
  panel.querySelector("[name=type]").value = suggestType(data);
}

const COMBINE = {
  sum: (values) => values.reduce((a, b) => a + b, 0),
  mean: (values) => values.reduce((a, b) => a + b, 0) / values.length,
  min: (values) => Math.min(...values),
  max: (values) => Math.max(...values),
};
const COMBINE_WORDS = { sum: "sum", mean: "average", min: "minimum", max: "maximum" };

// True when some x (with its colour) comes more than once: a bar chart must then combine values.
function xRepeats(data, x, color) {
  const seen = new Set();
  for (const row of data.rows) {
    const key = JSON.stringify([row[x], color ? row[color] : null]);
    if (seen.has(key)) return true;
    seen.add(key);
  }
  return false;
}

// Plot's input: rows with dates as Date objects, or one row per x with its count, or (bars
// whose x repeats) one row per x with its values combined as chosen: never stacked silently.
function chartRows(data, x, y, color, combine) {
  const value = (v, column) =>
    data.kinds[column] === "date" && typeof v === "string" ? new Date(v) : v;
  if (y !== COUNT && combine) {
    const groups = new Map();
    for (const row of data.rows) {
      if (row[x] === null || row[y] === null) continue;
      const key = JSON.stringify([row[x], color ? row[color] : null]);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(row[y]);
    }
    return [...groups].map(([key, values]) => {
      const [vx, vc] = JSON.parse(key);
      return { x: value(vx, x), y: COMBINE[combine](values), c: vc };
    });
  }
  if (y !== COUNT) {
    return data.rows.filter((row) => row[x] !== null && row[y] !== null)
      .map((row) => ({ x: value(row[x], x), y: row[y], c: color ? row[color] : null }));
  }
  const counts = new Map();
  for (const row of data.rows) {
    const key = JSON.stringify([row[x], color ? row[color] : null]);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([key, n]) => {
    const [vx, vc] = JSON.parse(key);
    return { x: value(vx, x), y: n, c: vc };
  }).filter((row) => row.x !== null);
}

function draw(panel, data) {
  const figure = panel.querySelector(".chart-figure");
  const form = new FormData(panel.querySelector(".chart-controls"));
  const [type, x, y, color] = ["type", "x", "y", "color"].map((k) => form.get(k) || "");
  if (!data.rows.length || !x) {
    figure.replaceChildren();
    note(panel, "There are no rows to chart.");
    return;
  }
  // Bars of a number whose x repeats show one combined value per bar, and say which.
  const combining = type === "bar" && y !== COUNT && xRepeats(data, x, color);
  panel.querySelector(".chart-combine").hidden = !combining;
  const combine = combining ? form.get("combine") || "sum" : null;
  let rows = chartRows(data, x, y, color, combine);
  if (type === "line") rows = rows.sort((a, b) => (a.x < b.x ? -1 : a.x > b.x ? 1 : 0));
  const accent = getComputedStyle(document.documentElement).getPropertyValue("--accent").trim();
  const paint = color ? "c" : accent || "steelblue";
  const channels = { x: "x", y: "y", tip: true };
  const marks = type === "bar"
    ? [
      barY(rows, {
        ...channels,
        fill: paint,
        sort: data.kinds[x] === "text" ? { x: "-y" } : undefined,
      }),
      ruleY([0]),
    ]
    : type === "line"
    ? [lineY(rows, { ...channels, stroke: paint, z: color ? "c" : undefined }), ruleY([0])]
    : [dot(rows, { ...channels, stroke: paint, r: 3 })];
  const yLabel = y === COUNT ? "rows" : combine ? `${COMBINE_WORDS[combine]} of ${y}` : y;
  const description = `${
    type === "scatter" ? "Scatter" : type === "bar" ? "Bar" : "Line"
  } chart of ${yLabel} by ${x}${color ? `, coloured by ${color}` : ""}`;
  const width = Math.max(280, figure.clientWidth || panel.clientWidth);
  const axis = bandAxis(type, rows, width);
  const svg = plot({
    marks,
    width,
    height: 360 + axis.marginBottom - 48,
    marginLeft: 56,
    marginBottom: axis.marginBottom,
    x: {
      label: x,
      type: data.kinds[x] === "date" ? "utc" : type === "bar" ? "band" : undefined,
      tickRotate: axis.rotate,
      tickFormat: axis.format,
      labelOffset: axis.marginBottom - 6,
    },
    y: { label: yLabel, grid: true },
    color: color ? { legend: true } : undefined,
    style: { background: "transparent", color: "inherit", fontSize: "12px", overflow: "visible" },
    ariaLabel: description,
  });
  figure.replaceChildren(svg);
  const source = document.body.classList.contains("table")
    ? `the ${data.rows.length.toLocaleString()} rows on this page`
    : `the ${data.rows.length.toLocaleString()} rows of this query`;
  note(panel, `${description}, from ${source}.`);
  addDownload(panel, figure);
}

const LONGEST_TICK = 18;

// The x axis of bars: labels turned when they would not fit side by side (upright when the
// bars are very narrow), cut to a readable length, and a bottom margin that holds them and,
// below them, the axis title.
function bandAxis(type, rows, width) {
  if (type !== "bar") return { rotate: 0, format: undefined, marginBottom: 48 };
  const format = (v) => {
    const text = v instanceof Date ? v.toISOString().slice(0, 10) : String(v ?? "");
    return text.length > LONGEST_TICK ? `${text.slice(0, LONGEST_TICK - 1)}…` : text;
  };
  const longest = Math.max(0, ...rows.map((row) => format(row.x).length));
  const perBar = (width - 76) / Math.max(1, rows.length);
  // About 6.5 px a character at 12 px.
  const rotate = longest * 6.5 + 8 <= perBar ? 0 : perBar < 16 ? -90 : -45;
  const turn = Math.abs(Math.sin((rotate * Math.PI) / 180));
  const marginBottom = Math.round(40 + longest * 6.5 * turn);
  return { rotate, format, marginBottom };
}

function note(panel, text) {
  panel.querySelector(".chart-note").textContent = text;
}

// "Download SVG": the drawn chart as a standalone file.
function addDownload(panel, figure) {
  // With a legend Plot returns a <figure> whose swatches are small SVGs: take the chart itself.
  const svg =
    [...figure.querySelectorAll("svg")].sort((a, b) =>
      b.getBoundingClientRect().width - a.getBoundingClientRect().width
    )[0];
  let link = panel.querySelector(".chart-download");
  if (!svg) return link?.remove();
  if (!link) {
    link = document.createElement("a");
    link.className = "chart-download";
    link.download = "chart.svg";
    link.textContent = "Download SVG";
    panel.querySelector(".chart-note").after(link);
  }
  const copy = svg.cloneNode(true);
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  if (link.href.startsWith("blob:")) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([copy.outerHTML], { type: "image/svg+xml" }));
}
