import assert from "node:assert/strict";
import { TemplateEnvironment } from "../../src/render/environment.ts";
import { findCustomPage, renderCustomPage } from "../../src/render/custom_page_templates.ts";

async function withPages(
  files: Record<string, string>,
  fn: (dir: string, env: TemplateEnvironment) => void | Promise<void>,
) {
  const dir = await Deno.makeTempDir();
  try {
    for (const [name, text] of Object.entries(files)) {
      const path = `${dir}/pages/${name}`;
      await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await Deno.writeTextFile(path, text);
    }
    await fn(dir, new TemplateEnvironment({ templateDirs: [dir] }));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("findCustomPage() maps URL paths to pages/, nested dirs included", async () => {
  await withPages({ "about.html": "About", "about/map.html": "Map" }, (dir) => {
    assert.deepEqual(findCustomPage("/about", [dir]), { template: "pages/about.html", vars: {} });
    assert.deepEqual(findCustomPage("/about/map", [dir]), {
      template: "pages/about/map.html",
      vars: {},
    });
    assert.deepEqual(findCustomPage("/about/", [dir])?.template, "pages/about.html");
    assert.equal(findCustomPage("/missing", [dir]), null);
    assert.equal(findCustomPage("/", [dir]), null);
    assert.equal(findCustomPage("/../secret", [dir]), null);
  });
});

Deno.test("{variable} file and dir names capture values; exact names win", async () => {
  await withPages({
    "about/{slug}.html": "slug page",
    "about/team.html": "team page",
    "people/{person}/{topic}.html": "nested",
  }, (dir) => {
    assert.deepEqual(findCustomPage("/about/history", [dir]), {
      template: "pages/about/{slug}.html",
      vars: { slug: "history" },
    });
    assert.equal(findCustomPage("/about/team", [dir])?.template, "pages/about/team.html");
    assert.deepEqual(findCustomPage("/people/ada/engines", [dir])?.vars, {
      person: "ada",
      topic: "engines",
    });
    assert.deepEqual(findCustomPage("/about/a%20b", [dir])?.vars, { slug: "a b" });
  });
});

Deno.test("renderCustomPage() renders with variables, default 200 and no headers", async () => {
  await withPages({ "about/{slug}.html": "<h1>{{ slug }}</h1>" }, (dir, env) => {
    const match = findCustomPage("/about/<b>", [dir])!;
    const result = renderCustomPage(env, match, {});
    assert.ok(!("notFound" in result));
    assert.equal(result.status, 200);
    assert.deepEqual(result.headers, {});
    assert.equal(result.redirect, null);
    assert.match(result.html, /^<h1>&lt;b&gt;<\/h1>/);
  });
});

Deno.test("custom_status and custom_header change the response", async () => {
  await withPages({
    "teapot.html": "{{ custom_status(418) }}{{ custom_header('X-Teapot', 'yes') }}I am a teapot",
  }, (dir, env) => {
    const result = renderCustomPage(env, findCustomPage("/teapot", [dir])!, {});
    assert.ok(!("notFound" in result));
    assert.equal(result.status, 418);
    assert.deepEqual(result.headers, { "x-teapot": "yes" });
    assert.match(result.html, /^I am a teapot/);
  });
});

Deno.test("custom_redirect sends 302 by default and 301 when asked", async () => {
  await withPages({
    "old.html": "{{ custom_redirect('/new') }}ignored",
    "moved.html": "{{ custom_redirect('/elsewhere', 301) }}",
  }, (dir, env) => {
    const temporary = renderCustomPage(env, findCustomPage("/old", [dir])!, {});
    assert.ok(!("notFound" in temporary));
    assert.equal(temporary.status, 302);
    assert.equal(temporary.redirect, "/new");
    assert.equal(temporary.headers.location, "/new");
    assert.equal(temporary.html, "");
    const permanent = renderCustomPage(env, findCustomPage("/moved", [dir])!, {});
    assert.ok(!("notFound" in permanent));
    assert.equal(permanent.status, 301);
  });
});

Deno.test("raise_404 discards the page and reports the message", async () => {
  await withPages({
    "things/{name}.html":
      "before{% if name != 'known' %}{{ raise_404('No such thing: ' ~ name) }}{% endif %}after",
  }, (dir, env) => {
    const missing = renderCustomPage(env, findCustomPage("/things/other", [dir])!, {});
    assert.deepEqual(missing, { notFound: "No such thing: other" });
    const found = renderCustomPage(env, findCustomPage("/things/known", [dir])!, {});
    assert.ok(!("notFound" in found));
    assert.match(found.html, /^beforeafter/);
  });
});
