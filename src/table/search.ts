/**
 * Full-text search arguments (API-DETAILS §4): `_search=`, `_search_<col>=`, `_searchmode=`,
 * plus two Vitrine extensions:
 *
 * - `_q=text` on a table **without** an FTS index searches every text column with
 *   `like '%text%'` (on a table with one it behaves as `_search`);
 * - `_sort=_rank` with `_search` on an FTS5 index orders by relevance, using
 *   `(select rank from <fts> where <fts> match :search and rowid = <table>.<fts_pk>)`
 *   (FTS5's `rank` is bm25: lower is more relevant, so ascending puts the best first).
 *
 * The match text is escaped here (not with an SQL `escape_fts()` function), so the SQL runs on
 * any connection.
 *
 * @module
 */

import { type FullTextSource, type SqlDialect, sqliteDialect } from "../db/dialect.ts";
import { escapeSqlIdentifier } from "../util/sql.ts";
import { argKeys, argList, type ArgsLike } from "./args.ts";
import { TableArgsError } from "./errors.ts";
import { FilterArguments } from "./filter_arguments.ts";

const TERM_OR_PHRASE = /\s+|(".*?")/;

/**
 * Makes user text safe for `match`: balances a trailing `"` and wraps every term not already
 * quoted in double quotes, so FTS operators are taken literally.
 *
 * @example escapeFts('dog cat') === '"dog" "cat"'
 */
export function escapeFts(query: string): string {
  const quotes = query.split('"').length - 1;
  const balanced = quotes % 2 ? `${query}"` : query;
  return balanced.split(TERM_OR_PHRASE)
    .filter((bit): bit is string => Boolean(bit) && bit !== '""')
    .map((bit) => bit.startsWith('"') ? bit : `"${bit}"`)
    .join(" ");
}

/** What search needs to know about a table. */
export interface SearchFacts {
  table: string;
  /** The FTS table detected by introspection, if any. */
  fts_table?: string | null;
  /** Columns of the FTS table (to check `_search_<col>`). */
  fts_columns?: string[];
  /** True when the FTS table is FTS5 (enables `_sort=_rank`). */
  is_fts5?: boolean;
  /** Text columns of the table itself, for `_q=` without FTS. */
  text_columns?: string[];
  /** A column holding the search document (PostgreSQL: a `tsvector` column). */
  search_vector?: string | null;
}

/** Table config keys read here. */
export interface SearchConfig {
  fts_table?: string;
  fts_pk?: string;
  searchmode?: string;
  /** Columns a dialect without FTS tables searches (PostgreSQL: `to_tsvector` over them). */
  search_columns?: string[];
  /** The text-search configuration of those columns (PostgreSQL, default `simple`). */
  search_language?: string;
}

/** Search clauses plus the `_rank` expression when relevance sorting is possible. */
export interface SearchResult {
  filter_arguments: FilterArguments;
  /** SQL for `_sort=_rank`, or null. */
  rank_expression: string | null;
}

/** Builds the search filter of a table request. */
export function searchFilterArguments(
  args: ArgsLike,
  facts: SearchFacts,
  config: SearchConfig = {},
  dialect: SqlDialect = sqliteDialect,
): SearchResult {
  if (dialect !== sqliteDialect) return dialectSearch(args, facts, config, dialect);
  const ftsTable = args.get("_fts_table") || config.fts_table || facts.fts_table || null;
  const ftsPk = args.get("_fts_pk") || config.fts_pk || "rowid";
  const mode = args.get("_searchmode");
  const raw = mode === "raw" || (mode !== "escaped" && config.searchmode === "raw");
  const matchValue = (text: string) => raw ? text : escapeFts(text);
  const result = new FilterArguments([], {}, [], { supports_search: Boolean(ftsTable) });
  const searchKeys = argKeys(args).filter((key) =>
    key.startsWith("_search_") && key !== "_searchmode" && argList(args, key)[0]
  );
  if (!ftsTable) {
    return { filter_arguments: likeSearch(args, facts, result), rank_expression: null };
  }
  const fts = escapeSqlIdentifier(ftsTable);
  const plain = args.get("_search") || (searchKeys.length ? null : args.get("_q"));
  if (plain) {
    const ourPk = `${escapeSqlIdentifier(facts.table)}.${escapeSqlIdentifier(ftsPk)}`;
    result.where_clauses.push(
      `${escapeSqlIdentifier(ftsPk)} in (select rowid from ${fts} where ${fts} match :search)`,
    );
    result.params.search = matchValue(plain);
    result.human_descriptions.push(`search matches "${plain}"`);
    result.extra_context.search = plain;
    const rank_expression = facts.is_fts5 === false
      ? null
      : `(select rank from ${fts} where ${fts} match :search and rowid = ${ourPk})`;
    return { filter_arguments: result, rank_expression };
  }
  for (const [i, key] of searchKeys.entries()) {
    const column = key.slice("_search_".length);
    if (!(facts.fts_columns ?? []).includes(column)) {
      throw new TableArgsError("Cannot search by that column");
    }
    const text = argList(args, key)[0];
    result.where_clauses.push(
      `${escapeSqlIdentifier(ftsPk)} in (select rowid from ${fts} where ${
        escapeSqlIdentifier(column)
      } match :search_${i})`,
    );
    result.params[`search_${i}`] = matchValue(text);
    result.human_descriptions.push(`search column "${column}" matches "${text}"`);
    result.extra_context.search = text;
  }
  return { filter_arguments: result, rank_expression: null };
}

