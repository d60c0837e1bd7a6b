/**
 * A string that is already safe HTML, like Python's markupsafe.Markup.
 * Templates never escape it; anything else they escape.
 */
export class Markup extends String {
  /** Escape plain text so it can be placed in HTML. */
  static escape(value: unknown): Markup {
    if (value instanceof Markup) return value;
    return new Markup(escapeHtml(value === null || value === undefined ? "" : String(value)));
  }
}

const HTML_ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

const SPECIAL = /[&<>"']/;
const SPECIALS = /[&<>"']/g;

/** Escape `& < > " '` for HTML text and attribute values. */
export function escapeHtml(text: string): string {
  // Most text has nothing to escape: a test costs a fraction of a replace with a callback, and
  // a table page escapes every cell and link.
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => HTML_ESCAPES[c]) : text;
}
