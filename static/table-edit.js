// Editing rows where the table page shows them (the edit bar of templates/_write_table.html).
// A cell opens an editor on double-click, on Enter (or F2) once focused, or with the bar's
// "Edit cell" button (touch screens have no double-click): the field its column's type asks for,
// the very fields of the row forms (static/write-fields.js), saved through the row's
// `/-/update`. Cells are focusable and the arrow keys move between them. The tick boxes and
// what is done to the ticked rows are table-select.js's.
import { postJson } from "./post-json.js";
import { setUpSelection } from "./table-select.js";
import {
  copyField,
  enhanceField,
  fieldJson,
  fieldProblem,
  parseJson,
  showError,
  state,
  tildeDecode,
} from "./write-fields.js";

/** What the browser's date inputs can show (as editor.ts); other values are edited as text. */
const PICKERS = {
  "date": /^\d{4}-\d{2}-\d{2}$/,
  "datetime-local": /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/,
};
/** Widgets whose value spans lines: Enter adds a line there, Ctrl+Enter saves. */
const MULTILINE = new Set(["json", "textarea"]);

/**
 * A row's JSON with each number kept as written (`{"number": "12.0"}`), so a REAL stays `12.0`
 * and a big integer keeps its digits.
 */
function exactJson(text) {
  return JSON.parse(
    text,
    (_key, value, context) =>
      typeof value === "number" && context ? { number: context.source } : value,
  );
}

/** Puts a stored value into a field; false for values the field cannot hold (BLOBs). */
function fill(field, value) {
  const input = field.querySelector("[data-value]");
  const nullBox = field.querySelector("[data-null]");
  if (!input) return false;
  let text = "";
  if (value === null) {
    field.dataset.kind = "null";
    if (nullBox) nullBox.checked = true;
  } else if (typeof value === "object" && typeof value.number === "string") {
    text = value.number;
    field.dataset.kind = /^-?\d+$/.test(text) ? "integer" : "real";
  } else if (typeof value === "string") {
    text = value;
    field.dataset.kind = "text";
  } else return false;
  const picker = PICKERS[input.type];
  if (picker && text && !picker.test(text)) input.type = "text";
  input.value = text;
  // A one-line box grows to show a value of several lines (up to eight).
  if (input.tagName === "TEXTAREA" && !MULTILINE.has(field.dataset.widget)) {
    input.rows = Math.min(8, text.split("\n").length);
  }
  return true;
}

