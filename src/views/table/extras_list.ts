/**
 * `_extra=extras`: every `_extra=` name a table page answers, described, with the URL that toggles
 * it on or off (the reference's shape: `{name, description, toggle_url, selected}`), so a client
 * can discover and switch the blocks without reading the docs.
 *
 * @module
 */
import type { Request } from "../../http/request.ts";
import type { ViewHost } from "../host.ts";
import { queryPairs } from "../../http/request_state.ts";
import { pathWithAddedArgs, pathWithRemovedArgs } from "../../table/url_args.ts";

/** One sentence per `_extra=` name of the table page (our own words). */
const DESCRIPTIONS: Record<string, string> = {
  count: "How many rows match the current filters",
  count_truncated: "True when counting stopped at its limit, so the count is a lower bound",
  count_sql: "The SQL that counts the matching rows",
  facet_results: "The facets of this page: `results` by facet name, and `timed_out`",
  facets_timed_out: "Names of the facets that ran out of time",
  suggested_facets: "Facets worth trying on this data, each with a URL that turns it on",
  sorted_facet_results: "The facet results in display order",
  human_description_en: "The filters, search and sort in plain English",
  next_url: "Absolute URL of the next page, or null",
  columns: "The column names of the returned rows",
  all_columns: "Every column of the table, whatever `_col=` or `_nocol=` chose",
  primary_keys: "The primary key columns (empty for a rowid table)",
  column_details: "Each column's position, name, declared type, default, not-null and key flags",
  column_types: "Type assigned to each column (none: Vitrine has no column types)",
  query: "The SQL and parameters that produced the rows",
  request: "The request: url, path, full_path, host and args",
  debug: "Internal details for debugging; not a stable shape",
  metadata: "The table's metadata, with `columns` mapping column names to descriptions",
  database: "The database name",
  table: "The table name",
  database_color: "The colour the interface uses for this database",
  is_view: "True when this is a view",
  private: "True when only the current actor may see this table",
  table_definition: "The CREATE TABLE statement",
  view_definition: "The CREATE VIEW statement",
  expandable_columns:
    "Foreign-key columns that can be expanded with labels, with their label column",
  form_hidden_args: "Query arguments the filter form carries as hidden fields",
  custom_table_templates: "Template names tried, in order, to render the table's rows",
  display_columns: "The columns as the HTML table shows them: name, sort, key, type, not-null",
  set_column_type_ui: "Interface data for assigning column types (always null in Vitrine)",
  extras: "This list of `_extra=` blocks",
  render_cell: "Each cell as rendered by render_cell plugin hooks",
  renderers: "URLs of this data in every output format that can render it",
};

/** One entry of the `extras` list. */
export interface ExtraEntry {
  name: string;
  description: string;
  toggle_url: string;
  selected: boolean;
}

/**
 * The `extras` list for `names` (the page's extras, in order); `selected` are those this request
 * includes. A toggle URL adds `_extra=<name>` or removes that pair, as absolute URLs.
 */
export function extrasList(
  svc: ViewHost,
  request: Request,
  names: string[],
  selected: ReadonlySet<string>,
): ExtraEntry[] {
  const current = queryPairs(request);
  return names.map((name) => {
    const on = selected.has(name);
    const path = on
      ? pathWithRemovedArgs(request.path, current, { pairs: [["_extra", name]] })
      : pathWithAddedArgs(request.path, current, [["_extra", name]]);
    return {
      name,
      description: DESCRIPTIONS[name] ?? "",
      toggle_url: svc.absolute_url(request, path),
      selected: on,
    };
  });
}
