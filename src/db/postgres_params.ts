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
    if (char === "-" && next === "-") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (char === "/" && next === "*") {
      i = skipBlockComment(sql, i);
    } else if (char === "'" || char === '"') {
      i = skipQuoted(sql, i, char, isEscapeString(sql, i));
    } else if (char === "$" && !/[\p{L}\p{N}_]/u.test(sql[i - 1] ?? "")) {
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i));
      if (tag) {
        const end = sql.indexOf(tag[0], i + tag[0].length);
        i = end === -1 ? sql.length : end + tag[0].length;
      } else i++;
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
