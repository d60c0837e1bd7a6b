// The create-table page: builds `{"table", "columns", "pk"|"pks"}` from the form, posts it to
// the chosen database's `/-/create` endpoint and opens the new table.
import { postJson } from "./post-json.js";

(function () {
  "use strict";

  function columnsOf(form) {
    return [...form.querySelectorAll(".create-column")].map((row) => ({
      name: row.querySelector("[name=column]").value.trim(),
      type: row.querySelector("[name=type]").value,
      pk: row.querySelector("[name=pk]").checked,
    })).filter((column) => column.name !== "");
  }

  function showError(form, message) {
    const box = form.querySelector(".write-error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  function start() {
    const form = document.querySelector(".create-table-form");
    if (!form) return;
    const list = form.querySelector(".create-columns");
    const template = list.querySelector(".create-column").cloneNode(true);
    form.querySelector(".add-column").addEventListener("click", () => {
      const row = template.cloneNode(true);
      list.append(row);
      row.querySelector("[name=column]").focus();
    });
    list.addEventListener("click", (event) => {
      const remove = event.target.closest(".remove-column");
      if (remove && list.children.length > 1) remove.closest(".create-column").remove();
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      showError(form, "");
      const named = columnsOf(form);
      // A table needs a column: with none named, it gets just the numbering `id`.
      const columns = named.length ? named : [{ name: "id", type: "integer", pk: true }];
      const keys = columns.filter((column) => column.pk).map((column) => column.name);
      const body = {
        table: form.querySelector("[name=table]").value,
        columns: columns.map(({ name, type }) => ({ name, type })),
      };
      if (keys.length > 1) body.pks = keys;
      else body.pk = keys[0] || "id";
      try {
        const url = form.querySelector("[name=database]").value;
        const data = await postJson(url, body, { from: form });
        location.assign(data.table_url);
      } catch (problem) {
        showError(form, problem.message);
      }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
