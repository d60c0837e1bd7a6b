// Behaviour every page shares, on top of pages that work without it:
// - the header row of a rows table follows the page down (the table box scrolls sideways only, so
//   CSS `position: sticky` cannot pin it to the window);
// - a wide table gets a sideways scrollbar pinned to the window's bottom edge while its own, at
//   the foot of the table, is out of view;
// - shift-click on a column heading adds that column as the next sort key;
// - the export menu's options (expand labels, download as a file) rewrite its links;
// - the dropdown menus (export, actions, navigation) close on Escape, on a click elsewhere and
//   when another one opens, as menus do.
(function () {
  "use strict";

  // Runs `update` now and at most once an animation frame after the window scrolls or resizes;
  // returns the function that asks for another run.
  function everyFrame(update) {
    let queued = false;
    const queue = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        update();
      });
    };
    addEventListener("scroll", queue, { passive: true });
    addEventListener("resize", queue);
    update();
    return queue;
  }

  // Moves <thead> down by how far the table's top has scrolled above the window, never past the
  // last row. One transform per animation frame, only when the offset changes.
  function followHeader(table) {
    const head = table.tHead;
    if (!head) return;
    let shift = 0;
    everyFrame(() => {
      const box = table.getBoundingClientRect();
      const room = box.height - head.offsetHeight - (table.tBodies[0]?.rows[0]?.offsetHeight ?? 0);
      const next = Math.round(Math.max(0, Math.min(-box.top, room)));
      if (next === shift) return;
      shift = next;
      head.style.transform = shift ? `translateY(${shift}px)` : "";
      head.classList.toggle("is-stuck", shift > 0);
    });
  }

  // A thin copy of the table box's sideways scrollbar, pinned to the bottom of the window (CSS
  // sticky) while the table's own is below it: a long, wide table can be scrolled sideways
  // without first scrolling to its last row. The two move together.
  function pinnedScrollbar(wrapper, table) {
    const bar = document.createElement("div");
    bar.className = "pinned-scrollbar";
    bar.setAttribute("aria-hidden", "true");
    const spacer = document.createElement("div");
    bar.append(spacer);
    wrapper.after(bar);
    // Each follows the other. Setting one fires its scroll event a frame later: that event is
    // an echo and is let go, or a drag on the bar in that frame would be undone by the box's
    // older position. (Setting an equal value fires none.)
    const echoes = new Map();
    const follow = (from, to) => () => {
      const echo = echoes.get(from);
      echoes.delete(from);
      if (echo === from.scrollLeft || to.scrollLeft === from.scrollLeft) return;
      const before = to.scrollLeft;
      to.scrollLeft = from.scrollLeft;
      // (A hidden bar keeps 0 and fires nothing.)
      if (to.scrollLeft !== before) echoes.set(to, to.scrollLeft);
    };
    bar.addEventListener("scroll", follow(bar, wrapper), { passive: true });
    wrapper.addEventListener("scroll", follow(wrapper, bar), { passive: true });
    const queue = everyFrame(() => {
      const box = wrapper.getBoundingClientRect();
      // Only while the table is wider than its box and its own scrollbar is below the window.
      const wide = wrapper.scrollWidth > wrapper.clientWidth + 1;
      const wasHidden = bar.hidden;
      bar.hidden = !(wide && box.bottom > innerHeight && box.top < innerHeight - 40);
      if (bar.hidden) return;
      // Under the box, as wide as it (phones pull the box out to the screen's edges), and with
      // the same scroll range: the bar is wider than the box's inside by the box's borders.
      const style = getComputedStyle(wrapper);
      bar.style.marginLeft = style.marginLeft;
      bar.style.marginRight = style.marginRight;
      spacer.style.width = `${wrapper.scrollWidth + bar.clientWidth - wrapper.clientWidth}px`;
      // A hidden bar has no scroll position to keep: it takes the box's when it shows.
      if (wasHidden) bar.scrollLeft = wrapper.scrollLeft;
    });
    // Columns widen after the first layout (fonts, column menus, images): measure again.
    new ResizeObserver(queue).observe(table);
  }

  // A heading's link sorts by that column alone; with Shift held it goes to the URL the server
  // gave for adding the column as the next key.
  function shiftClickSorts(table) {
    table.querySelectorAll("th[data-add-sort-url] > a").forEach((link) => {
      link.addEventListener("click", (event) => {
        if (!event.shiftKey) return;
        event.preventDefault();
        location.href = link.closest("th").dataset.addSortUrl;
      });
    });
  }

  // Each export link names its own base URL; the options add or drop one argument each.
  function exportOptions(menu) {
    const options = menu.querySelectorAll("input[data-export-option]");
    if (!options.length) return;
    menu.querySelectorAll(".export-options").forEach((box) => (box.hidden = false));
    const apply = () => {
      menu.querySelectorAll("a[data-export-url]").forEach((link) => {
        const url = new URL(link.dataset.exportUrl, location.href);
        options.forEach((option) => {
          const applies = !option.dataset.formats ||
            option.dataset.formats.split(" ").includes(link.dataset.format);
          if (option.checked && applies) url.searchParams.set(option.name, option.value);
          else url.searchParams.delete(option.name);
        });
        link.href = url.pathname + url.search;
      });
    };
    options.forEach((option) => option.addEventListener("change", apply));
    apply();
  }

  // <details> dropdowns stay open until their own button is pressed again; menus should not.
  function dropdownMenus() {
    const menus = [...document.querySelectorAll(
      "details.export-menu, details.actions-menu, details.nav-menu",
    )];
    if (!menus.length) return;
    const closeAllBut = (kept) => {
      for (const menu of menus) if (menu !== kept && menu.open) menu.open = false;
    };
    for (const menu of menus) {
      menu.addEventListener("toggle", () => {
        if (menu.open) closeAllBut(menu);
      });
    }
    // A click inside a menu (its options, its links) leaves that one open, unless it follows a
    // link to a part of this page (Insert row, Paste rows): the menu would cover what it opened.
    document.addEventListener("click", (event) => {
      const inPage = event.target.closest?.('a[href^="#"]');
      closeAllBut(inPage ? null : menus.find((menu) => menu.contains(event.target)));
    });
    document.addEventListener("keydown", (event) => {
      if (event.key !== "Escape") return;
      const open = menus.find((menu) => menu.open);
      if (!open) return;
      open.open = false;
      open.querySelector("summary")?.focus();
    });
  }

  function start() {
    document.querySelectorAll(".table-wrapper > table.rows-and-columns").forEach((table) => {
      // Row pages on phones show one record as label/value lines: no header row to follow.
      if (getComputedStyle(table.tHead ?? table).position === "absolute") return;
      followHeader(table);
      pinnedScrollbar(table.parentElement, table);
      shiftClickSorts(table);
    });
    document.querySelectorAll(".export-menu").forEach(exportOptions);
    dropdownMenus();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
