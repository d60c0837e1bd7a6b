// Entry for static/vendor/editor.js: the parts of CodeMirror 6 the SQL editor uses, plus a
// SQLite-only SQL formatter. static/sql-editor.js imports these names.
export { EditorView, keymap, lineNumbers, placeholder } from "@codemirror/view";
export { EditorState } from "@codemirror/state";
export { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
export { bracketMatching, indentOnInput, syntaxHighlighting } from "@codemirror/language";
export {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
  startCompletion,
} from "@codemirror/autocomplete";
export { sql, SQLDialect, SQLite } from "@codemirror/lang-sql";
export { classHighlighter } from "@lezer/highlight";
export { formatDialect, sqlite as sqliteFormat } from "sql-formatter";
