/**
 * Page size and keyset pagination tokens (`_next`, API-DETAILS §3).
 *
 * Token forms: rowid tables `<rowid>`; primary keys `<pk1>,<pk2>` (each tilde-encoded); sorted
 * tables `<sortvalue>[,<sortvalue>…],<pk token>` with `$null` for NULL; views (and `_rank`
 * sorts, whose value is not a column) an integer offset. The reference supports one sort
 * column; the clause here generalises its null rules to several keys, each with its own
 * direction, nesting one level per key.
 *
 * A value written as text is bound as text, and the column's affinity turns it back into a
 * number where the column has one. Where that cannot work the part says what the value was, in
 * forms tilde encoding never produces (it writes `$` as `~24`): `$n<number>` for a number in a
 * column without numeric affinity (declared without a type, or BLOB), where `2` must not compare
 * as the text `'2'`; `$inf` and `$-inf`; `$x<hex>` for a BLOB; `$empty` for a token that would
 * be empty (a single key that is the empty string). Without them a client following `next` could
 * loop on one page forever, skip rows or stop early.
 *
 * @module
 */

import { type SqlDialect, sqliteDialect } from "../db/dialect.ts";
import type { SqlValue } from "../db/values.ts";
import { blobFromKeyText, blobKeyText, EMPTY_KEY_TEXT, numberFromText } from "../util/key_text.ts";
import { argList, type ArgsLike } from "./args.ts";
import { TableArgsError } from "./errors.ts";
import { RANK_COLUMN, type SortItem } from "./sort.ts";
import { tilde_decode as tildeDecode, tilde_encode as tildeEncode } from "../util/tilde.ts";

/** Token text standing for a NULL sort value. */
const NULL_TOKEN = "$null";

/** How to put a bad `_next` right, on the error page. */
const NEXT_HINT = "_next takes the token of a page's next_url (or its Next page link), " +
  "not one written by hand.";

/**
 * Rows per page from `_size` (an integer ≥ 0 or `max`), else config `size`, else
 * `default_page_size`.
 */
export function parsePageSize(
  args: ArgsLike,
  options: { max_returned_rows: number; default_page_size: number; configSize?: number | string },
): number {
  const asked = argList(args, "_size")[0];
  const given = asked || options.configSize;
  // The operator's own sizes (`default_page_size`, a table's `size`) are capped by
  // `max_returned_rows` like everything else; only a visitor's `_size` is an error.
  const cap = (size: number) => Math.min(size, options.max_returned_rows);
  if (given === undefined || given === "" || given === null) return cap(options.default_page_size);
  const text = given === "max" ? String(options.max_returned_rows) : String(given).trim();
  if (!/^[+]?[0-9]+$/.test(text)) throw new TableArgsError("_size must be a positive integer");
  const size = Number(text);
  if (!asked) return cap(size);
  if (size > options.max_returned_rows) {
    throw new TableArgsError(`_size must be <= ${options.max_returned_rows}`);
  }
  return size;
}

/** What identifies a row's position for keyset pagination. */
export interface KeysetShape {
  /** Primary key column names (ignored when `useRowid`). */
  pks: string[];
  /** True for tables without an explicit primary key. */
  useRowid: boolean;
  /** True for SQL views: offset pagination. */
  isView: boolean;
  /** Sort keys in effect. */
  items: SortItem[];
}

/** True when pages are addressed by offset rather than by key. */
export function usesOffset(shape: KeysetShape): boolean {
  return shape.isView || shape.items.some((item) => item.column === RANK_COLUMN);
}

/** Where-clause and params that start a page after `token`, or an SQL offset. */
export interface NextClause {
  clause: string | null;
  params: Record<string, SqlValue>;
  offset: number;
}

/** Picks `pN` names not yet in `taken`, starting at the number of taken names. */
function paramNamer(taken: Record<string, unknown>): () => string {
  let index = Object.keys(taken).length;
  const used = new Set(Object.keys(taken));
  return () => {
    while (used.has(`p${index}`)) index++;
    const name = `p${index++}`;
    used.add(name);
    return name;
  };
}

/** `(a > :p0) or (a = :p0 and b > :p1)`: rows after the given compound key. */
export function compoundKeysAfterSql(
  columns: string[],
  params: string[],
  dialect: SqlDialect = sqliteDialect,
): string {
  const name = dialect.escapeIdentifier;
  const alternatives = columns.map((_, last) => {
    const equal = columns.slice(0, last).map((c, i) => `${name(c)} = :${params[i]}`);
    const after = `${name(columns[last])} > :${params[last]}`;
    return `(${[...equal, after].join(" and ")})`;
  });
  return `(${alternatives.join(" or ")})`;
}

/**
 * Parses `_next` into a where-clause continuing after that row. `existing` holds the params
 * already bound (filters, search), so the new names do not collide.
 */
