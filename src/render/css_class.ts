/**
 * SPEC "Body CSS classes": turning database, table and query names into CSS class parts and
 * template-name parts that are always safe.
 */
import { md5Hex } from "../util/hash.ts";

const VALID_IDENTIFIER = /^[a-zA-Z][a-zA-Z0-9_-]*$/;

/**
 * A name as a CSS class part. A valid identifier is kept; otherwise invalid characters
 * (and leading `-`/`_`) are dropped and `-` plus 6 hex chars of md5(name) appended, so two
 * names that sanitise alike still get different classes.
 */
export function cssClass(name: string): string {
  if (VALID_IDENTIFIER.test(name)) return name;
  const digest = md5Hex(name).slice(0, 6);
  // Runs of whitespace become one hyphen so "my table" stays readable as "my-table".
  const cleaned = name
    .replace(/^[-_\s]+/, "")
    .trim()
    .split(/\s+/)
    .join("-")
    .replace(/[^a-zA-Z0-9_-]/g, "");
  return cleaned ? `${cleaned}-${digest}` : digest;
}

/** Which page a body class (or template candidate list) is for. */
export type PageKind = "index" | "database" | "query" | "canned_query" | "table" | "row";

/** The names a page is about; only those relevant to the page kind are read. */
export interface PageNames {
  database?: string | null;
  table?: string | null;
  query?: string | null;
}

/** The `<body class="...">` value for a page, per SPEC "Body CSS classes". */
export function bodyClass(page: PageKind, names: PageNames = {}): string {
  const db = `db-${cssClass(names.database ?? "")}`;
  const table = `table-${cssClass(names.table ?? "")}`;
  switch (page) {
    case "index":
      return "index";
    case "database":
      return `db ${db}`;
    case "query":
      return `query ${db}`;
    case "canned_query":
      return `query ${db} query-${cssClass(names.query ?? "")}`;
    case "table":
      return `table ${db} ${table}`;
    case "row":
      return `row ${db} ${table}`;
  }
}
