// The alter-table page: turns the edited column list into /-/alter operations, previews them
// with a dry run (the server runs the change and rolls it back, so the schema and SQL shown are
// exactly what applying will do), and applies them when asked.
import { postJson } from "./post-json.js";

(() => {
  function operations(form) {
    const renames = [];
    const changes = [];
    for (const row of form.querySelectorAll(".alter-column")) {
      const name = row.querySelector("[name=name]").value.trim();
      const type = row.querySelector("[name=type]").value;
      if (row.classList.contains("new-column")) {
        if (name) changes.push({ op: "add_column", args: { name, type } });
        continue;
      }
      const old = row.dataset.name;
      const drop = row.querySelector("[name=drop]");
      if (drop && drop.checked) {
        changes.push({ op: "drop_column", args: { name: old } });
        continue;
      }
      if (name && name !== old) {
        renames.push({ op: "rename_column", args: { name: old, to: name } });
      }
      const args = {};
      if (type !== row.dataset.type) args.type = type;
      const notNull = row.querySelector("[name=notnull]").checked;
      if (notNull !== (row.dataset.notnull === "true")) args.not_null = notNull;
      if (Object.keys(args).length) {
        changes.push({ op: "alter_column", args: { name: name || old, ...args } });
      }
    }
    // Renames first: later operations name columns by their new names.
    return [...renames, ...changes];
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
    form.querySelector(".add-column").addEventListener("click", () => {
      const row = form.querySelector(".new-column-template").content.firstElementChild
        .cloneNode(true);
      row.querySelector(".remove-column").addEventListener("click", () => row.remove());
      form.querySelector(".alter-columns").append(row);
      row.querySelector("[name=name]").focus();
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
