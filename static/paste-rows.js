// "Paste rows" on table pages (templates/_write_table.html): rows copied from a spreadsheet
// (tab-separated) or CSV text are parsed with Papa Parse (static/vendor/csv.js, as uploads are),
// previewed with the column each value goes to, then inserted in one `/-/insert` request: one
// transaction, so a row the table refuses leaves none of them behind, and the error names it.
// A first row naming the table's columns is the header; otherwise values go to the columns in
// order (after an automatic id, when the rows have no value for it).
import { Papa } from "./vendor/csv.js";
import { postJson } from "./post-json.js";
import { showError, valueJson } from "./write-fields.js";

const PREVIEW_ROWS = 10;

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text) node.textContent = text;
  return node;
}

/** Parsed rows of `text`: lists of strings; throws when the text cannot be read. */
function parse(text) {
  const results = Papa.parse(text, { skipEmptyLines: "greedy" });
  // One column has no delimiter to detect: Papa Parse says so, and its rows are still right.
  const problems = results.errors.filter((error) => error.type !== "Delimiter");
  if (problems.length) {
    const problem = problems[0];
    const where = problem.row === undefined ? "" : ` (line ${problem.row + 1})`;
    throw new Error(`Cannot read the pasted text${where}: ${problem.message}`);
  }
  return results.data.map((row) => row.map((value) => String(value)));
}

/**
 * Which column each value position goes to, and whether the first row was the header. Throws
 * when a header names columns the table lacks, or rows are wider than the table.
 */
function plan(rows, columns) {
  const byName = new Map(columns.map((column) => [column.name.toLowerCase(), column]));
  const first = rows[0].map((value) => value.trim());
  const named = first.filter((value) => value !== "");
  const matched = named.filter((value) => byName.has(value.toLowerCase()));
  if (matched.length && matched.length === named.length) {
    return { header: true, targets: first.map((value) => byName.get(value.toLowerCase()) ?? null) };
  }
  if (matched.length && matched.length * 2 >= named.length) {
    const unknown = named.filter((value) => !byName.has(value.toLowerCase()));
    throw new Error(
      `The first row looks like a header, but the table has no column ${unknown.join(", ")}.`,
    );
  }
  const width = Math.max(...rows.map((row) => row.length));
  // Rows one value short of the table leave out its automatic id (INTEGER PRIMARY KEY).
  const positional = width < columns.length && columns[0].auto_pk ? columns.slice(1) : columns;
  if (width > positional.length) {
    throw new Error(
      `The rows have ${width} values, but the table has ${positional.length} columns to fill. ` +
        "Add a header row naming the columns.",
    );
  }
  return { header: false, targets: positional.slice(0, width) };
}

function setUp(panel) {
  const columns = JSON.parse(panel.dataset.columns);
  const maxRows = Number(panel.dataset.maxRows) || 100;
  const text = panel.querySelector(".paste-text");
  const summary = panel.querySelector(".paste-summary");
  const preview = panel.querySelector(".paste-preview");
  const insert = panel.querySelector(".paste-insert");
  let pending = null; // { rows, targets }

  const say = (message) => showError(panel, message);

  function reset() {
    pending = null;
    insert.hidden = true;
    summary.textContent = "";
    preview.replaceChildren();
    say("");
  }

  function show() {
    reset();
    if (!text.value.trim()) return;
    let rows;
    let targets;
    let header;
    try {
      rows = parse(text.value);
      if (!rows.length) return;
      ({ header, targets } = plan(rows, columns));
    } catch (problem) {
      say(problem.message);
      return;
    }
    if (header) rows = rows.slice(1);
    if (!rows.length) {
      say("Only a header row was pasted: paste the rows below it too.");
      return;
    }
    const table = element("table", { class: "rows-and-columns paste-preview-table" });
    const head = table.createTHead().insertRow();
    head.append(element("th", { scope: "col" }, "#"));
    for (const target of targets) {
      head.append(element("th", { scope: "col" }, target ? target.name : "(left out)"));
    }
    const body = table.createTBody();
    rows.slice(0, PREVIEW_ROWS).forEach((row, i) => {
      const tr = body.insertRow();
      tr.insertCell().textContent = String(i + 1);
      targets.forEach((_, j) => (tr.insertCell().textContent = row[j] ?? ""));
    });
    preview.replaceChildren(table);
    const used = targets.filter(Boolean).map((target) => target.name);
    const more = rows.length > PREVIEW_ROWS ? `; the first ${PREVIEW_ROWS} are shown` : "";
    summary.textContent = `${rows.length} row${rows.length === 1 ? "" : "s"} for the columns ` +
      `${used.join(", ")} (${header ? "matched by the header row" : "in order"})${more}.`;
    if (rows.length > maxRows) {
      say(`At most ${maxRows} rows can be pasted at once: paste fewer.`);
      return;
    }
    pending = { rows, targets };
    insert.textContent = `Insert ${rows.length} row${rows.length === 1 ? "" : "s"}`;
    insert.hidden = false;
  }

  /** The `{"rows": [...]}` text: each value typed for its column, empty ones left to defaults. */
  function body({ rows, targets }) {
    const objects = rows.map((row) => {
      const members = [];
      targets.forEach((column, i) => {
        const value = row[i];
        if (!column || value === undefined || value === "") return;
        members.push(`${JSON.stringify(column.name)}:${valueJson(value, column)}`);
      });
      return `{${members.join(",")}}`;
    });
    return `{"rows":[${objects.join(",")}]}`;
  }

  panel.querySelector(".paste-preview-button").addEventListener("click", show);
  // Pasting is the usual way in: preview straight away.
  text.addEventListener("paste", () => setTimeout(show));
  text.addEventListener("input", () => pending && reset());
  insert.addEventListener("click", async () => {
    if (!pending) return;
    say("");
    insert.disabled = true;
    try {
      await postJson(panel.dataset.url, body(pending), { from: panel });
      location.assign(location.href.replace(/#.*$/, ""));
    } catch (problem) {
      say(`Nothing was inserted. ${problem.message}`);
      insert.disabled = false;
    }
  });
}

for (const panel of document.querySelectorAll(".paste-panel")) setUp(panel);
