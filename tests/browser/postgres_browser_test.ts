/**
 * The demo's pages in Chromium with its data in PostgreSQL (issue 43): index, database, a table
 * with facets (column, date and array) and search, a row, a canned query and custom SQL. The
 * demo is copied from its SQLite file into a throw-away cluster started when this module loads and
 * stopped by its last test.
 */
import assert from "node:assert/strict";
import { browserTest, chromiumPath } from "./browser.ts";
import { bodyClasses, columnValues, textOf, typeSql } from "./pages.ts";
import { Service } from "../../src/service.ts";
import { parse_metadata } from "../../src/config/metadata.ts";
import { pgBinDir, type PgCluster, startCluster } from "../fixtures/pg_cluster.ts";
import { sqliteToPostgres } from "../fixtures/sqlite_to_postgres.ts";

const RUN = chromiumPath !== null && pgBinDir() !== null;
if (chromiumPath && !pgBinDir()) {
  console.warn("PostgreSQL browser tests ignored: PostgreSQL is not installed");
}

/** The demo in a new cluster, and its metadata with search over the FTS table's columns. */
async function demoInPostgres(): Promise<{ cluster: PgCluster; metadata: unknown }> {
  const dir = await Deno.makeTempDir({ prefix: "vitrine-demo-pg-" });
  const path = `${dir}/demo.db`;
  const build = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-lock",
      new URL("../../demo/build.ts", import.meta.url).pathname,
      path,
    ],
    stdout: "null",
  }).output();
  if (build.code !== 0) throw new Error(new TextDecoder().decode(build.stderr));
  const copy = sqliteToPostgres(path);
  await Deno.remove(dir, { recursive: true });
  const cluster = await startCluster();
  await cluster.psql("create database demo");
  await cluster.psql(copy.tables, "demo");
  for (const view of copy.views) await cluster.psql(view.sql, "demo");
  const metadata = parse_metadata(
    await Deno.readTextFile(new URL("../../demo/metadata.yaml", import.meta.url)),
  ) as { databases: Record<string, { tables: Record<string, Record<string, unknown>> }> };
  for (const [table, columns] of Object.entries(copy.search)) {
    metadata.databases.demo.tables[table] ??= {};
    metadata.databases.demo.tables[table].search_columns = columns;
  }
  return { cluster, metadata };
}

const demo = RUN ? await demoInPostgres() : null;

const service = () =>
  new Service({
    postgres: [`demo=${demo!.cluster.url("demo")}`],
    metadata: demo!.metadata as Record<string, unknown>,
  });

browserTest(
  "PostgreSQL: index, database, table with facets and search, row, canned query, custom SQL",
  async (page, base) => {
    await page.goto(`${base}/`);
    assert.equal(await page.title(), "Alderbrook street trees");
    await page.locator('a[href="/demo"]').first().click();
    await page.waitForURL(`${base}/demo`);
    assert.deepEqual(await bodyClasses(page), ["db", "db-demo"]);
    assert.match(await textOf(page, "main") ?? "", /trees/);

    await page.locator('a[href="/demo/trees"]').first().click();
    await page.waitForURL(`${base}/demo/trees`);
    const main = await textOf(page, "main") ?? "";
    assert.match(main, /1,500 rows/);
    // The configured facets, with the neighbourhoods' labels through the foreign key.
    assert.match(main, /Old Mill/);

    // A date facet and an array facet, then one of the array's values as a filter.
    await page.goto(`${base}/demo/trees?_facet_date=planted&_facet_array=tags`);
    const planted = page.locator('section.facet[data-column="planted"] .facet-values li a');
    assert.match(await planted.first().textContent() ?? "", /^\d{4}-\d{2}-\d{2}$/);
    const tag = page.locator('section.facet[data-column="tags"] .facet-values li a').first();
    const value = (await tag.textContent() ?? "").trim();
    assert.ok(value, "an array facet value");
    await Promise.all([page.waitForURL(/tags__arraycontains=/), tag.click()]);
    assert.match(await textOf(page, "main") ?? "", new RegExp(`tags contains "${value}"`));
    assert.equal(
      await page.locator('section.facet[data-column="tags"] li.selected strong').textContent(),
      value,
    );

    // Search over the columns the SQLite demo's FTS table indexes.
    await page.goto(`${base}/demo/trees?_search=oak`);
    assert.match(await textOf(page, "main") ?? "", /search matches "oak"/);

    await page.goto(`${base}/demo/trees`);
    await page.locator("table.rows-and-columns tbody td.col-id a").first().click();
    await page.waitForURL(/\/demo\/trees\/\d+$/);
    assert.deepEqual(await bodyClasses(page), ["row", "db-demo", "table-trees"]);

    await page.goto(`${base}/demo/trees_by_species`);
    await page.fill('input[name="species"]', "Rowan");
    await Promise.all([
      page.waitForURL(/species=Rowan/),
      page.press('input[name="species"]', "Enter"),
    ]);
    assert.ok((await columnValues(page, "address")).length > 0);

    await page.goto(`${base}/demo`);
    await typeSql(page, "select common_name from species where native = 1 order by 1");
    await page.getByRole("button", { name: "Run SQL" }).click();
    await page.waitForURL(/sql=select/);
    assert.deepEqual((await columnValues(page, "common_name")).slice(0, 2), [
      "English oak",
      "Hornbeam",
    ]);
  },
  service,
);

Deno.test({
  name: "browser: PostgreSQL cluster stopped",
  ignore: !RUN,
  fn: async () => {
    await demo?.cluster.stop();
  },
});
