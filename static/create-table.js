// The create-table page (templates/create_table.html): builds the `/-/create` body from the form
// (columns with their types, NOT NULL, defaults and references; the primary key; pasted rows),
// shows the SQL a dry run would execute, and creates the table, opening it afterwards. Pasted rows
// are read by the server with the importer's rules: a dry run answers the inferred columns,
// which fill the column list to be edited.
import { postJson } from "./post-json.js";

(() => {
  const EXPRESSIONS = ["current_timestamp", "current_date", "current_time"];
  const NUMERIC = /^(integer|float|real|numeric|boolean|decimal|double|bigint)$/;
  const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;

  /** A column's entry of the body, or null for a row whose name is empty. */
  function columnOf(row) {
    const name = row.querySelector("[name=column]").value.trim();
    if (!name) return null;
    const choice = row.querySelector("[name=type]").value;
    const column = { name };
    if (choice.startsWith("column:")) column.column_type = choice.slice("column:".length);
    else column.type = choice;
    if (row.querySelector("[name=notnull]").checked) column.not_null = true;
    const fallback = row.querySelector("[name=default]").value;
    if (EXPRESSIONS.includes(fallback.trim().toLowerCase())) {
      column.default_expr = fallback.trim().toLowerCase();
    } else if (fallback !== "") {
      // A number for a numeric column is written as a number (DEFAULT 0, not DEFAULT '0').
      const numeric = NUMERIC.test(column.type || "") && NUMBER.test(fallback.trim());
      column.default = numeric ? Number(fallback.trim()) : fallback;
    }
    return column;
  }

  /** The `/-/create` body the form describes. */
  function bodyOf(form) {
    const body = { table: form.querySelector("[name=table]").value.trim() };
    const rows = [...form.querySelectorAll(".create-column")];
    const columns = [];
    const keys = [];
    const foreignKeys = [];
    for (const row of rows) {
      const column = columnOf(row);
      if (!column) continue;
      columns.push(column);
      if (row.querySelector("[name=pk]").checked) keys.push(column.name);
      const target = row.querySelector("[name=references]").value;
      if (target) {
        const { table, column: to } = JSON.parse(target);
        foreignKeys.push({ column: column.name, fk_table: table, fk_column: to });
      }
    }
    // A table needs a column: with none named, it gets just the numbering `id`.
    body.columns = columns.length ? columns : [{ name: "id", type: "integer" }];
    if (keys.length > 1) body.pks = keys;
    else body.pk = keys[0] || "id";
    if (foreignKeys.length) body.foreign_keys = foreignKeys;
    const pasted = form.querySelector("[name=pasted]").value;
    if (form.dataset.pasted === "read" && pasted.trim()) {
      if (form.querySelector("[name=insert_pasted]").checked) body.csv = pasted;
    }
    return body;
  }

  /** Fills each "references" choice with the key columns of the chosen database's tables. */
  function offerTargets(form) {
    const option = form.querySelector("[name=database]").selectedOptions[0];
    const keys = option ? JSON.parse(option.dataset.keyColumns || "{}") : {};
    for (const select of form.querySelectorAll("[name=references]")) {
      const kept = select.value;
      select.replaceChildren(new Option("nothing", ""));
      for (const [table, columns] of Object.entries(keys)) {
        for (const column of columns) {
          const value = JSON.stringify({ table, column });
          select.append(new Option(`${table}.${column}`, value, false, value === kept));
        }
      }
    }
  }

  function showError(form, problem) {
    const box = form.querySelector(".write-error");
    box.textContent = problem ? problem.message : "";
    box.hidden = !problem;
  }

  function start() {
    const form = document.querySelector(".create-table-form");
    if (!form) return;
    const list = form.querySelector(".create-columns");
    const template = list.querySelector(".create-column").cloneNode(true);
    const preview = form.querySelector(".create-preview");
    const url = () => form.querySelector("[name=database]").value;
    const newRow = () => {
      const row = template.cloneNode(true);
      list.append(row);
      return row;
    };
    offerTargets(form);
    form.querySelector("[name=database]").addEventListener("change", () => offerTargets(form));
    // Any edit makes a preview stale.
    form.addEventListener("input", () => (preview.hidden = true));
    form.querySelector(".add-column").addEventListener("click", () => {
      const row = newRow();
      offerTargets(form);
      row.querySelector("[name=column]").focus();
    });
    list.addEventListener("click", (event) => {
      const remove = event.target.closest(".remove-column");
      if (remove && list.children.length > 1) remove.closest(".create-column").remove();
    });

    const status = form.querySelector(".create-paste-status");
    form.querySelector(".read-pasted").addEventListener("click", async () => {
      showError(form, null);
      status.textContent = "";
      const csv = form.querySelector("[name=pasted]").value;
      const table = form.querySelector("[name=table]").value.trim() || "pasted_rows";
      try {
        const data = await postJson(url(), { table, csv, dry_run: true }, { from: form });
        list.replaceChildren();
        for (const column of data.columns) {
          const row = newRow();
          row.querySelector("[name=column]").value = column.name;
          // A column of ISO dates comes with its column type (`date`, `datetime`) when offered.
          const type = row.querySelector("[name=type]");
          type.value = column.type.toLowerCase();
          const typed = `column:${column.column_type}`;
          if (column.column_type && [...type.options].some((option) => option.value === typed)) {
            type.value = typed;
          }
          // Every pasted column is kept: its values fill it in order.
          row.querySelector(".remove-column").hidden = true;
          row.dataset.pasted = "true";
        }
        offerTargets(form);
        form.dataset.pasted = "read";
        const count = data.row_count === 1 ? "1 row" : `${data.row_count} rows`;
        const width = data.columns.length;
        status.textContent = `${width} ${width === 1 ? "column" : "columns"} and ${count} read.`;
      } catch (problem) {
        showError(form, problem);
      }
    });
    // Pasting other rows after reading them needs another read.
    form.querySelector("[name=pasted]").addEventListener("input", () => {
      delete form.dataset.pasted;
      status.textContent = "";
    });

    form.querySelector(".preview-create").addEventListener("click", async () => {
      showError(form, null);
      preview.hidden = true;
      try {
        const data = await postJson(url(), { ...bodyOf(form), dry_run: true }, { from: form });
        form.querySelector(".create-statements").textContent = data.statements.join(";\n") + ";";
        const rows = data.row_count || 0;
        form.querySelector(".create-preview-rows").textContent = rows
          ? `Then ${
            rows === 1 ? "1 row is" : `${rows} rows are`
          } inserted, in the same transaction.`
          : "";
        preview.hidden = false;
        preview.scrollIntoView({ block: "nearest" });
      } catch (problem) {
        showError(form, problem);
      }
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      showError(form, null);
      const button = event.submitter;
      if (button) button.disabled = true;
      try {
        const data = await postJson(url(), bodyOf(form), { from: form });
        location.assign(data.table_url);
      } catch (problem) {
        showError(form, problem);
        if (button) button.disabled = false;
      }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
