/**
 * The PostgreSQL dialect (issue 43): the SQL of `src/table/` over a PostgreSQL database, written
 * so its answers are SQLite's wherever the engines allow (docs/postgres.md lists where they differ
 * by design). What it decides:
 *
 * - Identifiers are always double-quoted: PostgreSQL folds bare names to lower case and has its
 *   own keywords, so `Name` or `user` bare would be another column or an error.
 * - `like` is `::text ilike … escape ''`: SQLite's `like` ignores (ASCII) case, has no escape
 *   character and compares any type as text.
 * - `glob` is a case-sensitive regular expression (`~`) translated from the glob pattern.
 * - `date(col)` is the leading `YYYY-MM-DD` of the value's text, or null: a cast to `date` would
 *   fail the whole query on one bad value, where SQLite's `date()` answers null.
 * - Arrays (native arrays, `json`/`jsonb` arrays, and JSON arrays of scalars stored as text) are
 *   read through `to_jsonb`; a text value is parsed only when a regular expression has checked
 *   it is a flat JSON array of scalars, since PostgreSQL 15 has no error-free JSON test.
 * - NULLs sort as in SQLite (first ascending, last descending), which keyset pages rely on.
 * - A table without a primary key has no `rowid`: it pages by offset in `ctid` (storage) order.
 * - Full-text search is `to_tsvector` over the configured columns (or a `tsvector` column) and
 *   `plainto_tsquery` (escaped) or `websearch_to_tsquery` (raw); `_rank` is `-ts_rank`, so
 *   ascending puts the best first as FTS5's `rank` does.
 *
 * @module
 */

import type { FullTextSource, FullTextSql, SqlDialect } from "./dialect.ts";

/** Options of {@link createPostgresDialect}. */
export interface PostgresDialectOptions {
  /**
   * Schemas whose tables are named `schema.table` (several schemas served at once); a table name
   * with such a prefix becomes `"schema"."table"` in SQL.
   */
  qualified_schemas?: string[];
}

/** The text-search configuration of `to_tsvector` over text columns when none is configured. */
const DEFAULT_SEARCH_LANGUAGE = "simple";

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** A calendar day at the start of a value's text, as SQLite's `date()` reads it. */
const DAY = String.raw`^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([ T]|$)`;

const JSON_STRING = String.raw`"([^"\\\x01-\x1f]|\\(["\\/bfnrt]|u[0-9a-fA-F]{4}))*"`;
const JSON_NUMBER = String.raw`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`;
const JSON_SCALAR = `(${JSON_STRING}|${JSON_NUMBER}|true|false|null)`;
/** A flat JSON array of scalars: text matching it is safe to cast to `jsonb`. */
export const JSON_FLAT_ARRAY = String.raw`^\s*\[\s*(` + JSON_SCALAR + String.raw`\s*(,\s*` +
  JSON_SCALAR + String.raw`\s*)*)?\]\s*$`;

/** The `jsonb` array a value holds (native array, JSON array, JSON text), else null. */
function jsonArray(c: string): string {
  return `(case jsonb_typeof(to_jsonb(${c})) when 'array' then to_jsonb(${c}) ` +
    `when 'string' then case when (${c})::text ~ ${
      literal(JSON_FLAT_ARRAY)
    } then (${c})::text::jsonb end end)`;
}

/** The `YYYY-MM-DD` text of a date, timestamp or date-like text value, else null. */
function day(c: string): string {
  return `(case when (${c})::text ~ ${literal(DAY)} then substr((${c})::text, 1, 10) end)`;
}

/**
 * SQLite's `glob` pattern as an anchored regular expression: `*` any text, `?` one character,
 * `[…]` and `[^…]` a character class; everything else literal. Case-sensitive, as glob is.
 */
export function globToRegex(pattern: string): string {
  let out = "^";
  let i = 0;
  while (i < pattern.length) {
    const char = pattern[i];
    if (char === "*") out += ".*";
    else if (char === "?") out += ".";
    else if (char === "[") {
      // A `]` right after `[` or `[^` belongs to the class; without a closing `]` the `[` is
      // literal.
      let j = i + 1;
      if (pattern[j] === "^") j++;
      if (pattern[j] === "]") j++;
      const close = pattern.indexOf("]", j);
      if (close === -1) out += "\\[";
      else {
        const negated = pattern[i + 1] === "^";
        const body = pattern.slice(i + (negated ? 2 : 1), close).replaceAll("\\", "\\\\");
        out += `[${negated ? "^" : ""}${body}]`;
        i = close;
      }
    } else out += /[.+()|{}^$\\\]]/.test(char) ? `\\${char}` : char;
    i++;
  }
  return `${out}$`;
}

