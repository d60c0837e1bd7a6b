// Progressive enhancement for table pages: the filter form works without JavaScript; with
// it, no-argument operators hide their value box and "Add filter" clones the blank row.
(function () {
  "use strict";

  function syncValueBox(row) {
    const op = row.querySelector("select[name^='_filter_op']");
    const value = row.querySelector("input.filter-value");
    if (!op || !value) return;
    const option = op.options[op.selectedIndex];
    const noArgument = option && option.dataset.noArgument === "1";
    value.hidden = noArgument;
    if (noArgument) value.value = "";
  }

  function enhance(form) {
    form.querySelectorAll(".filter-row").forEach((row) => {
      syncValueBox(row);
      row.addEventListener("change", (event) => {
        if (event.target.matches("select[name^='_filter_op']")) syncValueBox(row);
      });
    });

    const template = form.querySelector(".filter-row-new");
    const addButton = form.querySelector("button.add-filter");
    if (!template || !addButton) return;
    let added = form.querySelectorAll(".filter-row:not(.filter-row-new):not(.sort-row)").length;
    // Cloned rows are numbered after the applied filters (`_filter_column_N`).
    addButton.hidden = false;
    addButton.addEventListener("click", () => {
      added += 1;
      const copy = template.cloneNode(true);
      copy.classList.replace("filter-row-new", "filter-row-added");
      // Numbered names so the server sees each new filter separately.
      copy.querySelectorAll("[name]").forEach((field) => {
        field.name = `${field.name}_${added}`;
        if (field.tagName === "INPUT") field.value = "";
      });
      template.after(copy);
      copy.addEventListener("change", () => syncValueBox(copy));
      syncValueBox(copy);
      const first = copy.querySelector("select");
      if (first) first.focus();
    });
  }

  // Drop fields that say nothing so shared URLs stay short: an empty search box, a new filter
  // row without a column or value, a sort row set to "none" (with its checkbox).
  function tidyOnSubmit(form) {
    form.addEventListener("submit", () => {
      form.querySelectorAll("input[type=search]").forEach((field) => {
        if (field.value === "") field.disabled = true;
      });
      form.querySelectorAll(".sort-row").forEach((row) => {
        const column = row.querySelector("select");
        if (column && column.value === "") {
          row.querySelectorAll("select, input").forEach((field) => (field.disabled = true));
        }
      });
      form.querySelectorAll(".filter-row-new, .filter-row-added").forEach((row) => {
        const column = row.querySelector("select[name^='_filter_column']");
        const op = row.querySelector("select[name^='_filter_op']");
        const value = row.querySelector("input.filter-value");
        const noArgument = op && op.options[op.selectedIndex] &&
          op.options[op.selectedIndex].dataset.noArgument === "1";
        if (!column || column.value === "" || (!noArgument && value && value.value === "")) {
          row.querySelectorAll("select, input").forEach((field) => (field.disabled = true));
        }
      });
    });
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("form.filters").forEach((form) => {
      enhance(form);
      tidyOnSubmit(form);
    });
  });
})();
