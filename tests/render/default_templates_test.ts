import assert from "node:assert/strict";
import { Metadata } from "../../src/config/metadata.ts";
import { TemplateEnvironment } from "../../src/render/environment.ts";
import { makeDisplayRow } from "../../src/render/display_row.ts";
import { baseContext } from "../../src/render/page_context.ts";
import { templateCandidates } from "../../src/render/template_lookup.ts";
import { Markup } from "../../src/util/markup.ts";

const urls = {
  instance: () => "/",
  path: (p: string) => `/${p}`,
  logout: () => "/-/logout",
  static: (p: string) => `/-/static/${p}`,
  database: (db: string) => `/${db}`,
  table: (db: string, t: string) => `/${db}/${t}`,
  query: (db: string, q: string) => `/${db}/${q}`,
};

const env = new TemplateEnvironment();

function page(
  page: string,
  extra: Record<string, unknown>,
  names: { database?: string; table?: string } = {},
) {
  return {
    ...baseContext({
      page,
      urls,
      ...names,
      csrftoken: () => "CSRF-TOKEN",
      actor: { id: "ada" },
      messages: [["Saved <ok>", 1], ["Failed", 3]],
      metadata: new Metadata({ title: "Corner Shop", license: "CC0", license_url: "https://cc0" }),
      extra_css_urls: [[{ url: "https://cdn/x.css", sri: "sha384-x" }]],
      extra_js_urls: [[{ url: "/mod.js", module: true }]],
      extra_body_scripts: [{ script: "console.log(1)", module: true }],
      menu_links: [{ href: "/-/plugins", label: "Plugins" }],
    }),
    ...names,
    ...extra,
  };
}

const rows = [
  makeDisplayRow([
    { column: "id", value: "1", raw: 1 },
    { column: "name", value: "<Kettle>", raw: "<Kettle>" },
    {
      column: "category_id",
      value: new Markup('<a href="/shop/categories/1">Kitchen</a>'),
      raw: 1,
    },
  ]),
];
const display_columns = [
  { name: "id", sortable: true, is_pk: true, type: "INTEGER", description: null },
  { name: "name", sortable: true, is_pk: false, type: "TEXT", description: "Product name" },
  { name: "category_id", sortable: false, is_pk: false, type: "INTEGER", description: null },
];
const request = { path: "/shop/products", query_string: "_sort=name" };

