// SQL textarea helpers: grow with the query, and Ctrl/Cmd+Enter runs it.
(function () {
  "use strict";

  function autoGrow(textarea) {
    textarea.style.height = "auto";
    textarea.style.height = `${textarea.scrollHeight + 2}px`;
  }

  document.addEventListener("DOMContentLoaded", () => {
    document.querySelectorAll("textarea.sql-editor").forEach((textarea) => {
      autoGrow(textarea);
      textarea.addEventListener("input", () => autoGrow(textarea));
      textarea.addEventListener("keydown", (event) => {
        if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          const form = textarea.form;
          if (form) form.requestSubmit ? form.requestSubmit() : form.submit();
        }
      });
    });
  });
})();
