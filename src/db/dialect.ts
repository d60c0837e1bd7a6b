/**
 * The SQL dialect of a database engine: every piece of SQL the table layer (`src/table/`) and the
 * views build that is not the same on SQLite and PostgreSQL. A database object exposes its
 * dialect as `db.dialect`; the table layer takes it as an option and defaults to
 * {@link sqliteDialect}, whose output is exactly the SQL Vitrine always wrote for SQLite.
 *
 * Contract with the engines: SQL built here names its parameters `:name` (and the label lookup
 * uses `?`), as SQLite does; an engine with another placeholder syntax (PostgreSQL's `$1`)
 * rewrites them outside string literals and quoted identifiers before running the statement.
 * `expression` arguments below are SQL already quoted by {@link SqlDialect.escapeIdentifier} or
 * {@link SqlDialect.quoteIdentifier}; `param` arguments are placeholders such as `:p0`.
 *
 * @module
 */

import { escapeSqlIdentifier, quoteSqlIdentifier } from "../util/sql.ts";

/** What a full-text search over a table may use, as introspection and config found it. */
export interface FullTextSource {
  /** A column of the table that holds a ready-made search document (PostgreSQL `tsvector`). */
  vector_column?: string | null;
  /** Text columns to search (PostgreSQL: `to_tsvector` over them), when no vector column. */
  text_columns?: string[];
  /** The text-search configuration (PostgreSQL: `simple` unless configured). */
  language?: string | null;
}

/** The SQL of one full-text search: the where-clause and the relevance sort key. */
export interface FullTextSql {
  /** Predicate true for the rows matching the query bound to `param`. */
  where: string;
  /** Sort key that puts the most relevant rows first when ascending (SQLite's FTS5 `rank`). */
  rank: string;
  /** The value to bind to `param` for the visitor's `text`. */
  value(text: string): string;
}

/** The engine-specific SQL the table layer needs. */
export interface SqlDialect {
  /** `sqlite` or `postgresql`. */
  readonly name: string;
  /** True when every table has a `rowid` to page and address rows by (SQLite). */
  readonly has_rowid: boolean;
  /**
   * Without rowids: what orders a table without a key the way it is stored (PostgreSQL
   * `ctid`), so offset pages of one unchanged table neither repeat nor skip rows; or null.
   */
  readonly physical_order: string | null;

  /** An identifier, bare when that is safe, else quoted (column lists, `order by`, `from`). */
  escapeIdentifier(name: string): string;
  /** An identifier, always quoted (the filters' form). */
  quoteIdentifier(name: string): string;
  /** A table (or view) as a `from` target; PostgreSQL splits `schema.table` when configured. */
  tableName(name: string): string;
  /** `(sql)` as a `from` item (PostgreSQL before 16 requires an alias). */
  subquery(sql: string, alias?: string): string;

  /** Case-insensitive (ASCII at least) `like` with no escape character, negated when asked. */
  like(expression: string, param: string, negated?: boolean): string;
  /** A `glob` match of `expression` against the pattern bound to `param`. */
  glob(expression: string, param: string): string;
  /** The value to bind for a visitor's glob `pattern` (PostgreSQL: a regular expression). */
  globValue(pattern: string): string;
  /** `expression` compared as text (`= ''` on any column type). */
  asText(expression: string): string;
  /**
   * What `count(distinct …)` counts for `expression`, on a column of any type (PostgreSQL's
   * `json` and `point` have no equality: their text stands in).
   */
  distinctKey(expression: string): string;
  /** The calendar day (`YYYY-MM-DD` text) of a date or datetime value; null when not one. */
  date(expression: string): string;
  /** True (a predicate) when `expression` looks like `YYYY-MM-…` (date facet suggestions). */
  looksLikeDate(expression: string): string;