function setUp(bar) {
  const table = document.querySelector("table.rows-and-columns");
  if (!table || !table.tHead || !table.querySelector("tbody tr[data-row]")) return;
  const csrftoken = bar.closest("[data-csrftoken]").dataset.csrftoken;
  const tableUrl = bar.dataset.tableUrl;
  const keyCount = Math.max(1, JSON.parse(bar.dataset.pks).length);
  const status = bar.querySelector(".edit-bar-status");
  const editCell = bar.querySelector("[data-edit-cell]");
  const templates = new Map(
    [...bar.querySelectorAll("template[data-cell-editor]")].map((t) => [t.dataset.cellEditor, t]),
  );
  const rows = [...table.tBodies[0].rows].filter((tr) => tr.dataset.row !== undefined);
  // The bar sits right above the rows it acts on.
  (table.closest(".table-wrapper") || table).before(bar);
  bar.hidden = false;

  const say = (text) => (status.textContent = text);
  const heading = (cell) => table.tHead.rows[0].cells[cell.cellIndex];
  const rowUrl = (tr) => `${tableUrl}/${tr.dataset.row}`;
  const keyValues = (tr) => tr.dataset.row.split(",").map(tildeDecode);
  const keyOf = (tr) => (keyCount === 1 ? keyValues(tr)[0] : keyValues(tr));
  const post = (url, body, flash) => postJson(url, body, { csrftoken, flash, parse: parseJson });
  setUpSelection({ bar, table, rows, templates, keyValues, keyOf, post });

  // Cells: focusable one at a time (Tab enters the grid at the last one focused).
  const dataCells = (tr) => [...tr.cells].slice(1);
  let current = null;
  rows.forEach((tr) => dataCells(tr).forEach((cell) => (cell.tabIndex = -1)));
  const first = dataCells(rows[0])[0];
  if (first) first.tabIndex = 0;

  /** Why a cell is not edited inline, or null when it is. */
  function refusal(cell) {
    const th = heading(cell);
    const column = th && th.dataset.column;
    if (th && th.dataset.isPk) return `${column} is the row's primary key: it is not edited here.`;
    if (!templates.has(column) || !th.dataset.columnType && column === "Link") {
      return "This column is not edited here.";
    }
    return null;
  }

  table.addEventListener("focusin", (event) => {
    const cell = event.target.closest("td");
    if (!cell || cell.classList.contains("edit-select") || !rows.includes(cell.parentElement)) {
      return;
    }
    if (current && current !== cell) current.tabIndex = -1;
    current = cell;
    cell.tabIndex = 0;
    if (editCell) editCell.disabled = Boolean(refusal(cell));
  });

  table.addEventListener("keydown", (event) => {
    const cell = event.target;
    if (cell.tagName !== "TD" || !rows.includes(cell.parentElement)) return;
    const tr = cell.parentElement;
    const column = cell.cellIndex;
    let next = null;
    if (event.key === "ArrowRight") next = tr.cells[column + 1];
    else if (event.key === "ArrowLeft" && column > 1) next = tr.cells[column - 1];
    else if (event.key === "ArrowDown") next = rows[rows.indexOf(tr) + 1]?.cells[column];
    else if (event.key === "ArrowUp") next = rows[rows.indexOf(tr) - 1]?.cells[column];
    else if (event.key === "Enter" || event.key === "F2") {
      event.preventDefault();
      open(cell);
      return;
    } else return;
    event.preventDefault();
    if (next) next.focus();
  });

  const dataCell = (target) => {
    const cell = target.closest("td");
    const ok = cell && !cell.classList.contains("edit-select") && rows.includes(cell.parentElement);
    return ok ? cell : null;
  };
  table.addEventListener("dblclick", (event) => {
    const cell = dataCell(event.target);
    if (!cell) return;
    event.preventDefault();
    open(cell);
  });
  // Touch screens: a first tap picks a cell, a second tap on it edits it (a link in it still
  // opens on the first tap).
  let tappedAgain = false;
  table.addEventListener("pointerdown", (event) => {
    tappedAgain = event.pointerType === "touch" && current !== null &&
      dataCell(event.target) === current;
  });
  table.addEventListener("click", (event) => {
    const cell = dataCell(event.target);
    if (!tappedAgain || !cell || event.target.closest("a")) return;
    tappedAgain = false;
    open(cell);
  });
  if (editCell) editCell.addEventListener("click", () => current && open(current));

  // The inline editor: a panel by the cell (a sheet at the bottom of narrow screens).
  let editor = null;
  let openings = 0;

  function close() {
    if (!editor) return;
    editor.panel.remove();
    editor.cell.classList.remove("cell-editing");
    editor = null;
  }

  function place() {
    if (!editor) return;
    const { panel, cell } = editor;
    if (matchMedia("(max-width: 600px)").matches) {
      panel.classList.add("cell-editor-sheet");
      return;
    }
    const rect = cell.getBoundingClientRect();
    const left = Math.max(8, Math.min(rect.left, innerWidth - panel.offsetWidth - 8));
    let top = rect.bottom + 4;
    if (top + panel.offsetHeight > innerHeight - 8) {
      top = Math.max(8, rect.top - panel.offsetHeight - 4);
    }
    panel.style.left = `${left}px`;
    panel.style.top = `${top}px`;
  }
  addEventListener("scroll", place, { passive: true, capture: true });
  addEventListener("resize", place, { passive: true });

  async function open(cell) {
    if (!editCell) return; // no update-row: selection only
    const refused = refusal(cell);
    if (refused) {
      say(refused);
      return;
    }
    close();
    // A double tap is two taps and a double-click: only the last open() of a burst goes on.
    const ticket = ++openings;
    const tr = cell.parentElement;
    const column = heading(cell).dataset.column;
    say("Reading the row…");
    let value;
    try {
      const response = await fetch(`${rowUrl(tr)}.json`, {
        headers: { accept: "application/json" },
      });
      const data = exactJson(await response.text());
      if (!response.ok || !data.rows || !data.rows.length) {
        throw new Error((data.errors || [`${response.status}`]).join("; "));
      }
      value = data.rows[0][column];
    } catch (error) {
      say(`Cannot read the row: ${error.message}`);
      return;
    }
    if (ticket !== openings) return;
    close();
    const field = copyField(templates.get(column));
    if (!fill(field, value)) {
      say(`${column} holds a binary value: it is not edited here.`);
      return;
    }
    say("");
    const panel = document.createElement("div");
    panel.className = "cell-editor write-form-fields";
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-label", `Edit ${column} of row ${keyValues(tr).join(", ")}`);
    const error = document.createElement("p");
    error.className = "message message-error write-error";
    error.setAttribute("role", "alert");
    error.hidden = true;
    const buttons = document.createElement("p");
    buttons.className = "form-buttons";
    const save = Object.assign(document.createElement("button"), {
      type: "button",
      textContent: "Save",
    });
    const cancel = Object.assign(document.createElement("button"), {
      type: "button",
      textContent: "Cancel",
    });
    buttons.append(save, cancel);
    panel.append(field, error, buttons);
    document.body.append(panel);
    enhanceField(field);
    field.dataset.initial = state(field);
    editor = { panel, cell, tr, column, field };
    cell.classList.add("cell-editing");
    place();
    const input = field.querySelector("[data-value]");
    input.focus();
    if (input.select) input.select();

    const cancelEdit = () => {
      close();
      cell.focus();
    };
    save.addEventListener("click", () => commit(editor));
    cancel.addEventListener("click", cancelEdit);
    panel.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        cancelEdit();
      } else if (event.key === "Enter" && !event.isComposing && event.target.tagName !== "BUTTON") {
        const multiline = event.target.tagName === "TEXTAREA" &&
          (MULTILINE.has(field.dataset.widget) || event.shiftKey);
        if (multiline && !event.ctrlKey && !event.metaKey) return;
        event.preventDefault();
        commit(editor);
      }
    });
  }

  async function commit(edit) {
    if (!edit || edit !== editor || edit.busy) return;
    const { panel, cell, tr, column, field } = edit;
    showError(panel, "");
    const problem = fieldProblem(field, "update");
    if (problem) {
      showError(panel, problem);
      return;
    }
    if (state(field) === field.dataset.initial) {
      close();
      cell.focus();
      say("Nothing changed.");
      return;
    }
    edit.busy = true;
    panel.querySelectorAll("button").forEach((button) => (button.disabled = true));
    try {
      const body = `{"update":{${JSON.stringify(column)}:${fieldJson(field, "update")}}}`;
      await post(`${rowUrl(tr)}/-/update`, body, false);
    } catch (error) {
      // The server's reason, in place; the edit stays open to be corrected or cancelled.
      showError(panel, error.message);
      panel.querySelectorAll("button").forEach((button) => (button.disabled = false));
      edit.busy = false;
      field.querySelector("[data-value]").focus();
      return;
    }
    await showStored(tr, cell, column);
    close();
    cell.focus();
    say(`Saved ${column} of row ${keyValues(tr).join(", ")}.`);
  }

  /** The cell as the server now renders it (its row page shows the same cell). */
  async function showStored(tr, cell, column) {
    try {
      const response = await fetch(rowUrl(tr), { headers: { accept: "text/html" } });
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = [...page.querySelectorAll("table.rows-and-columns td[data-column]")]
        .find((td) => td.dataset.column === column);
      if (!fresh) throw new Error("no such cell");
      cell.innerHTML = fresh.innerHTML;
      const classes = [...fresh.classList].filter((name) => name.startsWith("type-"));
      cell.classList.remove(...[...cell.classList].filter((name) => name.startsWith("type-")));
      cell.classList.add(...classes);
    } catch {
      location.reload(); // the page as a whole then shows what is stored
    }
  }
}

for (const bar of document.querySelectorAll(".edit-bar")) setUp(bar);
