// Row editing on table and row pages: the insert and edit forms, the delete-row and drop-table
// dialogs. Each calls the JSON write API with a same-origin fetch carrying the CSRF token, and
// keeps values typed: a field of an INTEGER column sends a JSON integer (exactly, however large),
// a TEXT column always a string, and NULL only when its box is ticked, so NULL and "" differ.
import { postJson } from "./post-json.js";

// A module runs once however many times a page includes it (the pattern portfolio includes
// both write partials).
(function () {
  "use strict";

  const INTEGER = /^[+-]?\d+$/;
  const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
  // Untyped columns only take a number written the plain way (`007` stays text).
  const PLAIN_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

  /** JSON text for a number typed as `text`: `+5` → `5`, `007` → `7`, `.5` → `0.5`, `2.` → `2.0`. */
  function numberJson(text) {
    if (INTEGER.test(text)) return BigInt(text).toString();
    let sign = "";
    let body = text;
    if (body[0] === "+" || body[0] === "-") {
      sign = body[0] === "-" ? "-" : "";
      body = body.slice(1);
    }
    body = body.replace(/^0+(?=\d)/, "");
    if (body.startsWith(".")) body = "0" + body;
    body = body.replace(/\.(?=[eE]|$)/, ".0");
    return sign + body;
  }

  /** The JSON text a field sends, or undefined to leave the column out. */
  function fieldJson(field, mode) {
    const nullBox = field.querySelector("[data-null]");
    const input = field.querySelector("[data-value]");
    if (!input) return undefined; // a BLOB: not editable here
    if (nullBox && nullBox.checked) return "null";
    const text = input.value;
    if (mode === "insert" && text === "") return undefined; // the column's default
    const trimmed = text.trim();
    // A typed column (date, url, json, ...) holds text whatever its declared type.
    if (field.dataset.widget) return JSON.stringify(text);
    switch (field.dataset.affinity) {
      case "TEXT":
        return JSON.stringify(text);
      case "INTEGER":
      case "REAL":
      case "NUMERIC":
        return NUMBER.test(trimmed) ? numberJson(trimmed) : JSON.stringify(text);
      default:
        // No declared type: a value that was text stays text; otherwise numbers are numbers.
        if (field.dataset.kind !== "text" && PLAIN_NUMBER.test(trimmed)) return trimmed;
        return JSON.stringify(text);
    }
  }

  /**
   * Why the field's value cannot be saved, or null: the server checks the same (and more), this
   * says it before the round trip, on the field itself.
   */
  function fieldProblem(field, mode) {
    const input = field.querySelector("[data-value]");
    if (!input) return null;
    const nullBox = field.querySelector("[data-null]");
    const name = field.dataset.column;
    if (nullBox && nullBox.checked) {
      return field.dataset.notnull === "1" ? `${name} cannot be NULL` : null;
    }
    const text = input.value;
    if (mode === "insert" && text === "") return null; // the column's default
    if (field.dataset.widget === "json" && text.trim() !== "") {
      try {
        JSON.parse(text);
      } catch (error) {
        return `${name} must be valid JSON: ${error.message}`;
      }
    }
    // The browser knows what a url or email input accepts, and says it in its own words.
    if (input.validity.typeMismatch || input.validity.badInput) {
      return `${name}: ${input.validationMessage}`;
    }
    // DATETIME, BOOLEAN or JSON columns (NUMERIC affinity) hold text too: only number columns.
    if (field.dataset.numbers === "1" && !NUMBER.test(text.trim())) {
      return `${name} is ${field.dataset.type || field.dataset.affinity}: ` +
        `${JSON.stringify(text)} is not a number`;
    }
    return null;
  }

  /** Marks the first field that cannot be saved (the browser shows why); true when all can. */
  function validFields(form, mode) {
    for (const field of form.querySelectorAll(".write-field")) {
      if (mode === "update" && state(field) === field.dataset.initial) continue;
      const problem = fieldProblem(field, mode);
      if (!problem) continue;
      const input = field.querySelector("[data-value]");
      input.setCustomValidity(problem);
      input.reportValidity();
      showError(form, new Error(problem));
      return false;
    }
    return true;
  }

  function state(field) {
    const input = field.querySelector("[data-value]");
    const nullBox = field.querySelector("[data-null]");
    return JSON.stringify([input ? input.value : null, nullBox ? nullBox.checked : null]);
  }

  /** `{"col": value, ...}` for the form's fields (on edit forms, only the changed ones). */
  function rowJson(form, mode) {
    const members = [];
    form.querySelectorAll(".write-field").forEach((field) => {
      if (mode === "update" && state(field) === field.dataset.initial) return;
      const value = fieldJson(field, mode);
      if (value !== undefined) members.push(JSON.stringify(field.dataset.column) + ":" + value);
    });
    return { text: "{" + members.join(",") + "}", count: members.length };
  }

  /** Like JSON.parse, but integers beyond 2^53 keep their digits (as strings) where supported. */
  function parseJson(text) {
    return JSON.parse(text, (_key, value, context) => {
      if (
        typeof value === "number" && !Number.isSafeInteger(value) && context &&
        INTEGER.test(context.source)
      ) return context.source;
      return value;
    });
  }

  /** Tilde encoding of a row key value, as row URLs use it. */
  function tildeEncode(text) {
    let out = "";
    for (const byte of new TextEncoder().encode(text)) {
      const c = String.fromCharCode(byte);
      if (/[A-Za-z0-9_-]/.test(c)) out += c;
      else if (c === " ") out += "+";
      else out += "~" + byte.toString(16).toUpperCase().padStart(2, "0");
    }
    return out;
  }

  function rowUrl(tableUrl, keys, row) {
    const columns = keys.length ? keys : ["rowid"];
    return tableUrl + "/" + columns.map((key) => tildeEncode(String(row[key]))).join(",");
  }

  /** POSTs JSON text `body` to `url` with the CSRF token of `element`'s form or dialog. */
  const post = (element, url, body) => postJson(url, body, { from: element, parse: parseJson });

  function showError(container, error) {
    const box = container.querySelector(".write-error");
    if (!box) return;
    box.textContent = error ? error.message : "";
    box.hidden = !error;
  }

  function busy(container, on) {
    container.querySelectorAll("button").forEach((button) => (button.disabled = on));
  }

  /**
   * A foreign-key field: typing a label offers the matching rows of the referenced table (its
   * JSON, `<label>__contains=`) as suggestions whose values are their keys, and the label of the
   * row the current value points to is shown beside the field.
   */
  function enhanceLookup(input) {
    const list = document.getElementById(input.getAttribute("list"));
    const shown = input.closest(".write-field").querySelector("[data-fk-label]");
    const { lookup, lookupKey, lookupLabel } = input.dataset;
    let timer = null;
    let asked = 0;
    const rowsOf = async (args) => {
      const url = new URL(lookup, location.href);
      url.searchParams.set("_shape", "array");
      url.searchParams.set("_size", "10");
      for (const [name, value] of args) url.searchParams.set(name, value);
      const response = await fetch(url, { headers: { accept: "application/json" } });
      return response.ok ? await response.json() : [];
    };
    const search = async () => {
      const text = input.value.trim();
      const ask = ++asked;
      const [matches, exact] = await Promise.all([
        text ? rowsOf([[`${lookupLabel}__contains`, text]]) : [],
        text ? rowsOf([[`${lookupKey}__exact`, text]]) : [],
      ]);
      if (ask !== asked) return; // a later keystroke's answer wins
      list.replaceChildren(...matches.map((row) => {
        const option = document.createElement("option");
        option.value = String(row[lookupKey]);
        option.label = String(row[lookupLabel]);
        option.textContent = String(row[lookupLabel]);
        return option;
      }));
      if (shown) shown.textContent = exact.length ? String(exact[0][lookupLabel] ?? "") : "";
    };
    input.addEventListener("input", () => {
      clearTimeout(timer);
      timer = setTimeout(search, 150);
    });
  }

  function enhanceForm(form) {
    form.querySelectorAll("input[data-lookup]").forEach(enhanceLookup);
    const mode = form.dataset.write;
    const keys = JSON.parse(form.dataset.pks || "[]");
    form.querySelectorAll(".write-field").forEach((field) => {
      field.dataset.initial = state(field);
      const input = field.querySelector("[data-value]");
      const nullBox = field.querySelector("[data-null]");
      if (!input || !nullBox) return;
      const sync = () => input.classList.toggle("write-is-null", nullBox.checked);
      nullBox.addEventListener("change", () => {
        input.setCustomValidity("");
        sync();
      });
      // Typing a value means it is no longer NULL (and clears what the last check said).
      input.addEventListener("input", () => {
        input.setCustomValidity("");
        if (nullBox.checked) {
          nullBox.checked = false;
          sync();
        }
      });
      sync();
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      showError(form, null);
      if (!validFields(form, mode)) return;
      const row = rowJson(form, mode);
      if (mode === "update" && row.count === 0) {
        showError(form, new Error("Nothing has changed."));
        return;
      }
      const body = mode === "insert"
        ? `{"row":${row.text}}`
        : `{"update":${row.text},"return":true}`;
      busy(form, true);
      try {
        const data = await post(form, form.dataset.url, body);
        const saved = mode === "insert" ? data.rows && data.rows[0] : data.row;
        location.assign(saved ? rowUrl(form.dataset.tableUrl, keys, saved) : location.href);
      } catch (error) {
        showError(form, error);
        busy(form, false);
      }
    });
  }

  /** Drop-table dialogs say how many rows would go: the endpoint answers that unconfirmed. */
  async function showRowCount(dialog) {
    try {
      const data = await post(dialog, dialog.dataset.url, "{}");
      const rows = data.row_count === 1 ? "1 row" : `${data.row_count} rows`;
      dialog.querySelector(".write-dialog-detail").textContent =
        `The table and its ${rows} will be deleted. This cannot be undone.`;
    } catch (error) {
      showError(dialog, error);
    }
  }

  /** Wires a confirmation dialog; returns the function that opens it. */
  function enhanceDialog(dialog) {
    const open = () => {
      showError(dialog, null);
      if (!dialog.open) dialog.showModal();
      if (dialog.dataset.write === "drop") showRowCount(dialog);
    };
    const opener = document.querySelector(`[data-open-dialog="${dialog.id}"]`);
    if (opener) opener.addEventListener("click", open);
    dialog.querySelector("[data-cancel]").addEventListener("click", () => dialog.close());
    dialog.querySelector("[data-confirm]").addEventListener("click", async () => {
      busy(dialog, true);
      try {
        const body = dialog.dataset.write === "drop" ? '{"confirm":true}' : "{}";
        await post(dialog, dialog.dataset.url, body);
        location.assign(dialog.dataset.databaseUrl || dialog.dataset.tableUrl);
      } catch (error) {
        showError(dialog, error);
        busy(dialog, false);
      }
    });
    return open;
  }

  function start() {
    document.querySelectorAll("form[data-write]").forEach(enhanceForm);
    const openers = {};
    document.querySelectorAll("dialog[data-write]").forEach((dialog) => {
      openers[dialog.id] = enhanceDialog(dialog);
    });
    const reveal = (id) => {
      const target = id && document.getElementById(id);
      if (target && target.tagName === "DETAILS") target.open = true;
      else if (target && openers[id]) openers[id]();
    };
    // The action menus link to #insert-row, #edit-row, #delete-row and #drop-table.
    reveal(location.hash.slice(1));
    document.addEventListener("click", (event) => {
      const link = event.target.closest && event.target.closest('a[href^="#"]');
      if (link) reveal(link.getAttribute("href").slice(1));
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
