// Row editing on table and row pages: the insert and edit forms, the delete-row and drop-table
// dialogs. Each calls the JSON write API with a same-origin fetch carrying the CSRF token, and
// keeps values typed: a field of an INTEGER column sends a JSON integer (exactly, however large),
// a TEXT column always a string, and NULL only when its box is ticked, so NULL and "" differ.
import { postJson } from "./post-json.js";
import { enhanceField, fieldJson, fieldProblem, parseJson, rowUrl, state } from "./write-fields.js";

// A module runs once however many times a page includes it (the pattern portfolio includes
// both write partials).
(function () {
  "use strict";

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

  function enhanceForm(form) {
    const mode = form.dataset.write;
    const keys = JSON.parse(form.dataset.pks || "[]");
    form.querySelectorAll(".write-field").forEach((field) => {
      field.dataset.initial = state(field);
      enhanceField(field);
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