/**
 * Search in a dialect without SQLite's FTS tables: the dialect's full-text SQL over the table's
 * search vector or its configured search columns. `_search_<col>` searches that one column.
 */
function dialectSearch(
  args: ArgsLike,
  facts: SearchFacts,
  config: SearchConfig,
  dialect: SqlDialect,
): SearchResult {
  const mode = args.get("_searchmode");
  const raw = mode === "raw" || (mode !== "escaped" && config.searchmode === "raw");
  const source: FullTextSource = {
    vector_column: facts.search_vector ?? null,
    text_columns: config.search_columns ?? [],
    language: config.search_language ?? null,
  };
  const whole = dialect.fullText(source, ":search", raw);
  const result = new FilterArguments([], {}, [], { supports_search: Boolean(whole) });
  if (!whole) {
    return { filter_arguments: likeSearch(args, facts, result, dialect), rank_expression: null };
  }
  const searchKeys = argKeys(args).filter((key) =>
    key.startsWith("_search_") && key !== "_searchmode" && argList(args, key)[0]
  );
  const plain = args.get("_search") || (searchKeys.length ? null : args.get("_q"));
  if (plain) {
    result.where_clauses.push(whole.where);
    result.params.search = whole.value(plain);
    result.human_descriptions.push(`search matches "${plain}"`);
    result.extra_context.search = plain;
    return { filter_arguments: result, rank_expression: whole.rank };
  }
  const searchable = source.text_columns?.length ? source.text_columns : facts.text_columns ?? [];
  for (const [i, key] of searchKeys.entries()) {
    const column = key.slice("_search_".length);
    if (!searchable.includes(column)) throw new TableArgsError("Cannot search by that column");
    const one = dialect.fullText(
      { ...source, vector_column: null, text_columns: [column] },
      `:search_${i}`,
      raw,
    )!;
    const text = argList(args, key)[0];
    result.where_clauses.push(one.where);
    result.params[`search_${i}`] = one.value(text);
    result.human_descriptions.push(`search column "${column}" matches "${text}"`);
    result.extra_context.search = text;
  }
  return { filter_arguments: result, rank_expression: null };
}

/** `_q=` on a table without FTS: any text column containing the text. */
function likeSearch(
  args: ArgsLike,
  facts: SearchFacts,
  result: FilterArguments,
  dialect: SqlDialect = sqliteDialect,
): FilterArguments {
  const text = args.get("_q");
  const columns = facts.text_columns ?? [];
  // The table page offers a search box for `_q` then, as it does for `_search` with an index.
  if (columns.length) result.extra_context.supports_quick_search = true;
  if (!text || columns.length === 0) return result;
  const tests = columns.map((c) => dialect.like(dialect.escapeIdentifier(c), ":q"));
  result.where_clauses.push(`(${tests.join(" or ")})`);
  result.params.q = `%${text}%`;
  result.human_descriptions.push(`search matches "${text}"`);
  result.extra_context.search = text;
  return result;
}
