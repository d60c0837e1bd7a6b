/**
 * The samples of the pattern portfolio (`/-/patterns`), in the order they appear on pages. Each is
 * a short template `source` that includes a real partial, and the sample values (`context`) it is
 * rendered with; the portfolio prints the source under the sample, so a template author sees
 * which partial draws what and which variables it reads (docs/templates.md lists them all).
 *
 * @module
 */
import type { ViewHost } from "../host.ts";
import { lookups } from "../table/table_form.ts";
import {
  COLUMNS,
  DATABASE as database,
  sampleColumns,
  sampleRows,
  TABLE as table,
} from "./pattern_rows.ts";

/** One sample of the portfolio. */
export interface PatternSection {
  /** Anchor of the sample on the page. */
  id: string;
  title: string;
  /** What the component is for, in a sentence. */
  note: string;
  /** The template rendered for the sample: an include of the partial, sometimes in its frame. */
  source: string;
  /** The sample values the partial reads. */
  context: Record<string, unknown>;
}

const include = (name: string) => `{% include "${name}" %}`;

/** Every sample, with links into the fictional `example` database. */
export function patternSections(svc: ViewHost): PatternSection[] {
  const urls = svc.urls;
  const tableUrl = String(urls.table(database, table));
  const exportLink = (format: string, label: string, args: string) => {
    const base_url = `${urls.table(database, table, { format })}?${args}`;
    const download = format === "json" ? "" : "&_dl=on";
    return { format, label, base_url, url: base_url + download };
  };
  const formats = [["csv", "CSV"], ["tsv", "TSV"], ["ndjson", "NDJSON"]];
  const renderers = {
    json: String(urls.table(database, table, { format: "json" })),
    csv: `${urls.table(database, table, { format: "csv" })}?_size=max`,
  };
  const metadata = {
    description_html: "Products of a <strong>corner shop</strong>, one row per item on sale.",
    license: "CC BY 4.0",
    license_url: "https://creativecommons.org/licenses/by/4.0/",
    source: "Shop inventory",
    source_url: "https://example.com/inventory",
    about: "How this was made",
    about_url: "https://example.com/about",
  };
  return [
    {
      id: "header",
      title: "Site header: breadcrumbs and the menu",
      note: "Breadcrumbs lead back up from the current page; the menu shows the signed-in actor, " +
        "links from menu_links hooks and the logout button.",
      source: `<header class="site-header"><nav class="site-nav" aria-label="Sample">` +
        `<a class="site-title" href="#pattern-header">Corner Shop</a>` +
        `${include("_crumbs.html")}${include("_nav_menu.html")}</nav></header>`,
      context: {
        crumbs: [
          { href: String(urls.instance()), label: "home" },
          { href: String(urls.database(database)), label: database },
          { href: tableUrl, label: table },
        ],
        actor: { id: "alice", display: "Alice" },
        menu_links: [{ href: String(urls.path("-/create-token")), label: "Create API token" }],
      },
    },
    {
      id: "messages",
      title: "Messages",
      note: "Flash messages of each type, shown once on the next page a visitor sees.",
      source: include("_messages.html"),
      context: {
        messages: [
          { message: "Row 4 was inserted.", type: "info" },
          { message: "The count timed out: showing the first rows only.", type: "warning" },
          { message: "The query could not be run.", type: "error" },
        ],
      },
    },
    {
      id: "heading",
      title: "Page heading, badges and the actions menu",
      note: "A page's heading with the view and private badges, and the menu of table_actions " +
        "(database_actions, row_actions) links.",
      source: `<div class="page-header"><h1>cheap_products <span class="badge">view</span> ` +
        `${include("_private_badge.html")}</h1>${include("_action_menu.html")}</div>`,
      context: {
        action_title: "Table actions",
        action_links: [
          { href: "#pattern-rows", label: "Chart these rows", description: "Bar, line or scatter" },
          { href: "#pattern-edit", label: "Insert a row" },
        ],
      },
    },
    {
      id: "description",
      title: "Description, licence and source",
      note: "The description of the instance, database, table or query, with the licence, " +
        "source and about links it inherits.",
      source: include("_description_source_license.html"),
      context: { metadata },
    },
    {
      id: "database-summary",
      title: "A database on the home page",
      note: "Counts and the largest tables and views of one database.",
      source: include("_database_summary.html"),
      context: {
        db: {
          name: database,
          path: String(urls.database(database)),
          tables_count: 5,
          table_rows_sum: 1234,
          show_table_row_counts: true,
          hidden_tables_count: 4,
          views_count: 1,
          tables_and_views_truncated: [
            { name: table, count: 1200 },
            { name: "orders", count: 30, private: true },
            { name: "categories", count: 4 },
          ],
          tables_and_views_more: true,
          private: false,
        },
      },
    },
    {
      id: "sql-box",
      title: "The SQL editor",
      note: "The database page's box for a custom query; the SQL editor plugin turns it into a " +
        "code editor.",
      source: include("_database_sql_form.html"),
      context: {
        database,
        allow_execute_sql: true,
        default_sql: "select name, price from products where price > 5 order by price desc",
        attached_databases: [],
      },
    },
    {
      id: "database-contents",
      title: "Tables, views and queries of a database",
      note: "Each table with its columns and row count, the hidden tables toggle, views and " +
        "canned queries.",
      source: include("_database_contents.html"),
      context: {
        database,
        tables: [
          { name: table, columns: COLUMNS, count: 1200, hidden: false, private: false },
          { name: "orders", columns: ["id", "placed"], count: 30, hidden: false, private: true },
          { name: "imports", columns: ["line"], count: null, hidden: false, private: false },
        ],
        hidden_count: 4,
        show_hidden: false,
        views: [{ name: "cheap_products" }],
        queries: [
          { name: "by_category", title: "Products in a category", sql: "select …", write: false },
          { name: "add_note", sql: "insert …", write: true, private: true },
        ],
      },
    },
    {
      id: "table-summary",
      title: "Row count and description",
      note: "How many rows the filters leave, and what they are.",
      source: include("_table_summary.html"),
      context: {
        count: 1234,
        count_truncated: false,
        human_description_en: "where price > 5 sorted by price descending",
      },
    },
    {
      id: "filters",
      title: "Search, filters and sort",
      note: "The filter form: full-text search, the current filters, a blank filter, the sort " +
        "keys. With JavaScript, operators without a value hide its box and Add filter appears.",
      source: include("_filters.html"),
      context: {
        database,
        table,
        table_url: tableUrl,
        supports_search: true,
        search: "steel",
        filters: [{ column: "price", lookup: "gt", value: "5" }],
        filter_columns: COLUMNS,
        lookups: lookups(),
        sortable_columns: COLUMNS,
        sorts: [
          { column: "price", desc: true, name: "_sort", desc_name: "_sort_by_desc" },
          { column: "name", desc: false, name: "_sort_2", desc_name: "_sort_by_desc_2" },
        ],
        form_hidden_args: [["_facet", "category_id"]],
      },
    },
    {
      id: "facets",
      title: "Facets",
      note: "Facet values with counts (a selected value, a NULL, a cut list), facets that " +
        "timed out and suggested facets.",
      source: include("_facets.html"),
      context: {
        sorted_facet_results: [
          {
            name: "category_id",
            type: "column",
            hideable: true,
            toggle_url: tableUrl,
            truncated: false,
            results: [
              { value: 1, label: "Kitchen", count: 4, toggle_url: tableUrl, selected: true },
              {
                value: 2,
                label: "Garden",
                count: 3,
                toggle_url: `${tableUrl}?category_id=2`,
                selected: false,
              },
              {
                value: null,
                label: null,
                count: 1,
                toggle_url: "#pattern-facets",
                selected: false,
              },
            ],
          },
          {
            name: "added",
            type: "date",
            hideable: false,
            toggle_url: tableUrl,
            truncated: true,
            results: [
              { value: "2024-01-15", label: "2024-01-15", count: 2, toggle_url: "#pattern-facets" },
              { value: "2024-02-03", label: "2024-02-03", count: 2, toggle_url: "#pattern-facets" },
            ],
          },
        ],
        facets_timed_out: ["notes"],
        suggested_facets: [
          { name: "name", toggle_url: `${tableUrl}?_facet=name` },
          { name: "added", type: "date", toggle_url: `${tableUrl}?_facet_date=added` },
        ],
      },
    },
    {
      id: "export",
      title: "Rows toolbar and export menu",
      note: "Above the rows: the export menu (this page or every row, in each format) and View " +
        "and edit SQL. Visualisation plugins add their buttons here.",
      source: include("_rows_toolbar.html"),
      context: {
        edit_sql_url: String(urls.database_query(database, "select * from products")),
        export_menu: {
          page: [...formats, ["json", "JSON"]].map(([f, l]) => exportLink(f, l, "price__gt=5")),
          all: formats.map(([f, l]) => exportLink(f, l, "price__gt=5&_stream=on")),
          page_rows: 3,
          total_rows: 1234,
          total_at_least: false,
          labels: true,
        },
        renderers,
      },
    },
    {
      id: "hidden-columns",
      title: "Hidden columns",
      note: "The notice of columns left out with _col or _nocol.",
      source: include("_hidden_columns.html"),
      context: { hidden_columns: ["url", "notes"], show_all_columns_url: tableUrl },
    },
    {
      id: "rows",
      title: "Rows table with sort arrows and column menus",
      note: "Sorted by price descending, then name: each key shows its arrow and place. Cells " +
        "link to rows and labelled foreign keys, cut long text and offer BLOBs as downloads. " +
        "The column menus plugin adds a menu to each heading.",
      source: `<div data-column-menus>${include("_table.html")}</div>`,
      context: { display_columns: sampleColumns(svc), display_rows: sampleRows(svc, table) },
    },
    {
      id: "pagination",
      title: "Pagination",
      note: "The link to the next page (pages are keyset pages: there is no page count).",
      source: include("_pagination.html"),
      context: { next_url: `${tableUrl}?_next=3` },
    },
    {
      id: "definition",
      title: "Table definition",
      note: "The SQL that created the table (or view), folded away.",
      source: include("_definitions.html"),
      context: {
        table_definition:
          "CREATE TABLE products (\n  id INTEGER PRIMARY KEY,\n  name TEXT NOT NULL" +
          ",\n  category_id INTEGER REFERENCES categories(id),\n  price REAL\n);",
      },
    },
    {
      id: "row",
      title: "A row and the rows that point at it",
      note: "Row pages show one record; narrow screens restack it as label and value pairs.",
      source: `<div class="pattern-row">${include("_table.html")}` +
        `${include("_foreign_key_tables.html")}</div>`,
      context: {
        stacked_rows: true,
        display_columns: sampleColumns(svc, false),
        display_rows: sampleRows(svc, table, 1),
        foreign_key_tables: [
          {
            other_table: "order_items",
            other_column: "product_id",
            column: "id",
            count: 3,
            link: `${urls.table(database, "order_items")}?product_id=1`,
          },
          { other_table: "reviews", other_column: "product_id", column: "id", count: 0 },
        ],
      },
    },
    ...formSections(svc),
  ];
}

