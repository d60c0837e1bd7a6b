// The "/" finder on every page: press "/" (outside a text field) to search the databases,
// tables, views and queries you may see (`/-/jump?q=`), arrows to choose, Enter to go.
(function () {
  "use strict";
  const base = document.querySelector(".site-title")?.getAttribute("href") || "/";
  let dialog = null;

  function typing(target) {
    return target instanceof HTMLElement &&
      (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
  }

  function build() {
    dialog = document.createElement("dialog");
    dialog.className = "jump-dialog";
    dialog.innerHTML = '<form method="dialog" class="jump-form" role="search">' +
      '<input type="search" class="jump-input" aria-label="Jump to" placeholder="Jump to a database, table or query" autocomplete="off">' +
      '</form><ul class="jump-results" role="listbox" aria-label="Matches"></ul>';
    document.body.append(dialog);
    const input = dialog.querySelector("input");
    const list = dialog.querySelector("ul");
    let selected = 0;
    let asked = 0;
    const links = () => [...list.querySelectorAll("a")];
    const mark = () =>
      links().forEach((link, i) => link.setAttribute("aria-selected", String(i === selected)));
    async function search() {
      const mine = ++asked;
      const response = await fetch(`${base}-/jump?q=${encodeURIComponent(input.value)}`, {
        headers: { accept: "application/json" },
      });
      if (mine !== asked || !response.ok) return;
      const { matches } = await response.json();
      list.replaceChildren(...matches.map((match) => {
        const item = document.createElement("li");
        const link = document.createElement("a");
        link.href = match.url;
        link.setAttribute("role", "option");
        const type = document.createElement("span");
        type.className = "jump-type";
        type.textContent = match.type;
        const name = document.createElement("span");
        name.className = "jump-name";
        name.textContent = match.display_name || match.name;
        link.append(type, " ", name);
        if (match.description) {
          const about = document.createElement("span");
          about.className = "jump-description";
          about.textContent = match.description;
          link.append(" ", about);
        }
        item.append(link);
        return item;
      }));
      selected = 0;
      mark();
    }
    input.addEventListener("input", search);
    input.addEventListener("keydown", (event) => {
      const all = links();
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        if (!all.length) return;
        selected = (selected + (event.key === "ArrowDown" ? 1 : all.length - 1)) % all.length;
        mark();
        all[selected].scrollIntoView({ block: "nearest" });
      } else if (event.key === "Enter") {
        event.preventDefault();
        if (all[selected]) location.href = all[selected].href;
      }
    });
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) dialog.close();
    });
    return search;
  }

  let search = null;
  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(event.target) || dialog?.open) return;
    event.preventDefault();
    search ??= build();
    dialog.showModal();
    const input = dialog.querySelector("input");
    input.select();
    search();
  });
})();
