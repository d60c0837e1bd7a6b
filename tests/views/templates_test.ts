/**
 * Template customisation end to end, through `svc.client`: every level of the SPEC lookup table
 * overridden from `--template-dir` (names that need the md5 rule included), the `Templates
 * considered` comment, `default:` + `super()`, plugin templates after the template dir, error
 * templates, body classes, `col-<column>` cells, extra CSS/JS, metadata display fields, and
 * `base_url` on every link of every page kind.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service, type ServiceOptions } from "../../src/service.ts";
import { cssClass } from "../../src/render/css_class.ts";

/** `my data.db` with tables that need tilde encoding and the md5 class rule. */
function buildDb(dir: string): string {
  const path = `${dir}/my data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`
    create table [my table/2024] (id integer primary key, name text, [odd col] text);
    insert into [my table/2024] values (1, 'a<b', 'x'), (2, 'b', 'y');
    create table plain (id integer primary key, ref integer references [my table/2024](id),
      label text);
    insert into plain values (1, 1, 'one'), (2, 2, 'two');
    create view plain_view as select id, label from plain;
  `);
  conn.close();
  return path;
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    const path = `${dir}/${name}`;
    Deno.mkdirSync(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(path, text);
  }
}

const QUERIES = {
  "q one": { sql: "select id, label from plain where label = :label", title: "Query one" },
  q2: "select 1 as one",
};

/** A service over `my data.db` with `templates` written into a fresh --template-dir. */
/** A service over a temporary directory; `await using` closes it and removes the directory. */
interface Site extends AsyncDisposable {
  svc: Service;
  dir: string;
}

function site(svc: Service, dir: string): Site {
  return {
    svc,
    dir,
    async [Symbol.asyncDispose]() {
      await svc.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

function service(
  templates: Record<string, string> = {},
  options: ServiceOptions = {},
): Site {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-templates-" });
  const path = buildDb(dir);
  writeFiles(`${dir}/templates`, templates);
  Deno.mkdirSync(`${dir}/templates`, { recursive: true });
  const svc = new Service({
    files: [path],
    template_dir: `${dir}/templates`,
    metadata: { databases: { "my data": { queries: QUERIES } } },
    ...options,
  });
  return site(svc, dir);
}

const DB = cssClass("my data");
const TABLE = cssClass("my table/2024");
const QUERY = cssClass("q one");

/** The `Templates considered` comment at the end of a page. */
function considered(html: string): string {
  const match = html.trimEnd().match(/<!-- Templates considered: (.*) -->$/);
  assert.ok(match, "the page ends with the Templates considered comment");
  return match[1];
}

function bodyClass(html: string): string | undefined {
  return html.match(/<body class="([^"]*)"/)?.[1];
}

Deno.test("names that are not CSS identifiers use the md5 rule in template names", () => {
  // Pinned values: md5("my table/2024") starts 1c0fc9; the same rule as the body classes.
  assert.equal(TABLE, "my-table2024-1c0fc9");
  assert.equal(QUERY, "q-one-53954c");
  assert.match(DB, /^my-data-[0-9a-f]{6}$/);
});

Deno.test("every page template of the lookup table is overridden from --template-dir", async () => {
  const marker = (name: string, base: string) =>
    `{% extends "default:${base}" %}{% block content %}<p class="override">${name}</p>` +
    `{{ super() }}{% endblock %}`;
  await using site = service({
    "index.html": marker("index", "index.html"),
    [`database-${DB}.html`]: marker("database-db", "database.html"),
    [`query-${DB}-${QUERY}.html`]: marker("query-db-query", "query.html"),
    [`query-${DB}.html`]: marker("query-db", "query.html"),
    [`table-${DB}-${TABLE}.html`]: marker("table-db-table", "table.html"),
    [`row-${DB}-${TABLE}.html`]: marker("row-db-table", "row.html"),
  });
  const { svc } = site;
  const cases: [string, string, string][] = [
    ["/", "index", "*index.html"],
    ["/my+data", "database-db", `*database-${DB}.html, database.html`],
    ["/my+data?sql=select+1", "query-db", `*query-${DB}.html, query.html`],
    [
      "/my+data/q~20one?label=one",
      "query-db-query",
      `*query-${DB}-${QUERY}.html, query-${DB}.html, query.html`,
    ],
    // A canned query without its own template falls back to the database's query template.
    ["/my+data/q2", "query-db", `query-${DB}-q2.html, *query-${DB}.html, query.html`],
    ["/my+data/my+table~2F2024", "table-db-table", `*table-${DB}-${TABLE}.html, table.html`],
    ["/my+data/my+table~2F2024/1", "row-db-table", `*row-${DB}-${TABLE}.html, row.html`],
  ];
  for (const [path, name, comment] of cases) {
    const response = await svc.client.get(path);
    assert.equal(response.status, 200, path);
    assert.match(response.text, new RegExp(`<p class="override">${name}</p>`), path);
    assert.equal(considered(response.text), comment, path);
    // super() kept the default page: base.html's header and the page's own content.
    assert.match(response.text, /<header class="site-header">/, path);
  }
  // The defaults still answer where no override exists.
  const plain = await svc.client.get("/my+data/plain");
  assert.doesNotMatch(plain.text, /class="override"/);
  assert.equal(considered(plain.text), `table-${DB}-plain.html, *table.html`);
  const row = await svc.client.get("/my+data/plain/1");
  assert.equal(considered(row.text), `row-${DB}-plain.html, *row.html`);
});

Deno.test("the rows include is chosen per page, with row.display() and raw row values", async () => {
  const rows = (name: string) =>
    `<ol class="${name}">{% for row in display_rows %}` +
    `<li>{{ row.display("name") }}|{{ row["name"] }}|{{ row.display("id") }}</li>` +
    `{% endfor %}</ol>`;
  await using site = service({
    [`_table-table-${DB}-${TABLE}.html`]: rows("table-page"),
    [`_table-row-${DB}-${TABLE}.html`]: rows("row-page"),
    [`_table-${DB}-plain.html`]:
      `<ol class="both">{% for row in display_rows %}<li>{{ row.display("ref") }}</li>` +
      `{% endfor %}</ol>`,
  });
  const { svc } = site;
  const table = (await svc.client.get("/my+data/my+table~2F2024")).text;
  // display() is the rendered cell (escaped text, the pk linking to its row); row[] is raw.
  assert.match(
    table,
    /<ol class="table-page"><li>a&lt;b\|a&lt;b\|<a href="\/my\+data\/my\+table~2F2024\/1">1<\/a><\/li>/,
  );
  const row = (await svc.client.get("/my+data/my+table~2F2024/2")).text;
  assert.match(row, /<ol class="row-page"><li>b\|b\|2<\/li><\/ol>/);
  // `_table-<db>-<table>.html` serves both pages; display() renders the foreign key link
  // (the table page adds the referenced row's label).
  const plain = (await svc.client.get("/my+data/plain")).text;
  assert.match(
    plain,
    /<ol class="both"><li><a href="\/my\+data\/my\+table~2F2024\/1">a&lt;b<\/a>&nbsp;<em>1<\/em><\/li>/,
  );
  const plainRow = (await svc.client.get("/my+data/plain/1")).text;
  assert.match(
    plainRow,
    /<ol class="both"><li><a href="\/my\+data\/my\+table~2F2024\/1">(?:1|a&lt;b<\/a>&nbsp;<em>1<\/em>)/,
  );
});

Deno.test("a plugin's templates come after --template-dir and before the defaults", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-templates-" });
  const path = buildDb(dir);
  writeFiles(`${dir}/templates`, {
    "index.html": `{% extends "default:index.html" %}{% block content %}USER INDEX{% endblock %}`,
  });
  // A --plugins-dir plugin `themed.ts` with its templates in `themed/templates/`.
  writeFiles(`${dir}/plugins`, {
    "themed.ts": "export function extra_template_vars() { return { themed: true }; }\n",
    "themed/templates/index.html": "PLUGIN INDEX",
    "themed/templates/table.html":
      `{% extends "default:table.html" %}{% block content %}PLUGIN TABLE {{ super() }}` +
      `{% endblock %}`,
  });
  try {
    await using plugged = new Service({
      files: [path],
      template_dir: `${dir}/templates`,
      plugins_dir: `${dir}/plugins`,
    });
    const index = (await plugged.client.get("/")).text;
    assert.match(index, /USER INDEX/);
    assert.doesNotMatch(index, /PLUGIN INDEX/);
    const table = (await plugged.client.get("/my+data/plain")).text;
    assert.match(table, /PLUGIN TABLE/);
    assert.match(table, /class="rows-and-columns"/, "super() reached the bundled table.html");
    assert.equal(considered(table), `table-${DB}-plain.html, *table.html`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("error pages: <status>.html, then error.html, with status, error and title", async () => {
  const page = (name: string) =>
    `{% extends "default:error.html" %}{% block content %}` +
    `<p id="e">${name}|{{ status }}|{{ error }}|{{ title }}</p>{% endblock %}`;
  await using site = service({
    "404.html": page("404.html"),
    "500.html": page("500.html"),
    "error.html": `<p id="e">error.html|{{ status }}|{{ error }}|{{ title }}</p>`,
    "pages/explode.html": "{{ no_such_function() }}",
  }, {
    metadata: {
      databases: { "my data": { queries: QUERIES, tables: { plain: { allow: false } } } },
    },
  });
  const { svc, dir } = site;
  const quiet = console.error;
  console.error = () => {};
  try {
    const notFound = await svc.client.get("/my+data/nope");
    assert.equal(notFound.status, 404);
    assert.match(notFound.text, /<p id="e">404\.html\|404\|Table not found: [^|]+\|<\/p>/);
    assert.equal(considered(notFound.text), "*404.html, error.html");
    assert.equal(bodyClass(notFound.text), "error error-404");

    const forbidden = await svc.client.get("/my+data/plain");
    assert.equal(forbidden.status, 403);
    assert.match(forbidden.text, /<p id="e">error\.html\|403\|/);
    assert.equal(considered(forbidden.text), "403.html, *error.html");

    const bad = await svc.client.get("/my+data/my+table~2F2024?_size=nope");
    assert.equal(bad.status, 400);
    assert.match(bad.text, /<p id="e">error\.html\|400\|_size must be a positive integer\|/);

    {
      await using interrupted = new Service({
        files: [`${dir}/my data.db`],
        template_dir: `${dir}/templates`,
        settings: { sql_time_limit_ms: 20, num_sql_threads: 0 },
      });
      const slow = await interrupted.client.get(
        "/my+data/my+table~2F2024?_where=" + encodeURIComponent(
          "(with recursive c(x) as (select 1 union all select x + 1 from c) " +
            "select count(*) from c) > 0",
        ),
      );
      assert.equal(slow.status, 400);
      assert.match(slow.text, /\|SQL Interrupted<\/p>/, "the title reaches the template");
    }

    const crash = await svc.client.get("/explode");
    assert.equal(crash.status, 500);
    assert.match(crash.text, /<p id="e">500\.html\|500\|/);
    assert.equal(considered(crash.text), "*500.html, error.html");
  } finally {
    console.error = quiet;
  }
});

Deno.test("body classes for every page kind follow the SPEC table", async () => {
  await using site = service();
  const { svc } = site;
  const cases: [string, string][] = [
    ["/", "index"],
    ["/my+data", `db db-${DB}`],
    ["/my+data?sql=select+1", `query db-${DB}`],
    ["/my+data/q~20one", `query db-${DB} query-${QUERY}`],
    ["/my+data/q2", `query db-${DB} query-q2`],
    ["/my+data/my+table~2F2024", `table db-${DB} table-${TABLE}`],
    ["/my+data/plain_view", `table db-${DB} table-plain_view`],
    ["/my+data/my+table~2F2024/1", `row db-${DB} table-${TABLE}`],
  ];
  for (const [path, expected] of cases) {
    const html = (await svc.client.get(path)).text;
    assert.equal(bodyClass(html), expected, path);
  }
});

Deno.test("table, row and query cells carry col-<column>; header cells scope=col", async () => {
  await using site = service();
  const { svc } = site;
  const pages = [
    "/my+data/my+table~2F2024",
    "/my+data/my+table~2F2024/1",
    "/my+data?sql=" + encodeURIComponent("select id, name, [odd col] from [my table/2024]"),
  ];
  for (const path of pages) {
    const html = (await svc.client.get(path)).text;
    for (const column of ["id", "name", "odd col"]) {
      const cls = `col-${cssClass(column)}`;
      assert.match(html, new RegExp(`<th class="${cls}" scope="col"`), `${path} ${column}`);
      assert.match(html, new RegExp(`<td class="${cls}[ "]`), `${path} ${column}`);
    }
    assert.match(html, /class="col-odd-col-[0-9a-f]{6}"/, path);
    const headers = [...html.matchAll(/<th\b[^>]*>/g)].map((m) => m[0]);
    assert.ok(headers.length >= 3, path);
    for (const th of headers) assert.match(th, /scope="col"/, `${path}: ${th}`);
  }
});

Deno.test("extra_css_urls and extra_js_urls from metadata, with sri and module", async () => {
  await using site = service({}, {
    metadata: {
      extra_css_urls: ["/static/one.css", { url: "https://cdn.example/two.css", sri: "sha384-AB" }],
      extra_js_urls: [
        "/static/plain.js",
        { url: "/static/mod.js", module: true },
        { url: "https://cdn.example/lib.js", sri: "sha384-CD" },
      ],
    },
  });
  const { svc } = site;
  for (const path of ["/", "/my+data", "/my+data/plain", "/my+data/plain/1"]) {
    const html = (await svc.client.get(path)).text;
    const head = html.slice(0, html.indexOf("</head>"));
    assert.match(head, /<link rel="stylesheet" href="\/static\/one\.css">/, path);
    assert.match(
      head,
      /<link rel="stylesheet" href="https:\/\/cdn\.example\/two\.css" integrity="sha384-AB" crossorigin="anonymous">/,
      path,
    );
    assert.match(head, /<script nonce="[^"]+" src="\/static\/plain\.js"><\/script>/, path);
    assert.match(
      head,
      /<script nonce="[^"]+" type="module" src="\/static\/mod\.js"><\/script>/,
      path,
    );
    assert.match(
      head,
      /<script nonce="[^"]+" src="https:\/\/cdn\.example\/lib\.js" integrity="sha384-CD" crossorigin="anonymous"><\/script>/,
      path,
    );
  }
});

Deno.test("description is escaped, description_html is not; licence, source, about per level", async () => {
  await using site = service({}, {
    metadata: {
      title: "Instance <T>",
      description: "instance <b>plain</b>",
      license: "ODbL",
      license_url: "https://license.example/",
      source: "Instance source",
      source_url: "https://source.example/",
      about: "About us",
      about_url: "https://about.example/",
      databases: {
        "my data": {
          description_html: "<em>database html</em>",
          license: "CC-BY",
          queries: {
            ...QUERIES,
            q2: { sql: "select 1", description: "query <i>plain</i>" },
            q3: { sql: "select 2", description_html: "<u>query html</u>" },
          },
          tables: {
            plain: { description: "table <s>plain</s>", source: "Table source", about: "T" },
          },
        },
      },
    },
  });
  const { svc } = site;
  const index = (await svc.client.get("/")).text;
  assert.match(index, /instance &lt;b&gt;plain&lt;\/b&gt;/);
  assert.match(index, /<a href="https:\/\/license\.example\/">ODbL<\/a>/);
  assert.match(index, /<a href="https:\/\/source\.example\/">Instance source<\/a>/);
  assert.match(index, /<a href="https:\/\/about\.example\/">About us<\/a>/);

  const database = (await svc.client.get("/my+data")).text;
  assert.match(database, /<em>database html<\/em>/);
  assert.doesNotMatch(database, /instance &lt;b&gt;/, "descriptions are not inherited");
  // The database's licence has no URL: the instance's URL must not be paired with it.
  assert.match(database, /Data licence: CC-BY/);
  assert.doesNotMatch(database, /license\.example/);
  assert.match(database, /<a href="https:\/\/source\.example\/">Instance source<\/a>/);

  const table = (await svc.client.get("/my+data/plain")).text;
  assert.match(table, /table &lt;s&gt;plain&lt;\/s&gt;/);
  assert.match(table, /Data source: Table source/);
  assert.match(table, /About: T\b/);
  assert.match(table, /Data licence: CC-BY/);

  assert.match((await svc.client.get("/my+data/q2")).text, /query &lt;i&gt;plain&lt;\/i&gt;/);
  assert.match((await svc.client.get("/my+data/q3")).text, /<u>query html<\/u>/);
});

Deno.test("custom pages end with the comment unless they declare a non-HTML type", async () => {
  await using site = service({
    "pages/about.html": `{% extends "base.html" %}{% block content %}About{% endblock %}`,
    "pages/robots.txt.html": `{{ custom_header("content-type", "text/plain") }}User-agent: *`,
  });
  const { svc } = site;
  const about = await svc.client.get("/about");
  assert.equal(considered(about.text), "*pages/about.html");
  const robots = await svc.client.get("/robots.txt");
  assert.equal(robots.status, 200);
  assert.equal(robots.headers.get("content-type"), "text/plain");
  assert.equal(robots.text, "User-agent: *");
});

/** Every href/src/action/formaction value of a page. */
function links(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src|action|formaction)="([^"]*)"/g)].map((m) =>
    m[1].replaceAll("&amp;", "&")
  );
}

Deno.test("under base_url /prefix/ every link of every page kind stays under the prefix", async () => {
  await using site = service({
    "pages/about.html":
      `{% extends "base.html" %}{% block content %}<a href="{{ urls.path('my+data') }}">db</a>` +
      `{% endblock %}`,
  }, {
    crossdb: true,
    settings: { base_url: "/prefix/", default_page_size: 1 },
    metadata: {
      license: "L",
      license_url: "https://license.example/",
      databases: {
        "my data": {
          queries: {
            ...QUERIES,
            hidden: { sql: "select 1", hide_sql: true },
            add: { sql: "insert into plain (label) values (:label)", write: true },
          },
        },
      },
    },
  });
  const { svc, dir } = site;
  const start = [
    "/prefix/",
    "/prefix/about",
    "/prefix/my+data?sql=select+*+from+plain+where+id+%3D+%3Aid&id=1",
    "/prefix/my+data/q~20one?label=one",
    "/prefix/my+data/add",
    "/prefix/my+data/hidden",
    "/prefix/my+data/plain?_facet=label&_sort=label",
    "/prefix/my+data/plain?label__exact=one&_where=id>0",
    "/prefix/my+data/plain_view",
    "/prefix/my+data?_show_hidden=1",
    "/prefix/_memory?sql=select+1",
    "/prefix/nope",
    "/prefix/my+data/plain/99",
    "/prefix/-/messages",
    "/prefix/-/allow-debug",
    "/prefix/-/logout",
    "/prefix/-/settings",
  ];
  const seen = new Set<string>();
  const queue = [...start];
  const problems: string[] = [];
  const kinds = new Set<string>();
  while (queue.length && seen.size < 400) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const response = await svc.client.get(path);
    const location = response.headers.get("location");
    if (location && !location.startsWith("/prefix/") && !/^https?:/.test(location)) {
      problems.push(`${path}: redirects to ${location}`);
    }
    const alternate = response.headers.get("link");
    if (alternate && !alternate.includes("://localhost/prefix/")) {
      problems.push(`${path}: Link ${alternate}`);
    }
    if (!(response.headers.get("content-type") ?? "").startsWith("text/html")) continue;
    const cls = bodyClass(response.text);
    if (cls) kinds.add(cls.split(" ")[0]);
    for (const url of links(response.text)) {
      if (url.startsWith("#") || /^(?:https?:|mailto:)/.test(url)) {
        if (url.startsWith("http://localhost") && !url.startsWith("http://localhost/prefix/")) {
          problems.push(`${path}: ${url}`);
        }
        continue;
      }
      if (!url.startsWith("/prefix/")) {
        problems.push(`${path}: ${url}`);
        continue;
      }
      const local = url.replace(/^https?:\/\/localhost/, "");
      if (!local.includes("/-/static") && !local.endsWith(".db")) queue.push(local);
    }
  }
  // Pages only a signed-in actor sees (the menu with its logout form, the debug tools).
  {
    await using root = new Service({
      files: [`${dir}/my data.db`],
      root: true,
      settings: { base_url: "/prefix/" },
    });
    for (const path of ["/prefix/-/permissions", "/prefix/-/create-token", "/prefix/my+data"]) {
      const response = await root.client.get(path, {
        cookies: { ds_actor: root.sign({ a: { id: "root" } }, "actor") },
      });
      assert.equal(response.status, 200, path);
      assert.match(response.text, /action="\/prefix\/-\/logout"/, path);
      for (const url of links(response.text)) {
        if (!url.startsWith("#") && !/^https?:/.test(url) && !url.startsWith("/prefix/")) {
          problems.push(`${path} (root): ${url}`);
        }
      }
    }
  }
  assert.deepEqual(problems, []);
  for (const kind of ["index", "db", "query", "table", "row", "error"]) {
    assert.ok(kinds.has(kind), `the crawl reached a ${kind} page`);
  }
  assert.ok(seen.size > 40, `crawled ${seen.size} pages`);
});
