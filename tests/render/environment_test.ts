import assert from "node:assert/strict";
import { TemplateEnvironment, TemplateNotFound } from "../../src/render/environment.ts";
import { Markup } from "../../src/util/markup.ts";
import { Request } from "../../src/http/request.ts";

async function tempDir(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir();
  for (const [name, text] of Object.entries(files)) {
    const path = `${dir}/${name}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  return dir;
}

const DEFAULTS = {
  "base.html":
    "<title>{% block title %}Base{% endblock %}</title>{% block content %}{% endblock %}",
  "table.html":
    '{% extends "base.html" %}{% block content %}<p>default table {{ table }}</p>{% endblock %}',
};

Deno.test("a user template extends default:table.html and calls super()", async () => {
  const defaults = await tempDir(DEFAULTS);
  const user = await tempDir({
    "table.html":
      '{% extends "default:table.html" %}{% block content %}<h1>custom</h1>{{ super() }}{% endblock %}',
  });
  try {
    const env = new TemplateEnvironment({ templateDirs: [user], defaultDir: defaults });
    const { html, template } = env.render("table.html", { table: "products" });
    assert.equal(template, "table.html");
    assert.match(html, /^<title>Base<\/title><h1>custom<\/h1><p>default table products<\/p>/);
  } finally {
    await Deno.remove(defaults, { recursive: true });
    await Deno.remove(user, { recursive: true });
  }
});

Deno.test("render() picks the first existing candidate and lists all in the comment", async () => {
  const defaults = await tempDir(DEFAULTS);
  const user = await tempDir({ "table-shop-products.html": "specific" });
  try {
    const env = new TemplateEnvironment({ templateDirs: [user], defaultDir: defaults });
    const special = env.render(["table-shop-products.html", "table.html"], {});
    assert.equal(
      special.html,
      "specific\n<!-- Templates considered: *table-shop-products.html, table.html -->",
    );
    const fallback = env.render(["table-shop-other.html", "table.html"], { table: "x" });
    assert.equal(fallback.template, "table.html");
    assert.ok(
      fallback.html.endsWith("<!-- Templates considered: table-shop-other.html, *table.html -->"),
    );
    assert.throws(() => env.render(["nope.html"]), TemplateNotFound);
  } finally {
    await Deno.remove(defaults, { recursive: true });
    await Deno.remove(user, { recursive: true });
  }
});

Deno.test("plugin template dirs sit between user dirs and defaults", async () => {
  const defaults = await tempDir({ "a.html": "default-a", "b.html": "default-b", "c.html": "d-c" });
  const plugin = await tempDir({ "a.html": "plugin-a", "b.html": "plugin-b" });
  const user = await tempDir({ "a.html": "user-a" });
  try {
    const env = new TemplateEnvironment({ templateDirs: [user], defaultDir: defaults });
    env.addPluginTemplateDir(plugin);
    const text = (name: string) => env.renderString(`{% include "${name}" %}`, {});
    assert.equal(text("a.html"), "user-a");
    assert.equal(text("b.html"), "plugin-b");
    assert.equal(text("c.html"), "d-c");
    assert.equal(text("default:a.html"), "default-a");
    assert.equal(env.exists("../etc/passwd"), false);
  } finally {
    for (const d of [defaults, plugin, user]) await Deno.remove(d, { recursive: true });
  }
});

Deno.test("values are autoescaped, Markup and |safe are not", () => {
  const env = new TemplateEnvironment();
  const out = env.renderString("{{ a }}|{{ b }}|{{ c|safe }}|{{ b|e }}|{{ a|e }}", {
    a: "<script>alert('x')</script>",
    b: new Markup("<em>ok</em>"),
    c: "<i>trusted</i>",
  });
  assert.equal(
    out,
    "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;|<em>ok</em>|<i>trusted</i>|<em>ok</em>|" +
      "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;",
  );
});

Deno.test("Jinja-compatible filters, tests and dict methods work", () => {
  const env = new TemplateEnvironment();
  const render = (source: string, context: Record<string, unknown> = {}) =>
    env.renderString(source, context);
  assert.equal(
    render("{{ v|tojson }}", { v: { a: "</script>", n: 1 } }),
    '{"a":"\\u003c/script\\u003e","n":1}',
  );
  assert.equal(render("{{ 'a b&c'|quote_plus }}"), "a+b%26c");
  assert.equal(render("{{ {'x': 'a b'}|urlencode }}"), "x=a%20b");
  assert.equal(render("{{ 1234567|intcomma }} {{ 1234.5|number_format }}"), "1,234,567 1,234.5");
  assert.equal(render("{{ 1536|format_bytes }} {{ 12|format_bytes }}"), "1.5 KB 12 bytes");
  assert.equal(
    render("{% if x is none %}none{% endif %}{% if y is none %}!{% endif %}", { x: null, y: 0 }),
    "none",
  );
  assert.equal(
    render("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}", { d: { a: 1, b: 2 } }),
    "a=1;b=2;",
  );
  assert.equal(render("{{ d.get('a') }}/{{ d.get('z', 'dflt') }}", { d: { a: 1 } }), "1/dflt");
  assert.equal(render("{{ rows|length }}", { rows: { length: 3 } }), "3");
  assert.equal(render("{{ 'my table'|to_css_class }}").startsWith("my-table-"), true);
  const request = { path: "/db/t", query_string: "_sort=a&_next=5&x=1" };
  assert.equal(
    render("{{ path_with_replaced_args(request, {'_sort': 'b', '_next': none}) }}", { request }),
    "/db/t?x=1&amp;_sort=b",
  );
});

Deno.test("csrftoken() comes from the context, empty without one", () => {
  const env = new TemplateEnvironment();
  assert.equal(env.renderString("[{{ csrftoken() }}]", {}), "[]");
  assert.equal(env.renderString("[{{ csrftoken() }}]", { csrftoken: () => "tok" }), "[tok]");
});

Deno.test("prepare_jinja2_environment-style hooks can add filters and globals on env", () => {
  const env = new TemplateEnvironment({ globals: { site: "Shop" } });
  env.env.addFilter("shout", (s: never) => String(s).toUpperCase());
  env.addGlobal("answer", 42);
  assert.equal(env.renderString("{{ site|shout }} {{ answer }}", {}), "SHOP 42");
});

Deno.test("path_with_* globals rewrite the query string of request.path", () => {
  const env = new TemplateEnvironment();
  // request.path keeps base_url, so the links stay under the prefix as they are.
  const request = Request.fake("/prefix/db/table?_sort=a&x=1");
  const source = `{{ path_with_replaced_args(request, {"_sort": "b"}) }} ` +
    `{{ path_with_added_args(request, {"y": 2}) }} {{ path_with_removed_args(request, ["x"]) }}`;
  assert.equal(
    env.renderString(source, { request }),
    "/prefix/db/table?x=1&amp;_sort=b /prefix/db/table?_sort=a&amp;x=1&amp;y=2 " +
      "/prefix/db/table?_sort=a",
  );
  assert.equal(
    env.renderString(`{{ path_with_added_args(page, {"y": 2}) }}`, {
      page: { path: "/prefix/db", query_string: "" },
    }),
    "/prefix/db?y=2",
  );
});

Deno.test("edited or newly added user templates are picked up without a restart", async () => {
  const defaults = await tempDir(DEFAULTS);
  const user = await tempDir({ "page.html": "first" });
  try {
    const env = new TemplateEnvironment({ templateDirs: [user], defaultDir: defaults });
    assert.match(env.render("page.html").html, /^first/);
    assert.match(env.render("page.html").html, /^first/);
    await Deno.writeTextFile(`${user}/page.html`, "second, longer");
    // mtime resolution can be coarse: make sure the edit has a different one.
    await Deno.utime(`${user}/page.html`, new Date(), new Date(Date.now() + 5000));
    assert.match(env.render("page.html").html, /^second, longer/);
    // A new override that shadows a default (which was already compiled and cached).
    assert.match(env.render("table.html", { table: "t" }).html, /default table t/);
    await Deno.writeTextFile(`${user}/table.html`, "user table");
    assert.match(env.render("table.html").html, /^user table/);
    // The base template a page extends is checked too.
    await Deno.writeTextFile(`${user}/base.html`, "<main>{% block content %}{% endblock %}</main>");
    assert.match(env.render("default:table.html", { table: "x" }).html, /^<main><p>/);
  } finally {
    await Deno.remove(defaults, { recursive: true });
    await Deno.remove(user, { recursive: true });
  }
});

Deno.test("precompile() compiles templates ahead of their first render (missing names skipped)", async () => {
  const defaults = await tempDir(DEFAULTS);
  try {
    const env = new TemplateEnvironment({ templateDirs: [], defaultDir: defaults });
    env.precompile(["table.html", "no-such.html"]);
    // The file changes after start: the page renders what was compiled then, which shows that
    // its first render read nothing (a page of a fresh server paid the compilation).
    await Deno.writeTextFile(`${defaults}/table.html`, "changed");
    const { html } = env.render("table.html", { table: "products" });
    assert.match(html, /^<title>Base<\/title><p>default table products<\/p>/);
  } finally {
    await Deno.remove(defaults, { recursive: true });
  }
});

Deno.test("warm() runs Vitrine's own templates once without data, never the user's, and never throws", async () => {
  const defaults = await tempDir({
    ...DEFAULTS,
    "table.html": '{% extends "base.html" %}{% block content %}{{ ran("default") }}{% endblock %}',
    "row.html": "{{ missing.deeper.call() }}",
  });
  const user = await tempDir({ "table.html": '{{ ran("user") }}' });
  try {
    const env = new TemplateEnvironment({ templateDirs: [user], defaultDir: defaults });
    const ran: string[] = [];
    env.addGlobal("ran", (who: string) => void ran.push(who));
    env.warm(["table.html", "row.html", "nowhere.html"]);
    assert.deepEqual(ran, ["default"]);
    // Pages still render the user's template, with their data.
    assert.equal(env.render("table.html", {}).template, "table.html");
    assert.deepEqual(ran, ["default", "user"]);
  } finally {
    await Deno.remove(defaults, { recursive: true });
    await Deno.remove(user, { recursive: true });
  }
});