export function nextClause(
  token: string,
  shape: KeysetShape,
  existing: Record<string, unknown> = {},
  dialect: SqlDialect = sqliteDialect,
): NextClause {
  if (usesOffset(shape)) {
    if (!/^[0-9]+$/.test(token)) {
      throw new TableArgsError("_next must be an integer offset", 400, NEXT_HINT);
    }
    return { clause: null, params: {}, offset: Number(token) };
  }
  const raw = token.split(",");
  const sortCount = shape.items.length > 0 && raw.length > 1 ? shape.items.length : 0;
  const sortValues = raw.slice(0, sortCount).map(tokenValue);
  const keyValues = raw.slice(sortCount).map(tokenValue);
  const keyColumns = shape.useRowid ? ["rowid"] : shape.pks;
  if (keyValues.length !== keyColumns.length) {
    throw new TableArgsError("Invalid _next token", 400, NEXT_HINT);
  }
  const nextName = paramNamer(existing);
  const params: Record<string, SqlValue> = {};
  const keyParams = keyValues.map((value) => {
    const name = nextName();
    params[name] = value;
    return name;
  });
  let clause = shape.useRowid
    ? `rowid > :${keyParams[0]}`
    : compoundKeysAfterSql(keyColumns, keyParams, dialect);
  // Build from the innermost sort key outwards: each level is "strictly after, or tied and
  // after on the remaining keys". SQLite sorts NULL first ascending and last descending.
  for (let i = sortCount - 1; i >= 0; i--) {
    const { expression: c, desc } = shape.items[i];
    const value = sortValues[i];
    if (value === null) {
      clause = desc
        ? `(${c} is null and ${clause})`
        : `(${c} is not null or (${c} is null and ${clause}))`;
    } else {
      const name = nextName();
      params[name] = value;
      clause = desc
        ? `(${c} < :${name} or ${c} is null or (${c} = :${name} and ${clause}))`
        : `(${c} > :${name} or (${c} = :${name} and ${clause}))`;
    }
  }
  return { clause, params, offset: 0 };
}

/** One part of a token as the value to bind (see the module comment for the forms). */
function tokenValue(part: string): SqlValue {
  if (!part.startsWith("$")) return tildeDecode(part);
  if (part === NULL_TOKEN) return null;
  if (part === EMPTY_KEY_TEXT) return "";
  if (part === "$inf") return Infinity;
  if (part === "$-inf") return -Infinity;
  const number = part.startsWith("$n") ? numberFromText(part.slice(2)) : null;
  const value = number ?? blobFromKeyText(part);
  if (value === null) throw new TableArgsError("Invalid _next token", 400, NEXT_HINT);
  return value;
}

/** One part of a token for `value`, a cell of a column declared as `declaredType`. */
function tokenPart(value: unknown, declaredType?: string | null): string {
  if (value === null || value === undefined) return NULL_TOKEN;
  if (value instanceof Uint8Array) return blobKeyText(value);
  if (typeof value === "number" && !Number.isFinite(value)) return value > 0 ? "$inf" : "$-inf";
  const text = tokenText(value, declaredType);
  if ((typeof value === "number" || typeof value === "bigint") && !numericAffinity(declaredType)) {
    return `$n${text}`;
  }
  return tildeEncode(text);
}

/**
 * SQLite's affinity rules: true for INTEGER, REAL and NUMERIC affinity, which read `'2'` as 2.
 * A type not given (undefined, as opposed to null for a column declared without one) is taken
 * to have it, so that the token keeps the reference's plain form.
 */
function numericAffinity(declaredType?: string | null): boolean {
  if (declaredType === undefined) return true;
  const type = (declaredType ?? "").toUpperCase();
  if (type.includes("INT")) return true;
  return !(type === "" || /CHAR|CLOB|TEXT|BLOB/.test(type));
}

const REAL_TYPE = /REAL|FLOA|DOUB/i;

/** A cell as token text: Python's `str()`, so a REAL column's 12 is `12.0`. */
export function tokenText(value: unknown, declaredType?: string | null): string {
  if (value !== null && typeof value === "object" && "value" in value) {
    return tokenText((value as { value: unknown }).value, declaredType);
  }
  if (typeof value === "number" && Number.isInteger(value) && REAL_TYPE.test(declaredType ?? "")) {
    return `${value}.0`;
  }
  return String(value);
}

/** Options for {@link nextToken}. */
export interface NextTokenOptions extends KeysetShape {
  /** Offset of the current page (views), from the incoming `_next`. */
  offset?: number;
  /** Rows per page. */
  pageSize: number;
  /** Declared column types, so REAL values print like Python floats. */
  columnTypes?: Record<string, string | null>;
}

const unwrap = (cell: unknown) =>
  cell !== null && typeof cell === "object" && "value" in cell
    ? (cell as { value: unknown }).value
    : cell;

/**
 * The `_next` token for the page ending with `lastRow` (the `pageSize`-th row, as an object
 * keyed by column). Sort values missing from the row (hidden by `_col`) must be added by the
 * caller first, see `sortValueLookup`.
 */
export function nextToken(lastRow: Record<string, unknown>, options: NextTokenOptions): string {
  if (usesOffset(options)) return String((options.offset ?? 0) + options.pageSize);
  const keyPart = options.useRowid
    ? tildeEncode(tokenText(unwrap(lastRow.rowid)))
    : options.pks.map((pk) => tokenPart(unwrap(lastRow[pk]), options.columnTypes?.[pk])).join(",");
  const sortPart = options.items.map((item) =>
    tokenPart(unwrap(lastRow[item.column]), options.columnTypes?.[item.column])
  );
  return [...sortPart, keyPart].join(",") || EMPTY_KEY_TEXT;
}

/** SQL fetching the sort values of one row by key, for sort columns absent from the page. */
export function sortValueLookup(
  table: string,
  lastRow: Record<string, unknown>,
  shape: KeysetShape,
  dialect: SqlDialect = sqliteDialect,
): { sql: string; params: Record<string, unknown> } {
  const name = dialect.escapeIdentifier;
  const keyColumns = shape.useRowid ? ["rowid"] : shape.pks;
  const params: Record<string, unknown> = {};
  const where = keyColumns.map((pk, i) => {
    params[`pk${i}`] = unwrap(lastRow[pk]);
    return `${name(pk)} = :pk${i}`;
  });
  const columns = shape.items.map((item) => name(item.column)).join(", ");
  return {
    sql: `select ${columns} from ${dialect.tableName(table)} where ${where.join(" and ")}`,
    params,
  };
}
