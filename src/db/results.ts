/**
 * `Results` of a query and the tuple-like rows inside it.
 *
 * A row is a real array (`row[0]`, `JSON.stringify(row)` gives the plain array) whose prototype,
 * shared by all rows of one result, adds a non-enumerable getter per column so that
 * `row["column"]` works too, like Python's `sqlite3.Row`.
 *
 * @module
 */

import type { SqlValue } from "../sqlite/values.ts";
import { MultipleValues } from "./errors.ts";
import type { EncodedPage } from "./read_query.ts";

/** A result row: positional values that also answer `row["column"]`. */
export type Row = SqlValue[] & {
  readonly [column: string]: SqlValue | unknown;
  /** The row as a `{column: value}` object. */
  toObject(): Record<string, SqlValue>;
};

// Where a row prototype keeps its column names; a symbol, so no column name can collide.
const COLUMNS = Symbol("columns");

// Names that arrays, JSON.stringify or our own helpers rely on: a column with one of these names
// (`map`, `values`, `length`, `toString`, ...) stays reachable by index and `toObject()` only,
// because shadowing them breaks code that uses the row as an array (a column called "map" made
// `row.map(...)` throw in the JSON view).
const RESERVED = new Set<string>([
  "toJSON",
  "toObject",
  ...Object.getOwnPropertyNames(Array.prototype),
  ...Object.getOwnPropertyNames(Object.prototype),
]);

/** Methods every row has, between the per-result prototype and `Array.prototype`. */
const rowBase = Object.create(Array.prototype, {
  toObject: {
    value: function (this: SqlValue[]) {
      const out: Record<string, SqlValue> = {};
      const columns = Object.getPrototypeOf(this)[COLUMNS] as string[];
      columns.forEach((column, i) => {
        // The first of duplicate names wins, as it does for `row["column"]`.
        if (!Object.hasOwn(out, column)) out[column] = this[i];
      });
      return out;
    },
    enumerable: false,
  },
});

/** Distinct column names by row prototype (see {@link rowKeys}). */
const distinctNames = new WeakMap<object, readonly string[]>();

/**
 * The keys of `row.toObject()` — its column names, the first of duplicates — without making the
 * object: a row page asks once per request.
 */
export function rowKeys(row: Row): readonly string[] {
  const proto = Object.getPrototypeOf(row);
  let names = distinctNames.get(proto);
  if (!names) {
    names = Object.freeze([...new Set(proto[COLUMNS] as string[])]);
    distinctNames.set(proto, names);
  }
  return names;
}

/**
 * Prototypes by column list: defining a getter per column cost more than a row lookup, and the
 * same few column lists come back with every query. Never changed once made, so results share
 * them. Bounded: a server running ever new custom SQL makes ever new lists.
 */
const prototypes = new Map<string, object>();
const MAX_PROTOTYPES = 500;

/** A prototype giving rows with these `columns` their named getters. */
function rowPrototype(columns: string[]): object {
  const key = columns.join("\u0000") + `\u0000${columns.length}`;
  let proto = prototypes.get(key);
  if (!proto) {
    if (prototypes.size >= MAX_PROTOTYPES) prototypes.clear();
    proto = newRowPrototype(Object.freeze([...columns]));
    prototypes.set(key, proto);
  }
  return proto;
}

function newRowPrototype(columns: readonly string[]): object {
  const proto = Object.create(rowBase);
  Object.defineProperty(proto, COLUMNS, { value: columns, enumerable: false });
  const seen = new Set<string>();
  columns.forEach((column, index) => {
    if (seen.has(column) || RESERVED.has(column) || /^\d+$/.test(column)) return;
    seen.add(column);
    Object.defineProperty(proto, column, {
      get(this: SqlValue[]) {
        return this[index];
      },
      enumerable: false,
      configurable: false,
    });
  });
  return Object.freeze(proto);
}

/** Turns plain value arrays into rows (in place) sharing one prototype. */
export function makeRows(columns: string[], rows: SqlValue[][]): Row[] {
  const proto = rowPrototype(columns);
  for (const row of rows) Object.setPrototypeOf(row, proto);
  return rows as Row[];
}

/** What a query returned: rows, column names and whether rows were cut at the page size. */
export class Results implements Iterable<Row> {
  /** Column names, in select order. */
  readonly columns: string[];
  /** True when more rows existed than were returned. */
  readonly truncated: boolean;
  /**
   * Indexes of the columns whose numbers were all stored as REAL: JavaScript has one number
   * type, so this is how a page still writes a REAL `12.0` as `12.0` (Python's float).
   */
  readonly real_columns: number[];
  /**
   * For `execute(…, { json_rows })` (Vitrine's JSON pages): the first rows already written as
   * UTF-8 JSON where they were read, and the last of them as values. Null otherwise.
   * @internal
   */
  readonly page: EncodedPage | null;
  #values: SqlValue[][] | null;
  #load: (() => SqlValue[][]) | null = null;
  #count: number;
  #rows: Row[] | null = null;

  /** Wraps plain value arrays; they become {@link Row}s when `rows` is first read. */
  constructor(
    rows: SqlValue[][],
    columns: string[],
    truncated = false,
    real_columns: number[] = [],
  ) {
    this.columns = columns;
    this.real_columns = real_columns;
    this.#values = rows;
    this.#count = rows.length;
    this.truncated = truncated;
    this.page = null;
  }

  /** Results whose rows are parsed only when first read (answers from read workers). */
  static lazy(answer: {
    columns: string[];
    truncated: boolean;
    real_columns?: number[];
    count: number;
    rows(): SqlValue[][];
    page: EncodedPage | null;
  }): Results {
    const results = new Results([], answer.columns, answer.truncated, answer.real_columns);
    results.#values = null;
    results.#load = answer.rows;
    results.#count = answer.count;
    (results as { page: EncodedPage | null }).page = answer.page;
    return results;
  }

  /** The returned rows (after truncation). */
  get rows(): Row[] {
    // Giving each array its row prototype costs about a microsecond a row: only done for
    // callers that read rows by name (plugins, templates); Vitrine's own views use `values`.
    return this.#rows ??= makeRows(this.columns, this.values);
  }

  /** The rows as plain value arrays, in column order (the same arrays `rows` wraps). */
  get values(): SqlValue[][] {
    if (this.#values === null) {
      this.#values = this.#load!();
      this.#load = null;
    }
    return this.#values;
  }

  /** Free-form description of the columns (Python's `cursor.description` names). */
  get description(): [string][] {
    return this.columns.map((c) => [c]);
  }

  /** Number of returned rows (Python's `len(results)`). */
  get length(): number {
    return this.#count;
  }

  /** The first row, or null when there are none. */
  first(): Row | null {
    return this.#count ? this.rows[0] : null;
  }

  /** The only value of a one-row, one-column result; throws {@link MultipleValues} otherwise. */
  single_value(): SqlValue {
    if (this.#count === 1 && this.columns.length === 1) return this.values[0][0];
    throw new MultipleValues();
  }

  /** Rows as `{column: value}` objects. */
  dicts(): Record<string, SqlValue>[] {
    return this.rows.map((row) => row.toObject());
  }

  /** Iterates over the rows. */
  [Symbol.iterator](): Iterator<Row> {
    return this.rows[Symbol.iterator]();
  }
}
