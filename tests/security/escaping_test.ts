/**
 * Hostile text from every source a page shows — table, column and canned-query names, cell values,
 * metadata, facet values, search terms, SQL and error messages, flash messages, debug-page input —
 * is escaped: no page contains markup an attacker wrote.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";
import { signedIn, submitForm } from "../views/_auth_helpers.ts";

const X = (tag: string) => `<script>alert('${tag}')</script>`;
const TABLE = X("table");
const COLUMN = "<img src=x onerror=alert(1)>";

function buildEvilDb(): string {
  const path = `${Deno.makeTempDirSync({ prefix: "vitrine-evil-" })}/evil.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
  try {
    conn.exec(`
      create table ${quote(TABLE)} (id integer primary key, ${quote(COLUMN)} text);
      insert into ${quote(TABLE)} values (1, '${X("cell").replaceAll("'", "''")}');
      create table notes (id integer primary key, body text, kind text);
      insert into notes values (1, '<svg onload=alert(2)>', '${X("facet").replaceAll("'", "''")}');
      create virtual table notes_fts using fts5(body, content="notes", content_rowid="id");
      insert into notes_fts (notes_fts) values ('rebuild');
    `);
  } finally {
    conn.close();
  }
  return path;
}

function evilService(): Service {
  return new Service({
    files: [buildEvilDb()],
    secret: "s",
    metadata: {
      title: X("title"),
      description: X("description"),
      license: X("license"),
      databases: {
        evil: {
          description: X("db"),
          tables: { notes: { title: X("table-title"), facets: ["kind"] } },
          queries: {
            q: { sql: "select :p as p", title: X("query-title"), description: X("query") },
            w: {
              sql: "insert into notes (body) values (:body)",
              write: true,
              on_success_message: X("flash"),
            },
          },
        },
      },
      permissions: { "permissions-debug": { id: "admin" } },
    },
  });
}

const RAW_MARKUP = /<script>alert|<img src=x|<svg onload/;

function assertEscaped(html: string, where: string): void {
  const match = RAW_MARKUP.exec(html);
  assert.equal(
    match,
    null,
    `${where}: raw markup near ${html.slice((match?.index ?? 0) - 80, (match?.index ?? 0) + 80)}`,
  );
}

const tableUrl = "/evil/~3Cscript~3Ealert~28~27table~27~29~3C~2Fscript~3E";
const hostile = encodeURIComponent(X("input"));

Deno.test("database, table, row, query and error pages escape hostile names and values", async () => {
  await using svc = evilService();
  const pages = [
    "/",
    "/evil",
    tableUrl,
    `${tableUrl}/1`,
    "/evil/notes",
    "/evil/notes?_facet=kind",
    `/evil/notes?_search=${hostile}`,
    `/evil/notes?kind=${hostile}`,
    `/evil/notes?_sort=${hostile}`,
    "/evil/notes/1",
    "/evil/q",
    `/evil/q?p=${hostile}`,
    "/evil/w",
    `/evil?sql=${encodeURIComponent("select :v as v")}&v=${hostile}`,
    `/evil?sql=${encodeURIComponent(`selec ${X("bad-sql")}`)}`,
    `/evil/${hostile}`,
    `/-/allow-debug?actor=${hostile}&allow=${hostile}`,
    `/-/allow-debug?actor=${encodeURIComponent(JSON.stringify({ id: X("actor") }))}`,
    "/-/logout",
  ];
  const cookies = signedIn(svc, { id: X("signed-in") });
  for (const page of pages) {
    const response = await svc.client.get(page, { cookies, follow_redirects: true });
    assert.ok(response.status < 500, `${page} answered ${response.status}`);
    assertEscaped(response.text, page);
  }
});

Deno.test("flash messages and the permissions debug page escape what they echo", async () => {
  await using svc = evilService();
  const written = await submitForm(svc, "/evil/w", { body: "x" });
  assert.equal(written.status, 302);
  const next = await svc.client.get("/", { cookies: written.cookies });
  assert.match(next.text, /&lt;script&gt;alert\(&#39;flash&#39;\)/);
  assertEscaped(next.text, "page after a flash message");

  const admin = signedIn(svc, { id: "admin" });
  const checked = await submitForm(svc, "/-/permissions", {
    actor: JSON.stringify({ id: X("tested-actor") }),
    permission: "view-table",
    resource_1: X("db"),
    resource_2: X("table"),
  }, admin);
  assert.equal(checked.status, 200);
  assertEscaped(checked.text, "/-/permissions after a check");
});
