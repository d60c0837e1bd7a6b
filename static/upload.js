// The upload panel (templates/_upload.html): a CSV or TSV file dropped, chosen or pasted is parsed
// here with Papa Parse; its first rows are shown with the column types inferred (each can be
// changed), then its rows go to the JSON write API a batch at a time (`max_insert_rows` rows,
// one transaction each) with a progress bar, until done, cancelled or a batch fails.
import { Papa } from "./vendor/csv.js";
import { postJson } from "./post-json.js";

const PREVIEW_ROWS = 10;
const TYPES = ["integer", "float", "text"];
const INTEGER = /^-?(0|[1-9][0-9]{0,14})$/;
const REAL = /^-?(0|[1-9][0-9]*)?(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;

/** The type a column's values need, as the server's importer infers it. */
function inferType(values) {
  let type = "integer";
  for (const value of values) {
    if (value === "" || value === undefined) continue;
    if (INTEGER.test(value)) continue;
    if (REAL.test(value) && /[0-9]/.test(value)) type = "float";
    else return "text";
  }
  return type;
}

/** A value as it is sent for a column of `type`: empty is null, numbers as numbers. */
function typed(value, type) {
  if (value === undefined || value === "") return null;
  if (type === "integer" && INTEGER.test(value)) return Number(value);
  if (type === "float" && REAL.test(value) && Number.isFinite(Number(value))) return Number(value);
  return value;
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

/** Upload batches report their own progress: no message for the next page. */
const post = (url, body, csrftoken) => postJson(url, body, { csrftoken, flash: false });

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
  const batchSize = Math.max(1, Number(panel.dataset.batch) || 100);
  let source = null; // a File or a string
  let names = [];
  let running = null;

  const showError = (message) => {
    error.textContent = message || "";
    error.hidden = !message;
  };

  function chosenTypes() {
    return names.map((_, i) => form.querySelector(`[name=type-${i}]`).value);
  }

  function preview(header, rows) {
    names = columnNames(header);
    const table = element("table", { class: "rows-and-columns upload-preview-table" });
    const head = table.createTHead().insertRow();
    names.forEach((name, i) => {
      const cell = element("th", { scope: "col" });
      cell.append(element("span", { class: "upload-column" }, name), element("br"));
      const select = element("select", { name: `type-${i}`, "aria-label": `Type of ${name}` });
      const inferred = inferType(rows.map((row) => row[i]));
      for (const type of TYPES) {
        const option = element("option", { value: type }, type);
        if (type === inferred) option.selected = true;
        select.append(option);
      }
      cell.append(select);
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
    const tableName = form.querySelector(".upload-table");
    if (tableName && !tableName.value && source instanceof File) {
      tableName.value = source.name.replace(/\.[^.]*$/, "");
    }
    const size = source instanceof File ? source.size : new Blob([source]).size;
    form.querySelector(".upload-summary").textContent =
      `${names.length} columns; the first rows below (${size.toLocaleString("en")} bytes in all).`;
    form.hidden = false;
    done.hidden = true;
    showError("");
  }

  function read(chosen) {
    source = chosen;
    Papa.parse(chosen, {
      preview: PREVIEW_ROWS + 1,
      skipEmptyLines: true,
      complete: (results) => {
        if (!results.data.length) return showError("The file is empty.");
        preview(results.data[0], results.data.slice(1));
      },
      error: (problem) => showError(`Cannot read the file: ${problem.message || problem}`),
    });
  }

  fileInput.addEventListener("change", () => fileInput.files[0] && read(fileInput.files[0]));
  panel.querySelector(".upload-read-paste").addEventListener("click", () => {
    if (paste.value.trim()) read(paste.value);
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
      if (file) read(file);
    });
  }

  cancel.addEventListener("click", () => running && running.cancel());

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (running || !source) return;
    upload().catch((problem) => showError(problem.message));
  });

  async function upload() {
    showError("");
    done.hidden = true;
    const types = chosenTypes();
    const csrftoken = panel.dataset.csrftoken;
    let insertUrl = panel.dataset.insertUrl;
    let tableUrl = panel.dataset.tableUrl;
    if (mode === "create") {
      const table = form.querySelector(".upload-table").value.trim();
      if (!table) throw new Error("Name the table.");
      const pk = form.querySelector(".upload-pk").value;
      const body = { table, columns: names.map((name, i) => ({ name, type: types[i] })) };
      if (pk) body.pk = pk;
      const created = await post(panel.dataset.createUrl, body, csrftoken);
      tableUrl = new URL(created.table_url).pathname;
      insertUrl = `${new URL(created.table_api_url).pathname.replace(/\.json$/, "")}/-/insert`;
    }
    const total = source instanceof File ? source.size : new Blob([source]).size;
    let sent = 0;
    let header = true;
    let cancelled = false;
    let failure = null;
    let pending = [];
    status.hidden = false;
    cancel.hidden = false;
    start.disabled = true;
    progress.value = 0;
    const send = async (rows) => {
      const first = sent + 1;
      try {
        await post(insertUrl, { rows }, csrftoken);
      } catch (problem) {
        throw new Error(`Rows ${first}–${sent + rows.length} were not added: ${problem.message}`);
      }
      sent += rows.length;
      count.textContent = `${sent.toLocaleString("en")} rows`;
    };
    await new Promise((resolve) => {
      let parser = null;
      let sending = false;
      running = {
        // A batch on its way is let finish (and counted); the parser stops after it.
        cancel() {
          cancelled = true;
          if (sending) return;
          if (parser) parser.abort();
          resolve();
        },
      };
      Papa.parse(source, {
        skipEmptyLines: true,
        chunkSize: 256 * 1024,
        chunk: async (results, chunkParser) => {
          parser = chunkParser;
          chunkParser.pause();
          for (const row of results.data) {
            if (header) {
              header = false;
              continue;
            }
            const object = {};
            names.forEach((name, i) => object[name] = typed(row[i], types[i]));
            pending.push(object);
          }
          try {
            sending = true;
            while (pending.length >= batchSize && !cancelled) {
              await send(pending.slice(0, batchSize));
              pending = pending.slice(batchSize);
            }
          } catch (problem) {
            failure = problem;
            chunkParser.abort();
            return resolve();
          } finally {
            sending = false;
          }
          progress.value = Math.round(100 * (results.meta.cursor / total));
          if (cancelled) {
            chunkParser.abort();
            return resolve();
          }
          chunkParser.resume();
        },
        complete: resolve,
        error: (problem) => {
          failure = new Error(`Cannot read the file: ${problem.message || problem}`);
          resolve();
        },
      });
    });
    try {
      if (!failure && !cancelled && pending.length) await send(pending);
    } catch (problem) {
      failure = problem;
    }
    running = null;
    cancel.hidden = true;
    start.disabled = false;
    const link = element("a", { href: tableUrl }, "Open the table");
    if (failure) {
      showError(`${failure.message} ${sent.toLocaleString("en")} rows were added before.`);
    } else if (cancelled) {
      done.replaceChildren(`Cancelled after ${sent.toLocaleString("en")} rows. `, link);
      done.hidden = false;
    } else {
      progress.value = 100;
      done.replaceChildren(`Done: ${sent.toLocaleString("en")} rows added. `, link);
      done.hidden = false;
    }
  }
}

for (const panel of document.querySelectorAll(".upload-panel")) setUp(panel);
