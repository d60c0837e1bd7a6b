// The SQL editor's write mode. "Run as write…" sends the editor's SQL to /-/execute-write as a
// dry run (the server runs it and rolls it back), so the dialog can list each statement with the
// rows it would change before anything is kept; "Run" then sends it for real and goes to the
// database page, where the outcome is shown as a message.
import { postJson } from "./post-json.js";

(() => {
  const send = (dialog, body) => postJson(dialog.dataset.url, body, { from: dialog });

  /** The SQL and the named parameters filled in on the form. */
  function batch(form) {
    const params = {};
    form.querySelectorAll(".named-parameters [name]").forEach((field) => {
      params[field.name] = field.value;
    });
    return { sql: form.querySelector("[name=sql]").value, params };
  }

  function start() {
    const opener = document.querySelector("[data-open-execute-write]");
    const dialog = document.getElementById("execute-write");
    if (!opener || !dialog) return;
    const form = opener.form;
    const summary = dialog.querySelector(".execute-write-summary");
    const list = dialog.querySelector(".execute-write-statements");
    const error = dialog.querySelector(".write-error");
    const confirm = dialog.querySelector("[data-confirm]");
    const fail = (problem) => {
      summary.textContent = "";
      error.textContent = problem.message;
      error.hidden = false;
    };
    opener.addEventListener("click", async () => {
      list.replaceChildren();
      error.hidden = true;
      confirm.disabled = true;
      summary.textContent = "Checking what this SQL would do…";
      if (!dialog.open) dialog.showModal();
      try {
        const data = await send(dialog, { ...batch(form), dry_run: true });
        summary.textContent = data.message;
        for (const statement of data.statements) {
          const item = document.createElement("li");
          const code = document.createElement("code");
          code.textContent = statement.sql;
          item.append(
            code,
            ` (${statement.rowcount === 1 ? "1 row" : `${statement.rowcount} rows`})`,
          );
          list.append(item);
        }
        confirm.disabled = false;
      } catch (problem) {
        fail(problem);
      }
    });
    dialog.querySelector("[data-cancel]").addEventListener("click", () => dialog.close());
    confirm.addEventListener("click", async () => {
      confirm.disabled = true;
      try {
        await send(dialog, batch(form));
        location.assign(dialog.dataset.databaseUrl);
      } catch (problem) {
        fail(problem);
      }
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
