/**
 * Keyset pages for query results (pure query building; `views/query/query_keyset.ts` decides
 * when a query may use them). A query whose ORDER BY ends with a unique key has a total order,
 * so the page after a row is "the rows after it in that order": `select * from (<sql>) where
 * <after the last row> order by <the same terms>`, which SQLite answers from the key's index
 * without reading the rows before it (an offset page reads and drops them all).
 *
 * Token form: `k<offset>.<base64url of a JSON array>`, the last row's ORDER BY values (an offset
 * token is a bare integer). The offset is only where the page starts, for "Rows 1,001–2,000";
 * it is never used to read. In the JSON array a string, a finite number and null stand for
 * themselves; `{"i": "<digits>"}` is an integer past 2^53, `{"b": "<base64>"}` a BLOB and
 * `{"f": "Infinity"}` an infinite REAL, so each value is bound with the type it was read with.
 *
 * @module
 */

import { type SqlDialect, sqliteDialect } from "../db/dialect.ts";
import type { SqlValue } from "../db/values.ts";
import { quoteSqlIdentifier } from "../util/sql.ts";

/** One ORDER BY term of a query: a result column by name or by 1-based position. */
export interface OrderTerm {
  /** The result column's name, or its 1-based position (`order by 2`). */
  column: string | number;
  desc: boolean;
  /** Whether NULLs come first (SQLite's default: first ascending, last descending). */
  nulls_first: boolean;
}

interface Token {
  kind: "word" | "ident" | "string" | "number" | "punct";
  text: string;
}

