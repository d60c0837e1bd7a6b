/**
 * SPEC "Template lookup order": the candidate template names for each page, most specific
 * first. Names go through `cssClass` so any database or table name gives a safe file name.
 */
import { cssClass, type PageKind, type PageNames } from "./css_class.ts";

/** Page kinds with candidate lists: the pages plus the `_table.html` rows include. */
export type TemplatePage = PageKind | "table_rows" | "row_rows";

/** Candidate templates for a page, first existing wins. */
export function templateCandidates(page: TemplatePage, names: PageNames = {}): string[] {
  const db = cssClass(names.database ?? "");
  const table = cssClass(names.table ?? "");
  switch (page) {
    case "index":
      return ["index.html"];
    case "database":
      return [`database-${db}.html`, "database.html"];
    case "query":
      return [`query-${db}.html`, "query.html"];
    case "canned_query":
      return [`query-${db}-${cssClass(names.query ?? "")}.html`, `query-${db}.html`, "query.html"];
    case "table":
      return [`table-${db}-${table}.html`, "table.html"];
    case "row":
      return [`row-${db}-${table}.html`, "row.html"];
    case "table_rows":
      // The reference's order: the documented `_table-<db>-<table>.html` first.
      return [`_table-${db}-${table}.html`, `_table-table-${db}-${table}.html`, "_table.html"];
    case "row_rows":
      return [`_table-row-${db}-${table}.html`, `_table-${db}-${table}.html`, "_table.html"];
  }
}

/** The trailing HTML comment listing candidates, the chosen one marked with `*`. */
export function templatesConsideredComment(candidates: string[], selected: string): string {
  const listed = candidates.map((name) => (name === selected ? `*${name}` : name));
  return `<!-- Templates considered: ${listed.join(", ")} -->`;
}
