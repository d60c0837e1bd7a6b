/**
 * SQL text helpers shared by the table, query and database views: identifier quoting, the
 * read-only `SELECT` validation of custom SQL (API-DETAILS §5) and named-parameter detection.
 *
 * @module
 */

import { StatusError } from "./errors.ts";

/** SQLite keywords that must be quoted when used as identifiers. */
const RESERVED_WORDS = new Set(
  ("abort action add after all alter analyze and as asc attach autoincrement before begin " +
    "between by cascade case cast check collate column commit conflict constraint create cross " +
    "current_date current_time current_timestamp database default deferrable deferred delete " +
    "desc detach distinct drop each else end escape except exclusive exists explain fail for " +
    "foreign from full glob group having if ignore immediate in index indexed initially inner " +
    "insert instead intersect into is isnull join key left like limit match natural no not " +
    "notnull null of offset on or order outer plan pragma primary query raise recursive " +
    "references regexp reindex release rename replace restrict right rollback row savepoint " +
    "select set table temp temporary then to transaction trigger union unique update using " +
    "vacuum values view virtual when where with without").split(" "),
);

const PLAIN_IDENTIFIER = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/**
 * Quotes `name` for use as an SQL identifier the way Datasette does: plain names stay bare,
 * anything else (spaces, punctuation, keywords) becomes `[name]`. A name holding `]` cannot be
 * bracketed, so it is double-quoted with embedded quotes doubled.
 *
 * @example escapeSqlIdentifier("price") === "price"; escapeSqlIdentifier("order") === "[order]"
 */
export function escapeSqlIdentifier(name: string): string {
  if (PLAIN_IDENTIFIER.test(name) && !RESERVED_WORDS.has(name.toLowerCase())) return name;
  if (!name.includes("]")) return `[${name}]`;
  return quoteSqlIdentifier(name);
}

/** Double-quotes `name` as an identifier (`"a""b"`), the form filters use (API-DETAILS §4). */
export function quoteSqlIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The user's SQL cannot run: raised by {@link validateSqlSelect}, and by views for SQL the user
 * wrote that the database refused. Answered with 400, title "Invalid SQL".
 */
export class InvalidSql extends StatusError {
  override name = "InvalidSql";

  /** Creates the error with the user-facing `message` (`cause`: the database's error). */
  constructor(message: string, options: ErrorOptions = {}) {
    super(400, message, { title: "Invalid SQL", cause: options.cause });
  }
}

/** Table-valued pragma functions that custom SQL may call. */
const ALLOWED_PRAGMA_FUNCTIONS: readonly string[] = [
  "database_list",
  "foreign_key_list",
  "function_list",
  "index_info",
  "index_list",
  "index_xinfo",
  "page_count",
  "max_page_count",
  "page_size",
  "schema_version",
  "table_info",
  "table_xinfo",
  "table_list",
];

const ALLOWED_STATEMENT_STARTS = [
  /^select\b/,
  /^explain\s+select\b/,
  /^explain\s+query\s+plan\s+select\b/,
  /^with\b/,
  /^explain\s+with\b/,
  /^explain\s+query\s+plan\s+with\b/,
];

const DISALLOWED_PRAGMA = new RegExp(`pragma(?!_(${ALLOWED_PRAGMA_FUNCTIONS.join("|")}))`);

const DISALLOWED_PRAGMA_MESSAGE = "Statement contained a disallowed PRAGMA. Allowed pragma " +
  "functions are " + ALLOWED_PRAGMA_FUNCTIONS.map((name) => `pragma_${name}()`).join(", ");

/**
 * Throws {@link InvalidSql} unless `sql` is a read-only SELECT (or WITH / EXPLAIN of one) that
 * calls no pragma other than the allowed table-valued functions.
 */
export function validateSqlSelect(sql: string): void {
  const withoutLineComments = sql.split("\n")
    .filter((line) => !line.trim().startsWith("--"))
    .join("\n");
  const normalised = stripLeadingBlockComments(withoutLineComments.trim().toLowerCase());
  if (!ALLOWED_STATEMENT_STARTS.some((pattern) => pattern.test(normalised))) {
    throw new InvalidSql("Statement must be a SELECT");
  }
  // The pragma check deliberately scans string literals too: a literal 'pragma' is rejected,
  // which keeps the rule simple to explain and impossible to smuggle past.
  if (DISALLOWED_PRAGMA.test(normalised)) throw new InvalidSql(DISALLOWED_PRAGMA_MESSAGE);
}

function stripLeadingBlockComments(sql: string): string {
  let rest = sql;
  while (rest.startsWith("/*")) {
    const end = rest.indexOf("*/");
    if (end === -1) return rest;
    rest = rest.slice(end + 2).trimStart();
  }
  return rest;
}

/**
 * Names of the `:name` parameters in `sql`, in first-seen order without duplicates. Comments,
 * string literals and quoted identifiers are skipped, so `'12:30'` is not a parameter.
 */
export function detectNamedParameters(sql: string): string[] {
  const found = new Set<string>();
  let i = 0;
  while (i < sql.length) {
    const char = sql[i];
    const next = sql[i + 1];
    if (char === "-" && next === "-") {
      const end = sql.indexOf("\n", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (char === "/" && next === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 2;
    } else if (char === "'" || char === '"' || char === "`") {
      i = skipQuoted(sql, i, char);
    } else if (char === "[") {
      const end = sql.indexOf("]", i);
      i = end === -1 ? sql.length : end + 1;
    } else if (char === ":") {
      // Letters and digits of any script, like the reference's Unicode `\w` and SQLite itself.
      const match = /^[\p{L}\p{N}_]+/u.exec(sql.slice(i + 1));
      if (match) found.add(match[0]);
      i += 1 + (match ? match[0].length : 0);
    } else {
      i++;
    }
  }
  return [...found];
}

/** Index just past the literal opened at `start`; a doubled quote is an escaped quote. */
function skipQuoted(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
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

/** True for parameter names filled by magic-parameter plugins (`_now_epoch`, `_actor_id`, …). */
export function isMagicParameter(name: string): boolean {
  return name.startsWith("_");
}
