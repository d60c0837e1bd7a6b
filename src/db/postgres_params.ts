/**
 * Vitrine's parameters (`:name` named, `?` positional, as SQLite takes them) turned into
 * PostgreSQL's `$1, $2, …`. The scan skips string literals (`'…'`, `E'…'`, dollar-quoted
 * `$tag$…$tag$`), quoted identifiers, comments and `::` casts, so `'12:30'`, `"a:b"` and
 * `x::text` stay as they are. `?` is turned into a parameter only when the parameters are a
 * list: with named parameters it is left alone (it is also jsonb's "has key" operator).
 *
 * @module
 */

import type { BindParams, BindValue } from "../sqlite/values.ts";

/** The SQL with `$n` placeholders and the values in their order. */
export interface PgStatement {
  text: string;
  values: BindValue[];
}

const NAME = /^[\p{L}\p{N}_]+/u;

/** `sql` with its parameters numbered for PostgreSQL, and their values. */
export function toPgStatement(sql: string, params: BindParams | null | undefined): PgStatement {
  const positional = Array.isArray(params) ? params : null;
  const named = params && !Array.isArray(params) ? params : null;
  const values: BindValue[] = [];
  const numbers = new Map<string, number>();
  let out = "";
  let i = 0;
  let start = 0;
  let nextPositional = 0;
  while (i < sql.length) {
    const char = sql[i];
    const next = sql[i + 1];
    const past = skipOpaque(sql, i);
    if (past !== i) {
      i = past;
    } else if (char === ":" && next === ":") {
      i += 2;
    } else if (char === ":" && named) {
      const match = NAME.exec(sql.slice(i + 1));
      if (!match) {
        i++;
        continue;
      }
      const name = match[0];
      let number = numbers.get(name);
      if (number === undefined) {
        // Unbound parameters are NULL, as in SQLite.
        values.push(Object.hasOwn(named, name) ? named[name] : null);
        number = values.length;
        numbers.set(name, number);
      }
      out += `${sql.slice(start, i)}$${number}`;
      i += 1 + name.length;
      start = i;
    } else if (char === "?" && positional) {
      // `?NNN` numbers the parameter itself, as in SQLite.
      const digits = /^\d+/.exec(sql.slice(i + 1));
      const index = digits ? Number(digits[0]) - 1 : nextPositional++;
      out += `${sql.slice(start, i)}$${index + 1}`;
      i += 1 + (digits ? digits[0].length : 0);
      start = i;
    } else {
      i++;
    }
  }
  out += sql.slice(start);
  return { text: out, values: positional ? positional.slice() : values };
}

/**
 * The statements of a script, each trimmed and ending with its `;` (as SQLite reports them), split
 * at the `;`s outside literals, quoted names, comments and dollar-quoted bodies (a function's body
 * keeps its `;`s); empty ones are left out.
 * A `BEGIN ATOMIC … END` body (SQL-standard function bodies) is cut at its `;`s: the server then
 * refuses the pieces, it does not run them differently.
 */
export function splitPgStatements(sql: string): string[] {
  const statements: string[] = [];
  let start = 0;
  let i = 0;
  let meaningful = false;
  const cut = (end: number) => {
    if (meaningful) statements.push(sql.slice(start, end).trim());
    meaningful = false;
  };
  while (i < sql.length) {
    const past = skipOpaque(sql, i);
    if (past !== i) {
      // Comments alone are no statement; a literal is.
      if (!/^(--|\/\*)/.test(sql.slice(i, i + 2))) meaningful = true;
      i = past;
    } else if (sql[i] === ";") {
      cut(i + 1);
      start = ++i;
    } else {
      if (/\S/.test(sql[i])) meaningful = true;
      i++;
    }
  }
  cut(sql.length);
  return statements;
}

/**
 * Index past the comment, literal, quoted name or dollar-quoted body that starts at `i`, or `i`
 * itself when none starts there.
 */
function skipOpaque(sql: string, i: number): number {
  const char = sql[i];
  const next = sql[i + 1];
  if (char === "-" && next === "-") {
    const end = sql.indexOf("\n", i);
    return end === -1 ? sql.length : end + 1;
  }
  if (char === "/" && next === "*") return skipBlockComment(sql, i);
  if (char === "'" || char === '"') return skipQuoted(sql, i, char, isEscapeString(sql, i));
  if (char === "$" && !/[\p{L}\p{N}_]/u.test(sql[i - 1] ?? "")) {
    const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
    if (tag) {
      const end = sql.indexOf(tag[0], i + tag[0].length);
      return end === -1 ? sql.length : end + tag[0].length;
    }
  }
  return i;
}

/** `E'…'` (backslash escapes) rather than a plain literal. */
function isEscapeString(sql: string, quoteAt: number): boolean {
  return sql[quoteAt] === "'" && /[eE]/.test(sql[quoteAt - 1] ?? "") &&
    !/[\p{L}\p{N}_]/u.test(sql[quoteAt - 2] ?? "");
}

/** Index past the literal or identifier opened at `start` (doubled quotes escape). */
function skipQuoted(sql: string, start: number, quote: string, backslashes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    if (backslashes && sql[i] === "\\") {
      i += 2;
      continue;
    }
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) {
        i += 2;
        continue;
      }
      return i + 1;
    }
    i++;
  }
  return sql.length;
}

/** Index past a block comment opened at `start` (PostgreSQL's nest). */
function skipBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === "/" && sql[i + 1] === "*") {
      depth++;
      i += 2;
    } else if (sql[i] === "*" && sql[i + 1] === "/") {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return sql.length;
}
