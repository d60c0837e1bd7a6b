// Behaviour every page shares, on top of pages that work without it:
// - the header row of a rows table follows the page down (the table box scrolls sideways only, so
//   CSS `position: sticky` cannot pin it to the window);
// - shift-click on a column heading adds that column as the next sort key;
// - the export menu's options (expand labels, download as a file) rewrite its links.
(function () {
  "use strict";

  // Moves <thead> down by how far the table's top has scrolled above the window, never past the
  // last row. One transform per animation frame, only when the offset changes.
  function followHeader(table) {
    const head = table.tHead;
    if (!head) return;
    let shift = 0;
    let queued = false;
    const update = () => {
      queued = false;
      const box = table.getBoundingClientRect();
      const room = box.height - head.offsetHeight - (table.tBodies[0]?.rows[0]?.offsetHeight ?? 0);
      const next = Math.round(Math.max(0, Math.min(-box.top, room)));
      if (next === shift) return;
      shift = next;
      head.style.transform = shift ? `translateY(${shift}px)` : "";
      head.classList.toggle("is-stuck", shift > 0);
    };
    const queue = () => {
      if (!queued) {
        queued = true;
        requestAnimationFrame(update);
      }
    };
    addEventListener("scroll", queue, { passive: true });
    addEventListener("resize", queue);
    update();
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

  function start() {
    document.querySelectorAll(".table-wrapper > table.rows-and-columns").forEach((table) => {
      // Row pages on phones show one record as label/value lines: no header row to follow.
      if (getComputedStyle(table.tHead ?? table).position === "absolute") return;
      followHeader(table);
      shiftClickSorts(table);
    });
    document.querySelectorAll(".export-menu").forEach(exportOptions);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