  /** `param`'s value is (or, negated, is not) an item of the array in `table`.`column`. */
  arrayContains(table: string, column: string, param: string, negated: boolean): string;
  /** `(value, count)` rows of the items of array column `c` over `sql`, best first. */
  arrayFacetSql(sql: string, c: string, limit: number): string;
  /**
   * One row over the first `consider` rows of `sql`: for each escaped column of `columns`, how
   * many of its non-empty values are JSON arrays, then how many are not (array facet suggestions).
   */
  arrayKindCountsSql(sql: string, columns: string[], consider: number): string;
  /** Up to 100 non-empty arrays of `c` in `sql`, as JSON text. */
  arraySampleSql(sql: string, c: string): string;
  /** `(value, count)` rows of the days of `c` over `sql`, best first. */
  dateFacetSql(sql: string, c: string, limit: number): string;
  /**
   * One row over the first 100 rows of `sql`: for each escaped column of `columns`, 1 when some
   * value looks like a date and is one, else 0 (date facet suggestions).
   */
  dateSuggestSql(sql: string, columns: string[]): string;

  /** One `order by` term placing NULLs as SQLite does: first ascending, last descending. */
  orderTerm(expression: string, desc: boolean): string;
  /** ` limit -1 offset N`: every row from `offset` on. */
  offsetOnly(offset: number): string;
  /**
   * The full-text search SQL over `source` with the query bound to `param` (`raw`: the search
   * syntax's operators allowed, else every word is searched for as such), or null.
   */
  fullText(source: FullTextSource, param: string, raw: boolean): FullTextSql | null;
}

/** SQLite, the default: the SQL Vitrine has always written. */
export const sqliteDialect: SqlDialect = {
  name: "sqlite",
  has_rowid: true,
  physical_order: null,
  escapeIdentifier: escapeSqlIdentifier,
  quoteIdentifier: quoteSqlIdentifier,
  tableName: escapeSqlIdentifier,
  subquery: (sql) => `(${sql})`,
  like: (expression, param, negated = false) =>
    `${expression} ${negated ? "not like" : "like"} ${param}`,
  glob: (expression, param) => `${expression} glob ${param}`,
  globValue: (pattern) => pattern,
  asText: (expression) => expression,
  distinctKey: (expression) => expression,
  date: (expression) => `date(${expression})`,
  looksLikeDate: (expression) => `${expression} glob '????-??-*'`,
  arrayContains: (table, column, param, negated) =>
    `${param} ${negated ? "not in" : "in"} (select value from json_each(${
      escapeSqlIdentifier(table)
    }.${escapeSqlIdentifier(column)}))`,
  // Distinct (row, item) pairs so an item repeated inside one array counts once. No CTE and
  // no name the outer query looks up in the user's columns.
  arrayFacetSql: (sql, c, limit) =>
    `select facet_item as value, count(*) as count from (` +
    `select distinct item.value as facet_item, inner_rows.* ` +
    `from (${sql}) as inner_rows, json_each(inner_rows.${c}) as item ` +
    `where json_valid(inner_rows.${c})) ` +
    `group by 1 order by 2 desc, 1 limit ${limit}`,
  // A value that is not JSON counts as a kind of its own (asked of json_type, it would fail the
  // query: an error on every page of such a table, and errors are never cached).
  arrayKindCountsSql: (sql, columns, consider) =>
    `select ${
      columns.map((c) => {
        const given = `${c} is not null and ${c} != ''`;
        // A value that is not JSON is a kind of its own (json_type would fail the query on it).
        const array = `case when json_valid(${c}) then json_type(${c}) = 'array' else 0 end`;
        return `sum(case when ${given} and ${array} then 1 else 0 end), ` +
          `sum(case when ${given} and not (${array}) then 1 else 0 end)`;
      }).join(", ")
    } from (select * from (${sql}) limit ${consider})`,
  arraySampleSql: (sql, c) =>
    `select ${c} from (${sql}) where ${c} is not null and ${c} != '' ` +
    `and json_array_length(${c}) > 0 limit 100`,
  dateFacetSql: (sql, c, limit) =>
    `select date(${c}) as value, count(*) as count from (${sql}) ` +
    `where date(${c}) is not null group by 1 order by 2 desc, 1 limit ${limit}`,
  dateSuggestSql: (sql, columns) =>
    `select ${
      columns.map((c) =>
        `max(case when ${c} glob '????-??-*' and date(${c}) is not null then 1 else 0 end)`
      )
        .join(", ")
    } from (select * from (${sql}) limit 100)`,
  orderTerm: (expression, desc) => desc ? `${expression} desc` : expression,
  offsetOnly: (offset) => ` limit -1 offset ${offset}`,
  // SQLite searches FTS tables, which `src/table/search.ts` handles itself.
  fullText: () => null,
};
