// The upload panel (templates/_upload.html): a CSV or TSV file dropped, chosen or pasted is
// previewed here (its first rows read with Papa Parse, each column's inferred type changeable),
// then sent to `POST /<db>/<table>/-/upload` in parts cut at row ends (static/upload-parts.js),
// one after another: the server reads each part with the importer `vitrine insert` uses and
// inserts it in one transaction. A progress bar follows the file; Cancel stops after the part in
// flight; a part that fails names its lines and adds none of its rows.
import { Papa } from "./vendor/csv.js";
import { postJson, readAnswer } from "./post-json.js";
import { tildeEncode } from "./write-fields.js";
import { countLineBreaks, FileParts } from "./upload-parts.js";

const PREVIEW_ROWS = 10;
const PREVIEW_BYTES = 64 * 1024;
const TYPES = ["integer", "float", "text", "date", "datetime"];
// The server's importer's patterns (src/db/import/column_types.ts, src/util/iso_dates.ts).
const INTEGER = /^-?(0|[1-9][0-9]{0,17})$/;
const REAL = /^-?(0|[1-9][0-9]*)?(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;
const DATETIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True when `text` starts with `YYYY-MM-DD` naming a day the calendar has. */
function startsWithDay(text) {
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (!match) return false;
  const [year, month, day] = match.slice(1).map(Number);
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month >= 1 && month <= 12 && day >= 1 &&
    day <= (month === 2 && leap ? 29 : DAYS[month - 1]);
}

/** "date" for an ISO date, "datetime" for an ISO date and time, else null. */
function dateKind(text) {
  if (text.length === 10) return startsWithDay(text) ? "date" : null;
  if (!DATETIME.test(text) || !startsWithDay(text)) return null;
  const [hour, minute, second] = [11, 14, 17].map((at) => Number(text.slice(at, at + 2)));
  return hour < 24 && minute < 60 && (text[16] !== ":" || second < 60) ? "datetime" : null;
}

/**
 * The type a column's values need, as the server's importer infers it: integer, float or text,
 * and text whose every value is an ISO date (or every one a date and time) is a date (datetime).
 */
function inferType(values) {
  let type = null;
  let dates = null; // the one date kind every value has had so far, or false
  for (const value of values) {
    if (value === "" || value === undefined) continue;
    const kind = dateKind(value);
    dates = dates === null || dates === kind ? kind || false : false;
    if (type === "text") continue;
    if (INTEGER.test(value)) type ??= "integer";
    else if (REAL.test(value) && /[0-9]/.test(value) && Number.isFinite(Number(value))) {
      type = "float";
    } else type = "text";
  }
  // A column with no value is text, as the importer makes it.
  if (type === null) return "text";
  return type === "text" ? dates || "text" : type;
}

/** Distinct names: empty ones numbered, repeats suffixed, as the server's importer does. */
function columnNames(header) {
  const taken = new Set();
  return header.map((raw, i) => {
    const base = String(raw).trim() || `column_${i + 1}`;
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}_${n}`;
    taken.add(name.toLowerCase());
    return name;
  });
}

function element(tag, attributes = {}, text = "") {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text) node.textContent = text;
  return node;
}

const number = (n) => n.toLocaleString("en");
const megabytes = (bytes) => (bytes / 1024 / 1024).toFixed(1);

/** "1 row", "2,000 rows". */
function rowsOf(count) {
  return `${number(count)} ${count === 1 ? "row" : "rows"}`;
}

/** "about 20 s left", "about 3 min left". */
function timeLeft(seconds) {
  if (!Number.isFinite(seconds)) return "";
  return seconds < 90
    ? `about ${Math.max(1, Math.round(seconds))} s left`
    : `about ${Math.round(seconds / 60)} min left`;
}

/**
 * The first bytes of `blob` as text, and the encoding that read them: UTF-8 when they are UTF-8
 * (a character cut at the end is no error), else Windows-1252, as the server's importer guesses.
 */
async function head(blob) {
  const bytes = new Uint8Array(await blob.slice(0, PREVIEW_BYTES).arrayBuffer());
  try {
    return {
      text: new TextDecoder("utf-8", { fatal: true }).decode(bytes, { stream: true }),
      encoding: "utf-8",
    };
  } catch {
    return { text: new TextDecoder("windows-1252").decode(bytes), encoding: "windows-1252" };
  }
}

/** POSTs one part; resolves with the answer, or throws an Error with the server's message. */
async function sendPart(url, body, csrftoken) {
  const response = await fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "accept": "application/json",
      "x-csrftoken": csrftoken,
    },
    body,
  });
  return await readAnswer(response);
}

function setUp(panel) {
  const form = panel.querySelector(".upload-form");
  const drop = panel.querySelector(".upload-drop");
  const fileInput = panel.querySelector(".upload-file");
  const paste = panel.querySelector(".upload-paste");
  const error = form.querySelector(".upload-error");
  const status = form.querySelector(".upload-status");
  const progress = form.querySelector(".upload-progress");
  const count = form.querySelector(".upload-count");
  const done = form.querySelector(".upload-done");
  const start = form.querySelector(".upload-start");
  const cancel = form.querySelector(".upload-cancel");
  const mode = panel.dataset.mode;
  const maxBytes = Math.max(0, Number(panel.dataset.partBytes) || 0);
  const tableColumns = new Set(
    JSON.parse(panel.dataset.columns || "[]").map((name) => name.toLowerCase()),
  );
  let source = null; // a Blob: the File, or the pasted text
  let dialect = null; // { encoding, delimiter, lineBreak } the preview found
  let names = [];
  let running = null;

  const showError = (message) => {
    error.textContent = message || "";
    error.hidden = !message;
  };

  /** The types to send: the ones the user changed; the others the server infers from more rows. */
  function chosenTypes() {
    return names.map((_, i) => {
      const select = form.querySelector(`[name=type-${i}]`);
      return select && select.value !== select.dataset.inferred ? select.value : "";
    });
  }

  function preview(header, rows) {
    names = columnNames(header);
    const table = element("table", { class: "rows-and-columns upload-preview-table" });
    const head = table.createTHead().insertRow();
    names.forEach((name, i) => {
      const cell = element("th", { scope: "col" });
      cell.append(element("span", { class: "upload-column" }, name), element("br"));
      if (mode === "create") {
        const select = element("select", { name: `type-${i}`, "aria-label": `Type of ${name}` });
        const inferred = inferType(rows.map((row) => row[i]));
        select.dataset.inferred = inferred;
        for (const type of TYPES) {
          const option = element("option", { value: type }, type);
          if (type === inferred) option.selected = true;
          select.append(option);
        }
        cell.append(select);
      } else if (!tableColumns.has(name.toLowerCase())) {
        cell.append(element("span", { class: "upload-unknown" }, "not in the table"));
      }
      head.append(cell);
    });
    const body = table.createTBody();
    for (const row of rows.slice(0, PREVIEW_ROWS)) {
      const tr = body.insertRow();
      names.forEach((_, i) => tr.insertCell().textContent = row[i] ?? "");
    }
    form.querySelector(".upload-preview").replaceChildren(table);
    const pk = form.querySelector(".upload-pk");
    if (pk) {
      pk.replaceChildren(element("option", { value: "" }, "an automatic id (rowid)"));
      for (const name of names) pk.append(element("option", { value: name }, name));
    }
    // Named after the file, until the user types a name of their own.
    const tableName = form.querySelector(".upload-table");
    const fromFile = tableName?.dataset.fromFile ?? "";
    if (tableName && source instanceof File && tableName.value === fromFile) {
      tableName.value = tableName.dataset.fromFile = source.name.replace(/\.[^.]*$/, "");
    }
    form.querySelector(".upload-summary").textContent =
      `${names.length} ${names.length === 1 ? "column" : "columns"}; the first ` +
      `rows below (${number(source.size)} bytes in all).`;
    form.hidden = false;
    done.hidden = true;
    showError("");
  }

  async function read(chosen) {
    source = chosen;
    const { text, encoding } = await head(chosen);
    const results = Papa.parse(text, { preview: PREVIEW_ROWS + 1, skipEmptyLines: true });
    if (!results.data.length) return showError("The file is empty.");
    const lineBreak = results.meta.linebreak === "\r" ? "\r" : "\n";
    dialect = { encoding, delimiter: results.meta.delimiter || ",", lineBreak };
    preview(results.data[0], results.data.slice(1));
  }

  const reading = (chosen) =>
    read(chosen).catch((problem) => showError(`Cannot read the file: ${problem.message}`));
  fileInput.addEventListener("change", () => fileInput.files[0] && reading(fileInput.files[0]));
  panel.querySelector(".upload-read-paste").addEventListener("click", () => {
    if (paste.value.trim()) reading(new Blob([paste.value]));
  });
  for (const target of [drop, panel]) {
    target.addEventListener("dragover", (event) => {
      event.preventDefault();
      drop.classList.add("upload-over");
    });
    target.addEventListener("dragleave", () => drop.classList.remove("upload-over"));
    target.addEventListener("drop", (event) => {
      event.preventDefault();
      drop.classList.remove("upload-over");
      const file = event.dataTransfer.files[0];
      if (file) reading(file);
    });
  }

  cancel.addEventListener("click", () => running && running.cancel());

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (running || !source) return;
    upload().catch((problem) => showError(problem.message)).finally(() => {
      running = null;
      cancel.hidden = true;
      start.disabled = false;
    });
  });

  /**
   * Where the parts go, the first part's options (a new table: its key and types) and the types
   * chosen, sent again with the later parts: a column made `date` holds every part to it.
   */
  function target() {
    if (mode !== "create") {
      return { url: panel.dataset.uploadUrl, first: new URLSearchParams(), types: [] };
    }
    const table = form.querySelector(".upload-table").value.trim();
    if (!table) throw new Error("Name the table.");
    const first = new URLSearchParams({ create: "1" });
    const pk = form.querySelector(".upload-pk").value;
    if (pk) first.append("pk", pk);
    const chosen = chosenTypes();
    for (const type of chosen) first.append("type", type);
    const types = chosen.some((type) => type === "date" || type === "datetime") ? chosen : [];
    return { url: `${panel.dataset.databaseUrl}/${tildeEncode(table)}/-/upload`, first, types };
  }

  async function upload() {
    showError("");
    done.hidden = true;
    const { url, first, types } = target();
    const csrftoken = panel.dataset.csrftoken;
    const parts = new FileParts(source, { ...dialect, maxBytes });
    const total = source.size;
    const started = performance.now();
    let sentBytes = 0;
    let rows = 0;
    let line = 1;
    let columns = null;
    let tableUrl = mode === "create" ? null : panel.dataset.tableUrl;
    let created = false;
    let cancelled = false;
    running = { cancel: () => cancelled = true };
    status.hidden = false;
    cancel.hidden = false;
    start.disabled = true;
    progress.value = 0;
    count.textContent = "";
    // `stopped`: cancelled or failed, so no time is left to tell (the estimate would stay on).
    const show = (stopped = false) => {
      const seconds = (performance.now() - started) / 1000;
      const left = sentBytes ? seconds / sentBytes * (total - sentBytes) : NaN;
      progress.value = Math.min(100, Math.round(100 * sentBytes / total));
      count.textContent = `${rowsOf(rows)} · ${megabytes(sentBytes)} of ` +
        `${megabytes(total)} MB` + (stopped ? "" : ` · ${timeLeft(left)}`);
    };
    // The next part is read and cut while the one before is on its way.
    let next = parts.next();
    next.catch(() => {});
    while (!cancelled) {
      const part = await next;
      if (!part) break;
      next = parts.next();
      next.catch(() => {});
      const query = columns === null ? first : new URLSearchParams({ line: String(line) });
      if (columns !== null) {
        for (const name of columns) query.append("column", name);
        if (created) {
          query.append("continue", "1");
          for (const type of types) query.append("type", type);
        }
      }
      query.append("delimiter", dialect.delimiter);
      let answer;
      try {
        answer = await sendPart(`${url}?${query}`, part.body, csrftoken);
      } catch (problem) {
        show(true);
        const last = line + Math.max(0, countLineBreaks(part.text, dialect.lineBreak) - 1);
        throw new Error(
          `Lines ${number(line)}–${number(last)} were not added: ${problem.message}. ` +
            `${rowsOf(rows)} ${rows === 1 ? "was" : "were"} added before.`,
        );
      }
      rows += answer.row_count;
      line = answer.next_line;
      columns = answer.columns;
      created ||= answer.created;
      tableUrl = new URL(answer.table_url).pathname;
      sentBytes += part.body.length;
      show();
    }
    const link = element("a", { href: tableUrl }, "Open the table");
    if (cancelled) {
      show(true);
      done.replaceChildren(
        `Cancelled: ${rowsOf(rows)} ${rows === 1 ? "was" : "were"} added and kept. `,
        ...(tableUrl ? [link] : []),
      );
      if (created && panel.dataset.canDrop) done.append(" ", dropButton(tableUrl, csrftoken));
    } else {
      progress.value = 100;
      count.textContent = `${rowsOf(rows)} · ${megabytes(total)} MB`;
      done.replaceChildren(`Done: ${rowsOf(rows)} added. `, link);
    }
    done.hidden = false;
  }

  /** Drops the table a cancelled upload created (it needs drop-table, like any drop). */
  function dropButton(tableUrl, csrftoken) {
    const button = element("button", { type: "button", class: "upload-drop-table" }, "Drop it");
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await postJson(`${tableUrl}/-/drop`, { confirm: true }, { csrftoken, flash: false });
        done.replaceChildren("The table was dropped.");
      } catch (problem) {
        showError(problem.message);
        button.disabled = false;
      }
    });
    return button;
  }
}

for (const panel of document.querySelectorAll(".upload-panel")) setUp(panel);