/** A PostgreSQL dialect; `qualified_schemas` name the schemas shown as `schema.table`. */
export function createPostgresDialect(options: PostgresDialectOptions = {}): SqlDialect {
  const schemas = options.qualified_schemas ?? [];
  const tableName = (name: string) => {
    const dot = name.indexOf(".");
    if (dot > 0 && schemas.includes(name.slice(0, dot))) {
      return `${quote(name.slice(0, dot))}.${quote(name.slice(dot + 1))}`;
    }
    return quote(name);
  };
  // Every `from (subquery)` needs an alias before PostgreSQL 16.
  const subquery = (sql: string, alias = "vitrine_rows") => `(${sql}) as ${alias}`;
  return {
    name: "postgresql",
    has_rowid: false,
    physical_order: "ctid",
    escapeIdentifier: quote,
    quoteIdentifier: quote,
    tableName,
    subquery,
    like: (expression, param, negated = false) =>
      `(${expression})::text ${negated ? "not ilike" : "ilike"} ${param} escape ''`,
    glob: (expression, param) => `(${expression})::text ~ ${param}`,
    globValue: globToRegex,
    asText: (expression) => `(${expression})::text`,
    distinctKey: (expression) => `(${expression})::text`,
    date: day,
    looksLikeDate: (expression) => `(${expression})::text ~ '^.{4}-.{2}-'`,
    arrayContains: (table, column, param, negated) =>
      `${param} ${negated ? "not in" : "in"} (select jsonb_array_elements_text(${
        jsonArray(`${tableName(table)}.${quote(column)}`)
      }))`,
    // Each row counts once per distinct item (an item repeated inside one array counts once).
    arrayFacetSql: (sql, c, limit) =>
      `select items.facet_item as value, count(*) as count from ${subquery(sql, "inner_rows")} ` +
      `cross join lateral (select distinct item from jsonb_array_elements_text(${
        jsonArray(`inner_rows.${c}`)
      }) as elements(item)) as items(facet_item) ` +
      `group by 1 order by 2 desc, 1 limit ${limit}`,
    arrayKindCountsSql: (sql, columns, consider) =>
      `select ${
        columns.map((c) => {
          const given = `${c} is not null and (${c})::text != ''`;
          const array = `${jsonArray(c)} is not null`;
          return `sum(case when ${given} and ${array} then 1 else 0 end), ` +
            `sum(case when ${given} and not (${array}) then 1 else 0 end)`;
        }).join(", ")
      } from ${subquery(`select * from ${subquery(sql)} limit ${consider}`, "considered")}`,
    arraySampleSql: (sql, c) =>
      `select ${jsonArray(c)}::text from ${subquery(sql)} ` +
      `where ${c} is not null and (${c})::text != '' ` +
      `and jsonb_array_length(${jsonArray(c)}) > 0 limit 100`,
    dateFacetSql: (sql, c, limit) =>
      `select ${day(c)} as value, count(*) as count from ${subquery(sql)} ` +
      `where ${day(c)} is not null group by 1 order by 2 desc, 1 limit ${limit}`,
    dateSuggestSql: (sql, columns) =>
      `select ${
        columns.map((c) =>
          `max(case when (${c})::text ~ '^.{4}-.{2}-' and ${day(c)} is not null then 1 else 0 end)`
        ).join(", ")
      } from ${subquery(`select * from ${subquery(sql)} limit 100`, "first_rows")}`,
    orderTerm: (expression, desc) =>
      desc ? `${expression} desc nulls last` : `${expression} nulls first`,
    offsetOnly: (offset) => ` offset ${offset}`,
    fullText,
  };
}

/**
 * `to_tsvector` over the source's columns (or its vector column) matched against `param`:
 * `plainto_tsquery` (every word, as FTS5's escaped mode) or, raw, `websearch_to_tsquery`
 * (quoted phrases, `or`, `-word`).
 */
function fullText(source: FullTextSource, param: string, raw: boolean): FullTextSql | null {
  const columns = source.text_columns ?? [];
  let vector: string;
  let config: string;
  if (source.vector_column) {
    // A ready-made vector was built with some configuration; the query must use the same one,
    // which is the server's default unless the table's config names it.
    config = source.language ? `${literal(source.language)}::regconfig, ` : "";
    vector = quote(source.vector_column);
  } else if (columns.length) {
    config = `${literal(source.language ?? DEFAULT_SEARCH_LANGUAGE)}::regconfig, `;
    const text = columns.map((c) => `(${quote(c)})::text`).join(", ");
    vector = `to_tsvector(${config}concat_ws(' ', ${text}))`;
  } else return null;
  const query = `${raw ? "websearch_to_tsquery" : "plainto_tsquery"}(${config}${param})`;
  return {
    where: `${vector} @@ ${query}`,
    rank: `-ts_rank(${vector}, ${query})`,
    value: (text) => text,
  };
}

/** The PostgreSQL dialect for one schema (tables named without a schema). */
export const postgresDialect: SqlDialect = createPostgresDialect();
