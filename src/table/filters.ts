/**
 * Column filters from query arguments (`?col__op=value`, API-DETAILS §4): the SQL, the bound
 * parameters and the English description for every operator.
 *
 * @module
 */

import { type SqlDialect, sqliteDialect } from "../db/dialect.ts";
import { argKeys, argList, type ArgsLike } from "./args.ts";

/** A parameter value bound by a filter. */
export type FilterValue = string | number;

/** One filter operator. */
export interface FilterOperator {
  /** The `__op` suffix. */
  key: string;
  /** Label for the filter form. */
  display: string;
  /** True when the operator ignores its value (`isnull`, …). */
  no_argument: boolean;
  /**
   * SQL for `column` on `table`, numbering parameters from `firstParam`, and the values, in
   * `dialect` (SQLite when not given).
   */
  whereClause(
    table: string,
    column: string,
    value: string,
    firstParam: number,
    dialect?: SqlDialect,
  ): { sql: string; values: FilterValue[] };
  /** English piece for the page description, e.g. `price > 15`. */
  humanClause(column: string, value: string): string;
}

const isDigits = (value: string) => /^[0-9]+$/.test(value);

interface TemplateOptions {
  /** Wraps the value before binding (`%v%` for contains). */
  format?: (value: string, dialect: SqlDialect) => string;
  /** Binds all-digit values as integers. */
  numeric?: boolean;
  noArgument?: boolean;
}

/** The SQL of an operator for the quoted column `c`, the table and the parameter `p`. */
type SqlTemplate = (
  c: string,
  p: string,
  dialect: SqlDialect,
  table: string,
  column: string,
) => string;

/** An operator whose SQL is one template over the quoted column and the parameter. */
function templated(
  key: string,
  display: string,
  sqlTemplate: SqlTemplate,
  human: (column: string, value: string) => string,
  options: TemplateOptions = {},
): FilterOperator {
  return {
    key,
    display,
    no_argument: options.noArgument ?? false,
    whereClause(table, column, value, firstParam, dialect = sqliteDialect) {
      const c = dialect.quoteIdentifier(column);
      const sql = sqlTemplate(c, `:p${firstParam}`, dialect, table, column);
      if (options.noArgument) return { sql, values: [] };
      const formatted = options.format ? options.format(value, dialect) : value;
      const bound = options.numeric && isDigits(formatted) ? Number(formatted) : formatted;
      return { sql, values: [bound] };
    },
    humanClause: human,
  };
}

/** `in` / `notin`: a JSON array when the value starts with `[`, else comma-separated. */
function splitListValue(value: string): FilterValue[] {
  if (value.startsWith("[")) {
    try {
      const parsed = JSON.parse(value);
      if (Array.isArray(parsed)) return parsed.map((v) => typeof v === "number" ? v : String(v));
    } catch {
      // Not JSON after all: fall back to the comma-separated reading.
    }
  }
  return value.split(",").map((part) => part.trim());
}

function listOperator(key: "in" | "notin"): FilterOperator {
  const sqlOp = key === "in" ? "in" : "not in";
  return {
    key,
    display: sqlOp,
    no_argument: false,
    whereClause(_table, column, value, firstParam, dialect = sqliteDialect) {
      const values = splitListValue(value);
      const placeholders = values.map((_, i) => `:p${firstParam + i}`).join(", ");
      return { sql: `${dialect.escapeIdentifier(column)} ${sqlOp} (${placeholders})`, values };
    },
    // Python's json.dumps spacing: ["1", "5", "9"].
    humanClause: (column, value) =>
      `${column} ${sqlOp} [${splitListValue(value).map((v) => JSON.stringify(v)).join(", ")}]`,
  };
}

const equalityHuman = (op: string) => (c: string, v: string) =>
  isDigits(v) ? `${c} ${op} ${v}` : `${c} ${op} "${v}"`;