/** Samples of the editing forms, the query page and error pages. */
function formSections(svc: ViewHost): PatternSection[] {
  const urls = svc.urls;
  const tableUrl = String(urls.table(database, table));
  const writeColumn = (
    name: string,
    type: string,
    extra: Record<string, unknown> = {},
  ) => ({
    name,
    type,
    affinity: type === "" ? "BLOB" : type,
    notnull: 0,
    has_default: false,
    is_pk: false,
    auto_pk: false,
    ...extra,
  });
  const columns = [
    writeColumn("id", "INTEGER", { is_pk: true, auto_pk: true }),
    writeColumn("name", "TEXT", { notnull: 1 }),
    writeColumn("price", "REAL", { has_default: true }),
    writeColumn("photo", "BLOB"),
  ];
  const rowUrl = `${tableUrl}/1`;
  const values: Record<string, [string, string]> = {
    id: ["1", "integer"],
    name: ["Chef knife", "text"],
    price: ["", "null"],
    photo: ["", "blob"],
  };
  return [
    {
      id: "edit",
      title: "Insert, edit and delete forms",
      note: "For actors who may write: the insert form of table pages and the edit form of row " +
        "pages (write.js sends typed JSON), with the drop-table and delete-row dialogs.",
      source: include("_write_table.html") + include("_write_row.html"),
      context: {
        table,
        primary_key_values: ["1"],
        write_ui: {
          table_url: tableUrl,
          database_url: String(urls.database(database)),
          row_url: rowUrl,
          insert_url: `${tableUrl}/-/insert`,
          drop_url: `${tableUrl}/-/drop`,
          update_url: `${rowUrl}/-/update`,
          delete_url: `${rowUrl}/-/delete`,
          primary_keys: ["id"],
          columns: columns.map((c) => ({
            ...c,
            value: values[c.name][0],
            kind: values[c.name][1],
          })),
        },
      },
    },
    {
      id: "query-form",
      title: "A canned query's SQL and parameters",
      note: "The query page's form: the SQL (shown, or an editable box for custom SQL), its " +
        "named parameters and the run button. Writable queries POST it with a CSRF token.",
      source: include("_sql_form.html"),
      context: {
        database,
        canned_query: "by_category",
        canned_write: false,
        editable: false,
        hide_sql: false,
        sql: "select name, price from products where category_id = :category",
        show_hide_link: `${urls.query(database, "by_category")}?_hide_sql=1`,
        form_action: String(urls.query(database, "by_category")),
        named_parameter_values: { category: "1" },
      },
    },
    {
      id: "query-error",
      title: "Query error",
      note: "Why a query did not run, above its SQL.",
      source: include("_query_error.html"),
      context: { error: "no such column: prise" },
    },
    {
      id: "query-results",
      title: "Query results",
      note: "A query's rows: the count (here cut at max_returned_rows), the format links, the " +
        "rows and the note on getting the rest.",
      source: include("_query_results.html"),
      context: {
        columns: COLUMNS,
        display_rows: sampleRows(svc, null),
        truncated: true,
        total_rows: 1234,
        export_menu: null,
        renderers: {
          json: `${urls.database(database, { format: "json" })}?sql=select+*+from+products`,
        },
      },
    },
    {
      id: "error",
      title: "Error message",
      note: "The body of error pages: the message, a hint to put the request right, and where " +
        "to go next.",
      source: `<h1>Error 404</h1>${include("_error_message.html")}`,
      context: {
        status: 404,
        error: "Table not found: prodcts",
        hint: { text: "Tables of this database:", href: String(urls.database(database)) },
      },
    },
    {
      id: "format-links",
      title: "Format links",
      note: "The same data in other formats, on database and row pages.",
      source: include("_format_links.html"),
      context: {
        renderers: {
          json: `${tableUrl}/1.json`,
          csv: `${tableUrl}/1.csv`,
        },
      },
    },
    {
      id: "footer",
      title: "Footer",
      note: "Every page ends with it: the time the queries took, licence, source and about links.",
      source: include("_footer.html"),
      context: {
        query_ms: 12.5,
        metadata: { license: "CC BY 4.0", license_url: "https://example.com/l", source: "Shop" },
      },
    },
  ];
}
