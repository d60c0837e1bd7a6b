// The SQL editor (the built-in `vitrine.sql_editor` plugin loads this module): CodeMirror 6 in
// place of each `textarea.sql-editor`, with SQLite highlighting, completion of this database's
// tables and columns (`globalThis.vitrineSqlSchema`), bracket matching, undo history, a "Format SQL"
// button and Ctrl/Cmd+Enter to run. The textarea stays in the form, hidden, and always holds the
// editor's text, so submitting works exactly as before. Tab is left to move focus (keyboard users
// are never trapped); indentation follows Enter.
import {
  autocompletion,
  bracketMatching,
  classHighlighter,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
  defaultKeymap,
  EditorView,
  formatDialect,
  history,
  historyKeymap,
  indentOnInput,
  keymap,
  lineNumbers,
  placeholder,
  sql,
  SQLDialect,
  SQLite,
  sqliteFormat,
  syntaxHighlighting,
} from "./vendor/editor.js";

// SQLite's dialect with standard double quotes for names that need quoting, and names matched
// without regard to case (as SQLite does), so `Population` completes unquoted.
const dialect = SQLDialect.define({
  ...SQLite.spec,
  identifierQuotes: '"',
  caseInsensitiveIdentifiers: true,
});

const theme = EditorView.theme({
  "&": {
    color: "var(--ink)",
    backgroundColor: "var(--field-code)",
    border: "1px solid var(--field-line)",
    borderRadius: "var(--radius)",
    fontSize: "0.875rem",
  },
  "&.cm-focused": {
    outline: "3px solid var(--focus-field)",
    borderColor: "var(--focus)",
  },
  ".cm-content": { fontFamily: "var(--mono)", padding: "0.5rem 0", caretColor: "var(--ink)" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.5", minHeight: "6.5rem" },
  ".cm-gutters": {
    backgroundColor: "var(--paper-tint)",
    color: "var(--ink-faint)",
    borderRight: "1px solid var(--line)",
    borderRadius: "var(--radius) 0 0 var(--radius)",
  },
  ".cm-activeLine": { backgroundColor: "transparent" },
  "&.cm-focused .cm-matchingBracket": {
    backgroundColor: "var(--accent-soft)",
    outline: "1px solid var(--accent)",
  },
  ".cm-selectionBackground, &.cm-focused .cm-selectionBackground, ::selection": {
    backgroundColor: "var(--focus-field) !important",
  },
  ".cm-tooltip": {
    backgroundColor: "var(--paper)",
    color: "var(--ink)",
    border: "1px solid var(--line-strong)",
    borderRadius: "var(--radius)",
    boxShadow: "var(--shadow)",
  },
  ".cm-tooltip-autocomplete > ul > li[aria-selected]": {
    backgroundColor: "var(--button)",
    color: "var(--button-ink)",
  },
  ".cm-completionDetail": { color: "var(--ink-faint)", fontStyle: "normal", marginLeft: "0.75em" },
  ".cm-placeholder": { color: "var(--ink-faint)" },
});

// Completion entries for the SQL language: every table with its columns (`table.` offers that
// table's columns).
function completionSchema(tables) {
  return Object.fromEntries(
    Object.entries(tables).map(([table, columns]) => [
      table,
      columns.map((column) => ({ label: column, type: "property", detail: table })),
    ]),
  );
}

const PLAIN_NAME = /^[a-z_][a-z0-9_]*$/i;
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

// Column names without a `table.` prefix: the columns of the tables the SQL already names (all
// tables' columns while it names none), quoted when they need it.
function columnSource(tables) {
  return (context) => {
    const word = context.matchBefore(/[\w$]+/);
    if (!word && !context.explicit) return null;
    const from = word ? word.from : context.pos;
    if (context.state.sliceDoc(from - 1, from) === ".") return null;
    const text = context.state.doc.toString();
    const names = Object.keys(tables);
    const mentioned = names.filter((table) =>
      new RegExp(`(^|[^\\w])["\`\\[]?${escapeRegExp(table)}["\`\\]]?([^\\w]|$)`, "i").test(text)
    );
    const seen = new Map();
    for (const table of mentioned.length ? mentioned : names) {
      for (const column of tables[table]) {
        if (!seen.has(column)) seen.set(column, []);
        seen.get(column).push(table);
      }
    }
    const options = [...seen].map(([column, owners]) => ({
      label: column,
      apply: PLAIN_NAME.test(column) ? column : `"${column.replaceAll('"', '""')}"`,
      type: "property",
      detail: owners.length > 2 ? `${owners.length} tables` : owners.join(", "),
      boost: mentioned.length ? 1 : -1,
    }));
    return { from, options, validFor: /^[\w$]*$/ };
  };
}

function submit(textarea) {
  const form = textarea.form;
  if (form) form.requestSubmit ? form.requestSubmit() : form.submit();
  return true;
}

function format(view, note) {
  const text = view.state.doc.toString();
  if (!text.trim()) return;
  try {
    const formatted = formatDialect(text, {
      dialect: sqliteFormat,
      tabWidth: 2,
      keywordCase: "preserve",
    });
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: formatted } });
    note.textContent = "";
  } catch (error) {
    note.textContent = `Could not format this SQL: ${String(error.message).split("\n")[0]}`;
  }
  view.focus();
}

function enhance(textarea) {
  const label = textarea.labels?.[0]?.textContent?.trim() || "SQL";
  const tables = globalThis.vitrineSqlSchema ?? {};
  const language = sql({ dialect, schema: completionSchema(tables), upperCaseKeywords: false });
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      keymap.of([{ key: "Mod-Enter", run: () => submit(textarea) }]),
      lineNumbers(),
      history(),
      indentOnInput(),
      bracketMatching(),
      closeBrackets(),
      autocompletion({ icons: false }),
      language,
      language.language.data.of({ autocomplete: columnSource(tables) }),
      syntaxHighlighting(classHighlighter),
      keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...historyKeymap, ...completionKeymap]),
      EditorView.lineWrapping,
      placeholder("select * from …"),
      EditorView.contentAttributes.of({ "aria-label": label }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) textarea.value = update.state.doc.toString();
      }),
      theme,
    ],
  });
  const wrapper = document.createElement("div");
  wrapper.className = "code-editor";
  wrapper.append(view.dom);
  textarea.after(wrapper);
  textarea.hidden = true;
  textarea.dataset.enhanced = "codemirror";
  // The textarea's label now points at the editor.
  textarea.labels?.forEach((element) => element.addEventListener("click", () => view.focus()));

  const buttons = textarea.form?.querySelector(".form-buttons");
  if (buttons) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "format-sql";
    button.textContent = "Format SQL";
    const note = document.createElement("span");
    note.className = "format-note";
    note.setAttribute("role", "status");
    button.addEventListener("click", () => format(view, note));
    buttons.append(button, note);
    const hint = document.createElement("span");
    hint.className = "editor-hint";
    hint.textContent = `${
      /Mac|iPhone|iPad/.test(navigator.platform) ? "⌘" : "Ctrl"
    }+Enter runs the query`;
    buttons.append(hint);
  }
  globalThis.vitrineEditors = [...(globalThis.vitrineEditors ?? []), view];
}

document.querySelectorAll("textarea.sql-editor").forEach(enhance);