/** Every built-in operator, in the order the filter form lists them. */
export const FILTER_OPERATORS: readonly FilterOperator[] = [
  templated("exact", "=", (c, p) => `${c} = ${p}`, equalityHuman("=")),
  templated("not", "!=", (c, p) => `${c} != ${p}`, equalityHuman("!=")),
  templated("contains", "contains", (c, p, d) => d.like(c, p), (c, v) => `${c} contains "${v}"`, {
    format: (v) => `%${v}%`,
  }),
  templated(
    "notcontains",
    "does not contain",
    (c, p, d) => d.like(c, p, true),
    (c, v) => `${c} does not contain "${v}"`,
    { format: (v) => `%${v}%` },
  ),
  templated("endswith", "ends with", (c, p, d) => d.like(c, p), (c, v) => `${c} ends with "${v}"`, {
    format: (v) => `%${v}`,
  }),
  templated(
    "startswith",
    "starts with",
    (c, p, d) => d.like(c, p),
    (c, v) => `${c} starts with "${v}"`,
    { format: (v) => `${v}%` },
  ),
  templated("gt", ">", (c, p) => `${c} > ${p}`, (c, v) => `${c} > ${v}`, { numeric: true }),
  templated("gte", "\u2265", (c, p) => `${c} >= ${p}`, (c, v) => `${c} \u2265 ${v}`, {
    numeric: true,
  }),
  templated("lt", "<", (c, p) => `${c} < ${p}`, (c, v) => `${c} < ${v}`, { numeric: true }),
  templated("lte", "\u2264", (c, p) => `${c} <= ${p}`, (c, v) => `${c} \u2264 ${v}`, {
    numeric: true,
  }),
  templated("like", "like", (c, p, d) => d.like(c, p), (c, v) => `${c} like "${v}"`),
  templated(
    "notlike",
    "not like",
    (c, p, d) => d.like(c, p, true),
    (c, v) => `${c} not like "${v}"`,
  ),
  templated("glob", "glob", (c, p, d) => d.glob(c, p), (c, v) => `${c} glob "${v}"`, {
    format: (v, d) => d.globValue(v),
  }),
  listOperator("in"),
  listOperator("notin"),
  templated(
    "arraycontains",
    "array contains",
    (_c, p, d, table, column) => d.arrayContains(table, column, p, false),
    (c, v) => `${c} contains "${v}"`,
  ),
  templated(
    "arraynotcontains",
    "array does not contain",
    (_c, p, d, table, column) => d.arrayContains(table, column, p, true),
    (c, v) => `${c} does not contain "${v}"`,
  ),
  templated("date", "date", (c, p, d) => `${d.date(c)} = ${p}`, (c, v) => `"${c}" is on date ${v}`),
  templated("isnull", "is null", (c) => `${c} is null`, (c) => `${c} is null`, {
    noArgument: true,
  }),
  templated("notnull", "is not null", (c) => `${c} is not null`, (c) => `${c} is not null`, {
    noArgument: true,
  }),
  templated(
    "isblank",
    "is blank",
    (c, _p, d) => `(${c} is null or ${d.asText(c)} = '')`,
    (c) => `${c} is blank`,
    { noArgument: true },
  ),
  templated(
    "notblank",
    "is not blank",
    (c, _p, d) => `(${c} is not null and ${d.asText(c)} != '')`,
    (c) => `${c} is not blank`,
    { noArgument: true },
  ),
];

const OPERATORS_BY_KEY = new Map(FILTER_OPERATORS.map((op) => [op.key, op]));

/** One parsed filter argument. */
export interface FilterSelection {
  column: string;
  lookup: string;
  value: string;
}

/** Splits `col__op` on the last `__`; without one the lookup is `exact`. */
export function parseFilterKey(key: string): { column: string; lookup: string } {
  const at = key.lastIndexOf("__");
  if (at === -1) return { column: key, lookup: "exact" };
  return { column: key.slice(0, at), lookup: key.slice(at + 2) };
}

/** True for arguments that are filters: no leading `_`, or containing `__`. */
export function isFilterArgument(key: string): boolean {
  return !key.startsWith("_") || key.includes("__");
}

/** The filters of one table request, built from sorted `[key, value]` pairs. */
export class Filters {
  /** Filter pairs, sorted so the SQL and parameter numbering are stable. */
  readonly pairs: [string, string][];

  /** Sorts `pairs` by key then value, as the reference does. */
  constructor(pairs: [string, string][]) {
    this.pairs = [...pairs].sort((a, b) =>
      a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0
    );
  }

  /** Column, lookup and value of every pair (unknown lookups included). */
  selections(): FilterSelection[] {
    return this.pairs.map(([key, value]) => ({ ...parseFilterKey(key), value }));
  }

  /** True when at least one pair uses a known operator. */
  has_selections(): boolean {
    return this.selections().some((s) => OPERATORS_BY_KEY.has(s.lookup));
  }

  /** SQL clauses and `:pN` params; unknown operators are skipped silently. */
  build_where_clauses(
    table: string,
    dialect: SqlDialect = sqliteDialect,
  ): { where_clauses: string[]; params: Record<string, FilterValue> } {
    const where_clauses: string[] = [];
    const params: Record<string, FilterValue> = {};
    let next = 0;
    for (const { column, lookup, value } of this.selections()) {
      const operator = OPERATORS_BY_KEY.get(lookup);
      if (!operator) continue;
      const clause = operator.whereClause(table, column, value, next, dialect);
      where_clauses.push(clause.sql);
      for (const bound of clause.values) params[`p${next++}`] = bound;
    }
    return { where_clauses, params };
  }

  /** English pieces, one per known filter, in SQL order. */
  human_clauses(): string[] {
    return this.selections().flatMap(({ column, lookup, value }) => {
      const operator = OPERATORS_BY_KEY.get(lookup);
      return operator ? [operator.humanClause(column, value)] : [];
    });
  }

  /** `where a = 1, b > 2 and c is null`; `extra` pieces (search, through) come first. */
  human_description_en(extra: string[] = []): string {
    return joinHumanDescription([...extra, ...this.human_clauses()]);
  }
}

/** Joins description pieces with commas and a final ` and `, prefixed `where `. */
export function joinHumanDescription(pieces: string[]): string {
  if (pieces.length === 0) return "";
  const head = pieces.slice(0, -1);
  const tail = pieces[pieces.length - 1];
  return "where " + (head.length ? `${head.join(", ")} and ${tail}` : tail);
}

/** Filters from request arguments: every filter argument, every value. */
export function filtersFromArgs(args: ArgsLike): Filters {
  const pairs: [string, string][] = [];
  for (const key of argKeys(args)) {
    if (!isFilterArgument(key)) continue;
    for (const value of argList(args, key)) pairs.push([key, value]);
  }
  return new Filters(pairs);
}
