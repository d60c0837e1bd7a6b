// Column menus for table pages (the built-in `vitrine.column_menus` plugin loads this file).
// Each heading gets a button that opens a menu: sort ascending / descending (by this column
// alone), add as the next sort key, facet by it, show only rows where it has a value, filter on
// it, hide it, and show all columns again when some are hidden. Every action but "filter" is a
// plain link to the changed URL. The menu follows the ARIA menu-button pattern: Enter, Space or
// the arrow keys open it, arrows move between items, Escape closes it and returns focus.
(function () {
  "use strict";

  let open = null; // { button, menu } of the open menu

  // The current page's URL with changes; `_next` always goes (a new query starts at page one).
  function changedUrl(change) {
    const url = new URL(location.href);
    url.searchParams.delete("_next");
    change(url.searchParams);
    const query = url.searchParams.toString();
    return url.pathname + (query ? `?${query}` : "");
  }

  function hasValue(params, key, value) {
    return params.getAll(key).includes(value);
  }

  function menuItems(th, column) {
    const params = new URL(location.href).searchParams;
    const items = [];
    if (th.querySelector("a")) {
      const sortBy = (desc) =>
        changedUrl((p) => {
          p.delete("_sort");
          p.delete("_sort_desc");
          p.set(desc ? "_sort_desc" : "_sort", column);
        });
      items.push({ label: "Sort ascending", href: sortBy(false) });
      items.push({ label: "Sort descending", href: sortBy(true) });
      const sorted = params.getAll("_sort").concat(params.getAll("_sort_desc"));
      if (
        th.dataset.addSortUrl && sorted.length && !(sorted.length === 1 && sorted[0] === column)
      ) {
        const known = sorted.includes(column);
        items.push({
          label: known ? "Reverse this sort key" : "Add as next sort key",
          href: th.dataset.addSortUrl,
        });
      }
    }
    if (!hasValue(params, "_facet", column)) {
      items.push({
        label: "Facet by this column",
        href: changedUrl((p) => p.append("_facet", column)),
      });
    }
    items.push({
      label: "Show only rows with a value",
      href: changedUrl((p) => p.set(`${column}__notblank`, "1")),
    });
    const filterColumn = document.querySelector(
      ".filters .filter-row-new select[name=_filter_column]",
    );
    if (filterColumn && [...filterColumn.options].some((o) => o.value === column)) {
      items.push({ label: "Filter on this column…", action: () => filterOn(filterColumn, column) });
    }
    const shown = document.querySelectorAll("table.rows-and-columns thead th[data-column]").length;
    if (!th.dataset.isPk && shown > 1) {
      items.push({
        label: "Hide this column",
        href: changedUrl((p) => {
          if (p.has("_col")) {
            const kept = p.getAll("_col").filter((c) => c !== column);
            p.delete("_col");
            kept.forEach((c) => p.append("_col", c));
          } else if (!hasValue(p, "_nocol", column)) {
            p.append("_nocol", column);
          }
        }),
      });
    }
    if (params.has("_col") || params.has("_nocol")) {
      items.push({
        label: "Show all columns",
        href: changedUrl((p) => {
          p.delete("_col");
          p.delete("_nocol");
        }),
      });
    }
    return items;
  }

  // Picks the column in the filter form's blank row and moves focus to its operator.
  function filterOn(select, column) {
    select.value = column;
    select.dispatchEvent(new Event("change", { bubbles: true }));
    const row = select.closest(".filter-row");
    row.scrollIntoView({ block: "center" });
    (row.querySelector("select[name=_filter_op]") ?? select).focus();
  }

  function buildMenu(items, id, labelledBy) {
    const menu = document.createElement("ul");
    menu.className = "column-menu";
    menu.id = id;
    menu.setAttribute("role", "menu");
    menu.setAttribute("aria-labelledby", labelledBy);
    for (const item of items) {
      const li = document.createElement("li");
      li.setAttribute("role", "none");
      const control = document.createElement(item.href ? "a" : "button");
      if (item.href) control.href = item.href;
      else {
        control.type = "button";
        control.addEventListener("click", () => {
          close(false);
          item.action();
        });
      }
      control.textContent = item.label;
      control.setAttribute("role", "menuitem");
      control.tabIndex = -1;
      li.append(control);
      menu.append(li);
    }
    return menu;
  }

  function place(menu, button) {
    const box = button.getBoundingClientRect();
    menu.style.top = `${box.bottom + scrollY + 4}px`;
    const width = menu.offsetWidth;
    const left = Math.min(box.left, document.documentElement.clientWidth - width - 8);
    menu.style.left = `${Math.max(8, left) + scrollX}px`;
  }

  function itemsOf(menu) {
    return [...menu.querySelectorAll("[role=menuitem]")];
  }

  function show(button, th, focusLast) {
    close(false);
    const column = th.dataset.column;
    const menu = buildMenu(menuItems(th, column), `${button.id}-menu`, button.id);
    document.body.append(menu);
    place(menu, button);
    button.setAttribute("aria-expanded", "true");
    button.setAttribute("aria-controls", menu.id);
    open = { button, menu };
    const items = itemsOf(menu);
    (focusLast ? items.at(-1) : items[0])?.focus();
    menu.addEventListener("keydown", (event) => onMenuKey(event, menu));
  }

  function close(returnFocus) {
    if (!open) return;
    const { button, menu } = open;
    open = null;
    menu.remove();
    button.setAttribute("aria-expanded", "false");
    button.removeAttribute("aria-controls");
    if (returnFocus) button.focus();
  }

  function onMenuKey(event, menu) {
    const items = itemsOf(menu);
    const at = items.indexOf(document.activeElement);
    const move = (i) => items[(i + items.length) % items.length].focus();
    switch (event.key) {
      case "ArrowDown":
        move(at + 1);
        break;
      case "ArrowUp":
        move(at - 1);
        break;
      case "Home":
        move(0);
        break;
      case "End":
        move(items.length - 1);
        break;
      case "Escape":
        close(true);
        break;
      case "Tab":
        close(false);
        return; // let focus move on
      case " ":
        document.activeElement?.click();
        break;
      default:
        return;
    }
    event.preventDefault();
  }

  function addButton(th, index) {
    const column = th.dataset.column;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "column-menu-button";
    button.id = `column-menu-${index}`;
    button.setAttribute("aria-haspopup", "menu");
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-label", `Column options: ${column}`);
    button.textContent = "▾";
    button.addEventListener("click", () => {
      if (open && open.button === button) close(true);
      else show(button, th, false);
    });
    button.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        show(button, th, event.key === "ArrowUp");
      }
    });
    th.append(button);
  }

  function start() {
    // Table pages, and the samples of the pattern portfolio that ask for them.
    const headings = document.querySelectorAll(
      ":is(body.table, [data-column-menus]) table.rows-and-columns thead th[data-column]",
    );
    // The `Link` column of compound keys is not a real column.
    [...headings].filter((th) => th.dataset.column !== "Link" || th.dataset.columnType)
      .forEach(addButton);
    document.addEventListener("pointerdown", (event) => {
      if (open && !open.menu.contains(event.target) && event.target !== open.button) close(false);
    });
    addEventListener("resize", () => close(false));
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
