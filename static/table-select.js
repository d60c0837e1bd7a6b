// The tick boxes of the table page's rows (templates/_write_table.html's edit bar): one per row,
// one for the page, shift-click for a range; then "Edit column for N rows" (a column, a value set
// on all of them) and "Delete N rows", each behind a dialog that names the rows, and each one
// request to the table's `/-/update-rows` or `/-/delete-rows`: one transaction, all rows or none.
import { copyField, enhanceField, fieldJson, fieldProblem, showError } from "./write-fields.js";

const rowsText = (count) => (count === 1 ? "1 row" : `${count} rows`);

/**
 * Adds the boxes to `rows` of `table` and wires the bar's bulk buttons. `keyValues(tr)` is a
 * row's key values, `keyOf(tr)` its entry of `pks`, `post(url, body, flash)` the JSON POST.
 */
export function setUpSelection({ bar, table, rows, templates, keyValues, keyOf, post }) {
  const maxRows = Number(bar.dataset.maxRows) || 100;
  const bulkEdit = bar.querySelector("[data-bulk-edit]");
  const bulkDelete = bar.querySelector("[data-bulk-delete]");

  // Selection: a box per row and one for the page.
  const selectAll = Object.assign(document.createElement("input"), { type: "checkbox" });
  selectAll.setAttribute("aria-label", "Select every row on this page");
  const corner = document.createElement("th");
  corner.className = "edit-select";
  corner.scope = "col";
  corner.append(selectAll);
  table.tHead.rows[0].prepend(corner);
  for (const tr of table.tBodies[0].rows) {
    const cell = document.createElement("td");
    cell.className = "edit-select";
    if (tr.dataset.row !== undefined) {
      const box = Object.assign(document.createElement("input"), { type: "checkbox" });
      box.setAttribute("aria-label", `Select row ${keyValues(tr).join(", ")}`);
      cell.append(box);
    }
    tr.prepend(cell);
  }
  const boxOf = (tr) => tr.cells[0].querySelector("input");
  const selected = () => rows.filter((tr) => boxOf(tr).checked);
  function refresh() {
    const count = selected().length;
    rows.forEach((tr) => tr.classList.toggle("edit-selected", boxOf(tr).checked));
    selectAll.checked = count > 0 && count === rows.length;
    selectAll.indeterminate = count > 0 && count < rows.length;
    if (bulkEdit) {
      bulkEdit.textContent = `Edit column for ${rowsText(count)}`;
      bulkEdit.disabled = count === 0;
    }
    if (bulkDelete) {
      bulkDelete.textContent = `Delete ${rowsText(count)}`;
      bulkDelete.disabled = count === 0;
    }
  }
  selectAll.addEventListener("change", () => {
    rows.forEach((tr) => (boxOf(tr).checked = selectAll.checked));
    refresh();
  });
  // Shift-click ticks (or clears) every row from the box clicked last to this one.
  let anchor = null;
  rows.forEach((tr) => {
    boxOf(tr).addEventListener("click", (event) => {
      if (event.shiftKey && anchor !== null) {
        const [from, to] = [anchor, rows.indexOf(tr)].sort((a, b) => a - b);
        rows.slice(from, to + 1).forEach((other) => (boxOf(other).checked = event.target.checked));
      }
      anchor = rows.indexOf(tr);
      refresh();
    });
  });
  refresh();

  // Bulk edit and delete: a dialog that says how many rows, then one request.
  function bulkDialog(id, button, prepare, body, url) {
    const dialog = document.getElementById(id);
    if (!dialog || !button) return;
    const confirm = dialog.querySelector("[data-confirm]");
    button.addEventListener("click", () => {
      const chosen = selected();
      if (!chosen.length) return;
      showError(dialog, "");
      prepare(dialog, chosen);
      if (chosen.length > maxRows) {
        showError(dialog, `At most ${maxRows} rows can be changed at once.`);
      }
      confirm.disabled = chosen.length > maxRows;
      dialog.showModal();
    });
    dialog.querySelector("[data-cancel]").addEventListener("click", () => dialog.close());
    confirm.addEventListener("click", async () => {
      showError(dialog, "");
      const pks = selected().map(keyOf);
      let text;
      try {
        text = body(dialog, pks);
      } catch (problem) {
        showError(dialog, problem.message);
        return;
      }
      dialog.querySelectorAll("button").forEach((b) => (b.disabled = true));
      try {
        await post(url, text, true);
        location.reload();
      } catch (error) {
        showError(dialog, error.message);
        dialog.querySelectorAll("button").forEach((b) => (b.disabled = false));
      }
    });
  }

  const editDialog = document.getElementById("bulk-edit");
  const chooser = editDialog && editDialog.querySelector(".bulk-edit-column");
  let bulkField = null;
  function mountField() {
    const template = templates.get(chooser.value);
    bulkField = template ? copyField(template) : null;
    editDialog.querySelector(".bulk-edit-field").replaceChildren(...(bulkField ? [bulkField] : []));
    if (bulkField) enhanceField(bulkField);
  }
  if (chooser) {
    chooser.addEventListener("change", mountField);
    mountField();
  }
  /** "row 4", "rows 4, 5 and 8" (the first ten, then how many more). */
  function whichRows(chosen) {
    const names = chosen.slice(0, 10).map((tr) => keyValues(tr).join(", "));
    if (chosen.length > 10) names.push(`${chosen.length - 10} more`);
    if (names.length === 1) return `row ${names[0]}`;
    return `rows ${names.slice(0, -1).join("; ")} and ${names[names.length - 1]}`;
  }

  bulkDialog("bulk-edit", bulkEdit, (dialog, chosen) => {
    const count = chosen.length;
    dialog.querySelector("[data-confirm]").textContent = `Set for ${rowsText(count)}`;
    dialog.querySelector(".write-dialog-detail").textContent = count === 1
      ? `The value is set on ${whichRows(chosen)}.`
      : `The value is set on ${whichRows(chosen)} in one transaction: on all of them or, ` +
        "when one cannot take it, on none.";
  }, (_dialog, pks) => {
    if (!bulkField) throw new Error("Choose a column.");
    const problem = fieldProblem(bulkField, "update");
    if (problem) throw new Error(problem);
    const value = fieldJson(bulkField, "update");
    return `{"pks":${JSON.stringify(pks)},"update":{${JSON.stringify(chooser.value)}:${value}}}`;
  }, bar.dataset.updateUrl);
  bulkDialog(
    "bulk-delete",
    bulkDelete,
    (dialog, chosen) => {
      const count = chosen.length;
      const which = whichRows(chosen);
      const rows = which[0].toUpperCase() + which.slice(1);
      dialog.querySelector("h2").textContent = `Delete ${rowsText(count)}?`;
      dialog.querySelector("[data-confirm]").textContent = `Delete ${rowsText(count)}`;
      dialog.querySelector(".write-dialog-detail").textContent =
        (count === 1
          ? `${rows} will be deleted.`
          : `${rows} will be deleted in one transaction: all of them or, when one cannot be, none.`) +
        (bar.dataset.undoable === undefined
          ? " This cannot be undone."
          : " The database's history can undo it.");
    },
    (_dialog, pks) => JSON.stringify({ pks }),
    bar.dataset.deleteUrl,
  );
}
