// The alter-table page: turns the edited column list into /-/alter operations, previews them
// with a dry run (the server runs the change and rolls it back, so the schema and SQL shown are
// exactly what applying will do), and applies them when asked.
import { postJson } from "./post-json.js";

(() => {
  const EXPRESSIONS = ["current_timestamp", "current_date", "current_time"];
  const NUMERIC = /^(INTEGER|FLOAT|REAL|NUMERIC)$/;
  const NUMBER = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;

  /** The default's arguments for a field holding `text`: a value, an expression, or none. */
  function defaultArgs(text, type) {
    const trimmed = text.trim();
    if (trimmed === "") return { default: null };
    if (EXPRESSIONS.includes(trimmed.toLowerCase())) return { default_expr: trimmed.toLowerCase() };
    // A number for a numeric column is written as a number (DEFAULT 0, not DEFAULT '0').
    if (NUMERIC.test(type) && NUMBER.test(trimmed)) return { default: Number(trimmed) };
    return { default: text };
  }

  const referenceOf = (row) => row.querySelector("[name=references]").value;

  function operations(form) {
    const renames = [];
    const changes = [];
    const keys = [];
    const keysBefore = [];
    const references = [];
    const order = [];
    const kept = []; // the kept columns' names, at their places in the table before
    for (const row of form.querySelectorAll(".alter-column")) {
      const name = row.querySelector("[name=name]").value.trim();
      const type = row.querySelector("[name=type]").value;
      const fallback = row.querySelector("[name=default]").value;
      const pk = row.querySelector("[name=pk]").checked;
      if (row.classList.contains("new-column")) {
        if (!name) continue;
        const args = { name, type };
        if (row.querySelector("[name=notnull]").checked) args.not_null = true;
        if (fallback.trim()) Object.assign(args, defaultArgs(fallback, type));
        changes.push({ op: "add_column", args });
        if (pk) keys.push(name);
        if (referenceOf(row)) references.push([name, referenceOf(row), ""]);
        order.push(name);
        continue;
      }
      const old = row.dataset.name;
      const drop = row.querySelector("[name=drop]");
      if (drop && drop.checked) {
        changes.push({ op: "drop_column", args: { name: old } });
        continue;
      }
      const current = name || old;
      if (name && name !== old) {
        renames.push({ op: "rename_column", args: { name: old, to: name } });
      }
      const args = {};
      if (type !== row.dataset.type) args.type = type;
      const notNull = row.querySelector("[name=notnull]").checked;
      if (notNull !== (row.dataset.notnull === "true")) args.not_null = notNull;
      if (fallback !== row.dataset.default) Object.assign(args, defaultArgs(fallback, type));
      if (Object.keys(args).length) {
        changes.push({ op: "alter_column", args: { name: current, ...args } });
      }
      if (pk) keys.push(current);
      if (row.dataset.pk === "true") keysBefore.push(current);
      references.push([current, referenceOf(row), row.dataset.references]);
      order.push(current);
      kept[Number(row.dataset.position)] = current;
    }
    const after = [];
    // Keys compared as sets: moving key columns alone does not change the key.
    if ([...keys].sort().join("\n") !== [...keysBefore].sort().join("\n")) {
      after.push({ op: "set_primary_key", args: { columns: keys } });
    }
    for (const [column, target, before] of references) {
      if (target === before) continue;
      if (!target) after.push({ op: "drop_foreign_key", args: { column } });
      else {
        const { table, column: to } = JSON.parse(target);
        after.push({ op: "add_foreign_key", args: { column, fk_table: table, fk_column: to } });
      }
    }
    // Without moves, the kept columns stay in their order and added ones come last.
    const tableOrder = kept.filter((name) => name !== undefined);
    const natural = [...tableOrder, ...order.filter((name) => !tableOrder.includes(name))];
    if (order.join("\n") !== natural.join("\n")) {
      after.push({ op: "reorder_columns", args: { columns: order } });
    }
    // Renames first: later operations name columns by their new names.
    return [...renames, ...changes, ...after];
  }

  /** Fills each "references" choice with the database's key columns, keeping its current one. */
  function offerTargets(form, row) {
    const keys = JSON.parse(form.dataset.keyColumns || "{}");
    const select = row.querySelector("[name=references]");
    const chosen = row.dataset.references || "";
    for (const [table, columns] of Object.entries(keys)) {
      for (const column of columns) {
        const value = JSON.stringify({ table, column });
        select.append(new Option(`${table}.${column}`, value, value === chosen, value === chosen));
      }
    }
  }

  // A new column type can change stored values ("04360" in an INTEGER column is 4360) and the
  // history does not record a rebuild's rows: say so before Apply, with the first such value.
  function showChanges(box, changes) {
    box.replaceChildren(...changes.map((change) => {
      const line = document.createElement("p");
      const rows = change.rows === 1 ? "1 value" : `${change.rows.toLocaleString("en")} values`;
      line.textContent = `${change.column}: ${rows} will change and cannot be undone from the ` +
        `history, e.g. ${JSON.stringify(change.before)} becomes ${JSON.stringify(change.after)}.`;
      return line;
    }));
    box.hidden = !changes.length;
  }

  const send = (form, body) => postJson(form.dataset.alterUrl, body, { from: form });

  function start() {
    const form = document.querySelector(".alter-table-form");
    if (!form) return;
    const error = form.querySelector(".write-error");
    const preview = form.querySelector(".alter-preview");
    const showError = (problem) => {
      error.textContent = problem ? problem.message : "";
      error.hidden = !problem;
    };
    // Any edit makes the preview stale.
    form.addEventListener("input", () => (preview.hidden = true));
    const list = form.querySelector(".alter-columns");
    for (const row of list.children) offerTargets(form, row);
    form.querySelector(".add-column").addEventListener("click", () => {
      const row = form.querySelector(".new-column-template").content.firstElementChild
        .cloneNode(true);
      row.querySelector(".remove-column").addEventListener("click", () => row.remove());
      offerTargets(form, row);
      list.append(row);
      row.querySelector("[name=name]").focus();
    });
    // Moving a column up or down: the list's order is the table's order afterwards.
    list.addEventListener("click", (event) => {
      const button = event.target.closest(".move-up, .move-down");
      if (!button) return;
      const row = button.closest(".alter-column");
      const up = button.classList.contains("move-up");
      const other = up ? row.previousElementSibling : row.nextElementSibling;
      if (!other) return;
      if (up) other.before(row);
      else other.after(row);
      button.focus();
      preview.hidden = true;
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      showError(null);
      preview.hidden = true;
      const ops = operations(form);
      if (!ops.length) return showError(new Error("Nothing changed yet."));
      try {
        const data = await send(form, { operations: ops, dry_run: true });
        form.querySelector(".alter-schema").textContent = data.schema;
        form.querySelector(".alter-statements").textContent = data.statements.join(";\n") + ";";
        showChanges(form.querySelector(".alter-changes"), data.changed_values ?? []);
        preview.hidden = false;
        preview.scrollIntoView({ block: "nearest" });
      } catch (problem) {
        showError(problem);
      }
    });
    form.querySelector(".apply-alter").addEventListener("click", async (event) => {
      event.target.disabled = true;
      try {
        const data = await send(form, { operations: operations(form) });
        location.assign(data.table_url);
      } catch (problem) {
        showError(problem);
        event.target.disabled = false;
      }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
