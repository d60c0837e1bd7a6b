/**
 * Issue 16 class 8: `/-/patterns`, the pattern portfolio — every component of the pages on one
 * page, drawn by the real partials (a `--template-dir` override shows there too), behind
 * `view-instance` like the reference's, HTML only, every script carrying the CSP nonce.
 */
import assert from "node:assert/strict";
import { referenceService } from "../fixtures/reference.ts";
import { signedIn } from "./_auth_helpers.ts";

/** Each component and a piece of markup only its partial draws. */
const COMPONENTS: [string, RegExp][] = [
  ["breadcrumbs", /<ol class="crumbs" aria-label="Breadcrumbs">\s*<li><a href="\/">home<\/a>/],
  ["menu with the actor", /<summary><span class="actor-id">Alice<\/span><\/summary>/],
  ["info message", /<p class="message message-info">/],
  ["warning message", /<p class="message message-warning">/],
  ["error message", /<p class="message message-error">/],
  ["private badge", /<span class="private-badge"/],
  ["actions menu", /<details class="actions-menu">\s*<summary>Table actions<\/summary>/],
  ["licence and source", /<p class="metadata-links">/],
  ["database summary", /<section class="database-summary">/],
  ["SQL editor box", /<textarea id="sql-editor" name="sql" class="sql-editor"/],
  ["tables list", /<section class="tables-list" aria-labelledby="tables">/],
  ["row count", /<h2 class="table-summary">1,234 rows where price &gt; 5/],
  ["filters form", /<form class="filters" action="\/example\/products"/],
  ["search box", /<input id="table-search" type="search" name="_search" value="steel"/],
  ["sort rows", /<span class="sort-label">then by<\/span>/],
  ["facets", /<section class="facet" data-column="category_id">/],
  ["facets timed out", /<p class="facets-timed-out"\s+role="status">Facets timed out: notes/],
  ["suggested facets", /<p class="suggested-facets">/],
  ["export menu", /<details class="export-menu">/],
  ["hidden columns", /<p class="hidden-columns-note"\s+role="status">2 columns hidden: url, notes/],
  ["descending sort arrow, first key", /&#9660;<sub class="sort-position">1<\/sub>/],
  ["ascending sort arrow, second key", /&#9650;<sub class="sort-position">2<\/sub>/],
  [
    "foreign key with its label",
    /<a href="\/example\/categories\/1">Kitchen<\/a>&nbsp;<em>1<\/em>/,
  ],
  [
    "BLOB download",
    /<a class="blob-download" href="\/example\/products\/3\.blob\?_blob_column=photo">/,
  ],
  ["pagination", /<p class="pagination"><a href="\/example\/products\?_next=3" rel="next">/],
  ["table definition", /<summary>Table definition<\/summary>/],
  ["stacked row", /<div class="pattern-row">[\s\S]*?role="table"/],
  ["links from other tables", /<section class="foreign-key-tables">/],
  ["insert form", /<details class="write-panel" id="insert-row">/],
  ["edit form", /<details class="write-panel" id="edit-row">/],
  ["canned query form", /<fieldset class="named-parameters">/],
  [
    "query error",
    /<div class="query-error" role="alert">\s*<p><strong>Error:<\/strong> no such column/,
  ],
  ["query results cut short", /<p class="query-summary">First 3 rows of 1,234/],
  ["error box", /<div class="error-message" role="alert">\s*<p>Table not found: prodcts/],
  ["footer", /<footer class="site-footer">[\s\S]*?queries took 12\.5 ms/],
];

Deno.test("/-/patterns shows every component, each drawn by its partial", async () => {
  await using svc = referenceService();
  const response = await svc.client.get("/-/patterns");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
  const html = response.text;
  for (const [name, markup] of COMPONENTS) assert.match(html, markup, name);
  assert.match(html, /<title>Pattern portfolio<\/title>/);
  assert.match(html, /<body class="patterns">/);
  // Under each sample, the line that includes its partial.
  assert.match(html, /<pre class="pattern-source"><code>\{% include &quot;_facets\.html&quot; %\}/);
  // The page is the reference's kind of page: no JSON twin.
  assert.doesNotMatch(html, /application\/json\+datasette/);
  assert.equal((await svc.client.get("/-/patterns.json")).status, 404);
});

Deno.test("/-/patterns keeps the CSP: every script carries the page's nonce", async () => {
  await using svc = referenceService();
  const response = await svc.client.get("/-/patterns");
  const policy = response.headers.get("content-security-policy") ?? "";
  const nonce = policy.match(/'nonce-([^']+)'/)?.[1];
  assert.ok(nonce, policy);
  const scripts = [...response.text.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  // app.js, table.js, sql-editor.js, the column menus, the code editor and write.js (twice).
  assert.ok(scripts.length >= 7, scripts.join("\n"));
  for (const tag of scripts) assert.ok(tag.includes(`nonce="${nonce}"`), tag);
  assert.ok(scripts.some((tag) => tag.includes("column-menu.js")));
  assert.ok(scripts.some((tag) => tag.includes("code-editor.js")));
});

Deno.test("/-/patterns draws a partial from --template-dir, not a copy of it", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-patterns-" });
  Deno.writeTextFileSync(
    `${dir}/_facets.html`,
    `<div class="my-facets">{% for f in sorted_facet_results %}{{ f.name }};{% endfor %}</div>`,
  );
  await using svc = referenceService({ template_dir: dir });
  const html = (await svc.client.get("/-/patterns")).text;
  assert.match(html, /<div class="my-facets">category_id;added;<\/div>/);
  assert.doesNotMatch(html, /<section class="facet"/);
});

Deno.test("/-/patterns needs view-instance; samples never touch the visitor's own page", async () => {
  await using denied = referenceService({ metadata: { allow: { id: "root" } } });
  assert.equal((await denied.client.get("/-/patterns")).status, 403);
  await using svc = referenceService();
  // The sample actor "Alice" is the sample's; the page's own header has no menu for a visitor.
  const html = (await svc.client.get("/-/patterns")).text;
  const pageHeader = html.slice(0, html.indexOf('<main class="content"'));
  assert.doesNotMatch(pageHeader, /nav-menu/);
  const bob = (await svc.client.get("/-/patterns", { cookies: signedIn(svc, { id: "bob" }) }))
    .text;
  const bobHeader = bob.slice(0, bob.indexOf('<main class="content"'));
  assert.match(bobHeader, /<span class="actor-id">bob<\/span>/);
});