/** SQL tokens outside comments, with their parenthesis depth; null when the text does not lex. */
function lex(sql: string): (Token & { depth: number })[] | null {
  const tokens: (Token & { depth: number })[] = [];
  let depth = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (/\s/.test(c)) i++;
    else if (sql.startsWith("--", i)) {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (sql.startsWith("/*", i)) {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (c === "'" || c === '"' || c === "`" || c === "[") {
      const close = c === "[" ? "]" : c;
      let j = i + 1;
      let text = "";
      for (;;) {
        if (j >= sql.length) return null;
        if (sql[j] === close) {
          // A doubled quote is the quote itself ([...] has no escape).
          if (close !== "]" && sql[j + 1] === close) {
            text += close;
            j += 2;
            continue;
          }
          break;
        }
        text += sql[j++];
      }
      tokens.push({ kind: c === "'" ? "string" : "ident", text, depth });
      i = j + 1;
    } else if (/[A-Za-z_\u0080-\uffff]/.test(c)) {
      const word = /^[A-Za-z0-9_$\u0080-\uffff]+/.exec(sql.slice(i))![0];
      tokens.push({ kind: "word", text: word, depth });
      i += word.length;
    } else if (/[0-9]/.test(c)) {
      const number = /^[0-9A-Za-z_.]+/.exec(sql.slice(i))![0];
      tokens.push({ kind: "number", text: number, depth });
      i += number.length;
    } else {
      if (c === ")") depth--;
      tokens.push({ kind: "punct", text: c, depth });
      if (c === "(") depth++;
      i++;
    }
  }
  return tokens;
}

const word = (token: Token | undefined, text: string) =>
  token?.kind === "word" && token.text.toLowerCase() === text;

/**
 * The terms of the query's own (outermost) ORDER BY, or null when it has none or any term is
 * more than a result column with ASC/DESC and NULLS FIRST/LAST (an expression, a COLLATE), or
 * the statement is compound (UNION…), has its own LIMIT, or is more than one statement. Null
 * means "not provably total", and the caller pages by offset.
 */
export function parseOrderBy(sql: string): OrderTerm[] | null {
  const tokens = lex(sql);
  if (!tokens) return null;
  while (tokens.length && tokens.at(-1)!.text === ";" && tokens.at(-1)!.kind === "punct") {
    tokens.pop();
  }
  const top = tokens.filter((token) => token.depth === 0);
  if (top.some((t) => t.kind === "punct" && t.text === ";")) return null;
  if (top.some((t) => ["union", "intersect", "except", "limit"].some((w) => word(t, w)))) {
    return null;
  }
  let start = -1;
  for (let i = top.length - 2; i >= 0; i--) {
    if (word(top[i], "order") && word(top[i + 1], "by")) {
      start = i + 2;
      break;
    }
  }
  if (start < 0) return null;
  // Everything after ORDER BY must sit at depth 0: a parenthesis there is an expression.
  const tail = tokens.slice(tokens.indexOf(top[start - 1]) + 1);
  if (tail.some((token) => token.depth !== 0 || token.kind === "punct" && token.text !== ",")) {
    return null;
  }
  const terms: OrderTerm[] = [];
  let i = 0;
  while (i < tail.length) {
    const head = tail[i++];
    let column: string | number;
    if (head.kind === "number" && /^[1-9][0-9]*$/.test(head.text)) column = Number(head.text);
    else if (head.kind === "ident" || head.kind === "word") column = head.text;
    else return null;
    let desc = false;
    if (word(tail[i], "asc")) i++;
    else if (word(tail[i], "desc")) (desc = true, i++);
    let nulls_first = !desc;
    if (word(tail[i], "nulls")) {
      if (word(tail[i + 1], "first")) nulls_first = true;
      else if (word(tail[i + 1], "last")) nulls_first = false;
      else return null;
      i += 2;
    }
    terms.push({ column, desc, nulls_first });
    if (i === tail.length) break;
    if (tail[i].text !== ",") return null;
    i++;
    if (i === tail.length) return null;
  }
  return terms.length ? terms : null;
}

/**
 * Whether the query's outermost statement has an ORDER BY of its own (one inside parentheses, a
 * window's or a subquery's, does not count); null when the text does not lex.
 */
export function hasOrderBy(sql: string): boolean | null {
  const tokens = lex(sql);
  if (!tokens) return null;
  const top = tokens.filter((token) => token.depth === 0);
  return top.some((token, i) => word(token, "order") && word(top[i + 1], "by"));
}

/**
 * The ORDER BY of `select * from (<sql>)` that makes its order total up to identical rows: the
 * query's own terms by result column position, then every result column (`1, 2, 3, …`) to break
 * the ties they leave. Null when the query's own ORDER BY cannot be said over its result columns
 * (an expression, a COLLATE, a table column the result does not show, a name two result columns
 * share): sorting it again could change the user's order.
 */
export function stableOrderBy(
  sql: string,
  columns: string[],
  dialect: SqlDialect = sqliteDialect,
): string | null {
  const ordered = hasOrderBy(sql);
  if (ordered === null || !columns.length) return null;
  const terms = ordered ? parseOrderBy(sql) : [];
  if (!terms) return null;
  const own: string[] = [];
  for (const term of terms) {
    let position: number;
    if (typeof term.column === "number") position = term.column;
    else {
      const name = term.column.toLowerCase();
      const matches = columns.flatMap((column, i) => column.toLowerCase() === name ? [i + 1] : []);
      if (matches.length !== 1) return null;
      position = matches[0];
    }
    if (position > columns.length) return null;
    own.push(`${position}${term.desc ? " desc" : ""} nulls ${term.nulls_first ? "first" : "last"}`);
  }
  // The tie-breakers put NULLs first, as SQLite does, whatever the engine's default.
  return [...own, ...columns.map((_, i) => dialect.orderTerm(String(i + 1), false))].join(", ");
}

/**
 * `select * from (<body>) where <after the key values> order by <terms>`, with the values as
 * parameters `__vitrine_key_<n>`. Each term is a result column name; for term k the rows after
 * are those equal on the terms before it and after on k (NULLs placed as the term says).
 */
export function keysetPageSql(
  body: string,
  columns: string[],
  terms: OrderTerm[],
  values: SqlValue[],
): { sql: string; params: Record<string, SqlValue> } {
  const params: Record<string, SqlValue> = {};
  const names = columns.map(quoteSqlIdentifier);
  const alternatives: string[] = [];
  const equal: string[] = [];
  terms.forEach((term, k) => {
    const name = names[k];
    const param = `:__vitrine_key_${k}`;
    params[`__vitrine_key_${k}`] = values[k];
    const isNull = values[k] === null;
    let after: string | null;
    if (isNull) after = term.nulls_first ? `${name} is not null` : null;
    else {
      const beyond = `${name} ${term.desc ? "<" : ">"} ${param}`;
      after = term.nulls_first ? beyond : `(${beyond} or ${name} is null)`;
    }
    if (after) alternatives.push([...equal, after].join(" and "));
    equal.push(isNull ? `${name} is null` : `${name} = ${param}`);
  });
  const order = terms.map((term, k) =>
    `${names[k]}${term.desc ? " desc" : ""} nulls ${term.nulls_first ? "first" : "last"}`
  );
  const where = alternatives.length ? alternatives.map((a) => `(${a})`).join(" or ") : "0";
  return {
    sql: `select * from (\n${body}\n) where ${where} order by ${order.join(", ")}`,
    params,
  };
}

/** The token of the page after a row whose ORDER BY values are `values`, starting at `offset`. */
export function keysetToken(offset: number, values: SqlValue[]): string {
  const json = JSON.stringify(values.map((value) => {
    if (typeof value === "bigint") return { i: String(value) };
    if (value instanceof Uint8Array) return { b: btoa(String.fromCharCode(...value)) };
    if (typeof value === "number" && !Number.isFinite(value)) return { f: String(value) };
    return value;
  }));
  const base64 = btoa(String.fromCharCode(...new TextEncoder().encode(json)));
  return `k${offset}.${base64.replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "")}`;
}

/** A keyset token's offset and values, or null when `token` is not one (or is damaged). */
export function parseKeysetToken(token: string): { offset: number; values: SqlValue[] } | null {
  const match = /^k(\d+)\.([A-Za-z0-9_-]*)$/.exec(token);
  if (!match) return null;
  try {
    const binary = atob(match[2].replaceAll("-", "+").replaceAll("_", "/"));
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const parsed = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    if (!Array.isArray(parsed)) return null;
    const values = parsed.map((value): SqlValue => {
      if (value === null || typeof value === "string" || typeof value === "number") return value;
      if (typeof value.i === "string" && /^-?\d+$/.test(value.i)) return BigInt(value.i);
      if (typeof value.b === "string") {
        return Uint8Array.from(atob(value.b), (c) => c.charCodeAt(0));
      }
      if (value.f === "Infinity" || value.f === "-Infinity") return Number(value.f);
      throw new Error("not a value");
    });
    return { offset: Number(match[1]), values };
  } catch {
    return null;
  }
}