Deno.test("base.html: assets, messages, menu, csrf logout, body scripts, footer", () => {
  const { html } = env.render("index.html", page("index", { databases: [] }));
  assert.match(html, /<link rel="stylesheet" href="\/-\/static\/app.css\?[0-9a-f]{6}">/);
  assert.match(html, /href="https:\/\/cdn\/x.css" integrity="sha384-x" crossorigin="anonymous"/);
  assert.match(html, /<script nonce="[^"]*" type="module" src="\/mod.js"><\/script>/);
  assert.match(html, /<p class="message message-info">Saved &lt;ok&gt;<\/p>/);
  assert.match(html, /message-error">Failed/);
  assert.match(html, /<a href="\/-\/plugins">Plugins<\/a>/);
  assert.match(html, /name="csrftoken" value="CSRF-TOKEN"/);
  assert.match(html, /<script nonce="[^"]*" type="module">console.log\(1\)<\/script>/);
  assert.match(html, /Data licence:\s*<a href="https:\/\/cc0">CC0<\/a>/);
  assert.match(html, /<body class="index">/);
  assert.match(html, /<!-- Templates considered: \*index.html -->$/);
});

Deno.test("index.html lists databases with counts and table links", () => {
  const { html } = env.render(
    "index.html",
    page("index", {
      databases: [{
        name: "shop",
        path: "/shop",
        tables_count: 5,
        table_rows_sum: 12345,
        show_table_row_counts: true,
        hidden_tables_count: 2,
        views_count: 1,
        tables_and_views_truncated: [{ name: "products", path: "/shop/products", count: 10 }],
        tables_and_views_more: true,
        private: true,
      }],
    }),
  );
  assert.match(html, /<h1>Corner Shop<\/h1>/);
  assert.match(html, /<a href="\/shop">shop<\/a>/);
  assert.match(html, /12,345 rows in 5 tables, 2 hidden tables, 1 view/);
  assert.match(html, /<a href="\/shop\/products" title="10 rows">products<\/a>/);
  assert.match(html, /private/);
});

Deno.test("database.html: tables, hidden toggle, views, queries, SQL form, actions", () => {
  const { html } = env.render(
    templateCandidates("database", { database: "shop" }),
    page("database", {
      tables: [
        { name: "products", columns: ["id", "name"], count: 3, hidden: false },
        { name: "products_fts", columns: ["name"], count: 3, hidden: true },
      ],
      hidden_count: 1,
      show_hidden: false,
      views: [{ name: "cheap_products" }],
      queries: [{ name: "by_cat", title: "By category", write: false, fragment: "x" }],
      allow_execute_sql: true,
      database_actions: [{ href: "/shop/-/create", label: "Create a table" }],
      renderers: { json: "/shop.json" },
    }, { database: "shop" }),
  );
  assert.match(html, /<body class="db db-shop">/);
  assert.match(html, /<a href="\/shop\/products">products<\/a>/);
  assert.doesNotMatch(html, /products_fts<\/a>/);
  assert.match(html, /\?_show_hidden=1">1 hidden table</);
  assert.match(html, /<a href="\/shop\/cheap_products">cheap_products<\/a>/);
  assert.match(html, /href="\/shop\/by_cat#x"[^>]*>By category<\/a>/);
  assert.match(html, /<textarea id="sql-editor" name="sql"/);
  assert.match(html, /Create a table/);
  assert.match(html, /<a href="\/shop.json" class="format-json">json<\/a>/);
  assert.match(html, /<!-- Templates considered: database-shop.html, \*database.html -->/);
});

Deno.test("query.html: custom SQL with results, named parameters and errors", () => {
  const base = page("query", {
    sql: "select * from products where name = :name",
    editable: true,
    named_parameter_values: { name: "<x>" },
    columns: ["id", "name", "category_id"],
    display_rows: rows,
    truncated: false,
    renderers: { json: "/shop.json?sql=1", csv: "/shop.csv?sql=1" },
  }, { database: "shop" });
  const { html } = env.render("query.html", base);
  assert.match(html, /<body class="query db-shop">/);
  assert.match(
    html,
    /<textarea[^>]*name="sql"[^>]*>select \* from products where name = :name<\/textarea>/,
  );
  assert.match(html, /<input type="text" id="qp1" name="name" value="&lt;x&gt;">/);
  assert.match(html, /<th class="col-name" scope="col" data-column="name">name<\/th>/);
  assert.match(html, /<td class="col-name type-str">&lt;Kettle&gt;<\/td>/);
  assert.match(html, /<a href="\/shop\/categories\/1">Kitchen<\/a>/);
  const failed = env.render("query.html", {
    ...base,
    display_rows: [],
    error: 'near "selec": syntax error',
  });
  assert.match(failed.html, /<strong>Error:<\/strong> near &quot;selec&quot;: syntax error/);
});

Deno.test("query.html: canned query with hide_sql and a writable form", () => {
  const hidden = env.render(
    "query.html",
    page("canned_query", {
      canned_query: "by_cat",
      metadata: { title: "By category" },
      sql: "select 1",
      hide_sql: true,
      show_hide_link: "/shop/by_cat?_show_sql=1",
      columns: ["a"],
      display_rows: [],
    }, { database: "shop" }),
  );
  assert.match(hidden.html, /<body class="query db-shop query-by_cat">/);
  assert.match(hidden.html, /<a href="\/shop\/by_cat\?_show_sql=1">Show SQL<\/a>/);
  assert.doesNotMatch(hidden.html, /<pre class="sql-display">/);
  assert.match(hidden.html, /0 results/);
  const write = env.render(
    "query.html",
    page("canned_query", {
      canned_query: "add_log_entry",
      canned_write: true,
      sql: "insert into log (message) values (:message)",
      named_parameter_values: { message: "" },
    }, { database: "shop" }),
  );
  assert.match(
    write.html,
    /<form class="sql-form write-form"[^>]*action="\/shop\/add_log_entry"[^>]*method="post"/s,
  );
  assert.match(write.html, /<input type="hidden" name="csrftoken" value="CSRF-TOKEN">/);
  assert.match(write.html, /<pre class="sql-display">insert into log/);
});

Deno.test("table.html: filters, sort links, facets, search, count, next page, definition", () => {
  const context = page("table", {
    request,
    columns: ["id", "name", "category_id"],
    display_columns,
    display_rows: rows,
    table_rows_template: env.select(
      templateCandidates("table_rows", { database: "shop", table: "products" }),
    ),
    sort: "name",
    sort_desc: null,
    count: 1234,
    human_description_en: 'where name contains "k" sorted by name',
    filters: [{ column: "name", lookup: "contains", value: "k" }],
    filter_columns: ["id", "name", "category_id"],
    lookups: [
      { key: "exact", display: "=", no_argument: false },
      { key: "contains", display: "contains", no_argument: false },
      { key: "isnull", display: "is null", no_argument: true },
    ],
    sortable_columns: ["id", "name"],
    form_hidden_args: [["_facet", "category_id"]],
    supports_search: true,
    search: "ket",
    sorted_facet_results: [{
      name: "category_id",
      type: "column",
      hideable: true,
      toggle_url: "/shop/products?_sort=name",
      results: [
        {
          value: 1,
          label: "Kitchen",
          count: 2,
          toggle_url: "/shop/products?category_id=1",
          selected: false,
        },
        { value: 2, label: "Garden", count: 1, toggle_url: "/shop/products", selected: true },
      ],
      truncated: false,
    }],
    suggested_facets: [{ name: "price", toggle_url: "/shop/products?_facet=price" }],
    next_url: "/shop/products?_next=1",
    table_definition: "CREATE TABLE products (id integer primary key)",
    table_actions: [{ href: "/x", label: "Edit <schema>" }],
    renderers: { json: "/shop/products.json", csv: "/shop/products.csv" },
  }, { database: "shop", table: "products" });
  const { html } = env.render(
    templateCandidates("table", { database: "shop", table: "products" }),
    context,
  );
  assert.match(html, /<body class="table db-shop table-products">/);
  assert.match(html, /1,234 rows where name contains &quot;k&quot; sorted by name/);
  assert.match(html, /<select name="_filter_column_1"[^>]*>[\s\S]*<option selected>name<\/option>/);
  assert.match(html, /<option value="contains" selected>contains<\/option>/);
  assert.match(html, /<option value="isnull__1" data-no-argument="1">is null<\/option>/);
  assert.match(html, /name="_filter_value_1" value="k"/);
  assert.match(html, /<input type="hidden" name="_facet" value="category_id">/);
  assert.match(html, /name="_search" value="ket"/);
  assert.match(
    html,
    /<th class="col-id" scope="col" data-column="id" data-column-type="integer" data-is-pk="1">/,
  );
  assert.match(html, /href="\/shop\/products\?_sort_desc=name"[^>]*>name&nbsp;/);
  assert.match(html, /href="\/shop\/products\?_sort=id"/);
  assert.match(html, /<th class="col-category_id" scope="col"[^>]*>category_id<\/th>/);
  assert.match(html, /<td class="col-name type-str">&lt;Kettle&gt;<\/td>/);
  assert.match(html, /<a href="\/shop\/products\?category_id=1">Kitchen<\/a>/);
  assert.match(html, /<strong>Garden<\/strong>/);
  assert.match(html, /Suggested facets:\s*<a href="\/shop\/products\?_facet=price">price<\/a>/);
  assert.match(html, /<a href="\/shop\/products\?_next=1" rel="next">Next page<\/a>/);
  assert.match(html, /CREATE TABLE products/);
  assert.match(html, /Edit &lt;schema&gt;/);
  assert.match(html, /<a href="\/shop\/products.csv" class="format-csv">csv<\/a>/);
  assert.match(html, /\/-\/static\/table.js/);
});

Deno.test("row.html shows the row and incoming foreign keys with counts", () => {
  const { html } = env.render(
    "row.html",
    page("row", {
      request,
      display_columns,
      display_rows: rows,
      primary_keys: ["id"],
      primary_key_values: ["1"],
      foreign_key_tables: [
        {
          other_table: "order_items",
          other_column: "product_id",
          column: "id",
          count: 1200,
          link: "/shop/order_items?product_id=1",
        },
        { other_table: "reviews", other_column: "product_id", column: "id", count: 0, link: "/x" },
      ],
    }, { database: "shop", table: "products" }),
  );
  assert.match(html, /<body class="row db-shop table-products">/);
  assert.match(html, /<h1>products: 1/);
  assert.match(
    html,
    /<a href="\/shop\/order_items\?product_id=1">1,200 rows<\/a>\s*from product_id in order_items/,
  );
  assert.match(html, /0 rows\s*from product_id in reviews/);
  assert.match(
    html,
    /<a href="\/">home<\/a>.*<a href="\/shop">shop<\/a>.*<a href="\/shop\/products">products<\/a>/s,
  );
});

Deno.test("error and csrf_error pages show status, title and message escaped", () => {
  const error = env.render(
    "error.html",
    page("error", { status: 404, error: "Table <x> not found", title: null }),
  );
  assert.match(error.html, /<h1>Error 404<\/h1>/);
  assert.match(error.html, /Table &lt;x&gt; not found/);
  const titled = env.render(
    "error.html",
    page("error", { status: 400, error: "bad", title: "Invalid SQL" }),
  );
  assert.match(titled.html, /<title>Invalid SQL<\/title>/);
  const csrf = env.render(
    "csrf_error.html",
    page("error", { error: "form-urlencoded POST field did not match cookie" }),
  );
  assert.match(csrf.html, /form-urlencoded POST field did not match cookie/);
});

Deno.test("debug, logout, token and JSON pages render with their forms", () => {
  const logout = env.render("logout.html", page("logout", {}));
  assert.match(logout.html, /You are signed in as <strong>ada<\/strong>/);
  const messages = env.render("messages_debug.html", page("messages", {}));
  assert.match(messages.html, /name="message_type"/);
  assert.match(messages.html, /value="CSRF-TOKEN"/);
  const allow = env.render(
    "allow_debug.html",
    page("allow", { allow_input: '{"id": "*"}', actor_input: '{"id": "x"}', result: true }),
  );
  assert.match(allow.html, /\{&quot;id&quot;: &quot;\*&quot;\}/);
  assert.match(allow.html, /Result: <strong>allowed<\/strong>/);
  const permissions = env.render(
    "permissions_debug.html",
    page("permissions", {
      permissions: [{ name: "view-table", abbr: "vt" }],
      permission_checks: [{
        when: "2024-01-01T00:00:00",
        actor: { id: "ada" },
        action: "view-table",
        resource: ["shop", "products"],
        result: true,
        used_default: true,
      }],
    }),
  );
  assert.match(permissions.html, /<option value="view-table">view-table \(vt\)<\/option>/);
  assert.match(permissions.html, /shop \/ products/);
  assert.match(permissions.html, /allowed <small>\(default\)<\/small>/);
  const token = env.render(
    "create_token.html",
    page("create_token", {
      permissions: [{ name: "view-table", takes_database: true, takes_resource: true }],
      database_with_tables: [{ name: "shop", tables: [{ name: "products" }] }],
      token: "dstok_abc",
      errors: [],
    }),
  );
  assert.match(token.html, /name="resource:shop:products:view-table"/);
  assert.match(token.html, />dstok_abc<\/textarea>/);
  const json = env.render(
    "show_json.html",
    page("settings", { filename: "settings.json", data: { a: "<b>" } }),
  );
  assert.match(json.html, /<h1>settings.json<\/h1>/);
  assert.match(json.html, /&quot;a&quot;: &quot;\\u003cb\\u003e&quot;|"a": "\\u003cb\\u003e"/);
});

Deno.test("empty lists and objects leave no empty menu, messages or link blocks", () => {
  const context = {
    ...baseContext({ page: "database", urls, database: "shop" }),
    database: "shop",
    tables: [],
    renderers: {},
  };
  const { html } = env.render("database.html", context);
  assert.doesNotMatch(html, /class="nav-menu"/);
  assert.doesNotMatch(html, /class="messages"/);
  assert.doesNotMatch(html, /class="export-links"/);
  assert.doesNotMatch(html, /name="sql"/, "no SQL form without allow_execute_sql");
  const query = env.render("query.html", {
    ...baseContext({ page: "query", urls, database: "shop" }),
    database: "shop",
    sql: "select 1",
    named_parameter_values: {},
    columns: ["1"],
    display_rows: [],
  });
  assert.doesNotMatch(query.html, /<fieldset class="named-parameters">/);
  assert.match(query.html, /0 results/);
});
