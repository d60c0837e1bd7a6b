/**
 * The create-table and alter-table pages on a PostgreSQL database, in Chromium at both sizes:
 * the preview shows PostgreSQL's statements and changes nothing, applying them does, and what the
 * server holds afterwards is read from its catalogs. The alter page has no move buttons there.
 * A throw-away cluster is started when this module loads and stopped by its last test.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { browserTest, chromiumPath } from "./browser.ts";
import { overflowsHorizontally, textOf } from "./pages.ts";
import { Service } from "../../src/service.ts";
import { encodeActorCookie } from "../../src/auth/actor_cookie.ts";
import { pgBinDir, type PgCluster, startCluster } from "../fixtures/pg_cluster.ts";

const RUN = chromiumPath !== null && pgBinDir() !== null;
if (chromiumPath && !pgBinDir()) {
  console.warn("PostgreSQL table page tests ignored: PostgreSQL is not installed");
}

const EDITOR = { id: "editor" };
const SIZES = [[1280, 900], [390, 844]] as const;

async function appCluster(): Promise<PgCluster> {
  const cluster = await startCluster();
  await cluster.psql("create database app");
  const pets = SIZES.map(([width]) =>
    `create table pets_${width} (id int primary key, name text, owner_id int, weight text);
    insert into pets_${width} values (1, 'rex', 1, '12'), (2, 'tom', 2, '7');`
  ).join("\n");
  await cluster.psql(
    `create table owners (id int primary key, name text);
    insert into owners values (1, 'ann'), (2, 'bob');
    ${pets}`,
    "app",
  );
  return cluster;
}

const cluster = RUN ? await appCluster() : null;

let current: Service;
function editorService(): Service {
  const permissions = Object.fromEntries(
    ["create-table", "insert-row", "alter-table"].map((action) => [action, EDITOR]),
  );
  current = new Service({
    postgres: [`app=${cluster!.url("app")}`],
    metadata: { databases: { app: { permissions } } },
  });
  return current;
}

/** What the server answers `sql` with, a line per row, tabs between values. */
async function psql(sql: string): Promise<string> {
  return (await cluster!.psql(`copy (${sql}) to stdout`, "app")).trim();
}

function columnsOf(table: string): Promise<string> {
  return psql(
    "select column_name, data_type, is_nullable, column_default from information_schema.columns " +
      `where table_name = '${table}' order by ordinal_position`,
  );
}

function keysOf(table: string): Promise<string> {
  return psql(
    "select pg_get_constraintdef(oid) from pg_constraint " +
      `where conrelid = '${table}'::regclass order by contype, conname`,
  );
}

async function openAs(page: Page, base: string, width: number, height: number, path: string) {
  await page.setViewportSize({ width, height });
  await page.context().addCookies([
    { name: "ds_actor", value: encodeActorCookie(current.signer, EDITOR), url: base },
  ]);
  await page.goto(`${base}${path}`);
}

for (const [width, height] of SIZES) {
  browserTest(
    `PostgreSQL: create table at ${width}x${height}, with a key and a foreign key, then from pasted rows`,
    async (page, base) => {
      const table = `visits_${width}`;
      await openAs(page, base, width, height, "/-/create-table?database=app");
      assert.match(
        (await textOf(page, ".create-columns-help"))!,
        /In app \(PostgreSQL\) the types become PostgreSQL's: integer is bigint/,
      );
      await page.getByLabel("Table name").fill(table);
      const columns = page.locator(".create-column");
      await columns.nth(0).getByLabel("Name").fill("id");
      await columns.nth(0).getByLabel("Type").selectOption("integer");
      await columns.nth(0).getByLabel("primary key").check();
      await page.getByRole("button", { name: "Add column" }).click();
      await columns.nth(1).getByLabel("Name").fill("owner_id");
      await columns.nth(1).getByLabel("Type").selectOption("integer");
      await columns.nth(1).getByLabel("References").selectOption({ label: "owners.id" });
      await page.getByRole("button", { name: "Add column" }).click();
      await columns.nth(2).getByLabel("Name").fill("note");
      await columns.nth(2).getByLabel("NOT NULL").check();
      await columns.nth(2).getByLabel("Default").fill("none");

      await page.getByRole("button", { name: "Preview SQL" }).click();
      await page.locator(".create-preview").waitFor();
      const statement = `CREATE TABLE "${table}" (\n` +
        '   "id" bigint PRIMARY KEY,\n' +
        '   "owner_id" bigint,\n' +
        `   "note" text NOT NULL DEFAULT 'none',\n` +
        '   FOREIGN KEY ("owner_id") REFERENCES "owners"("id")\n)';
      assert.equal(await page.locator(".create-statements").textContent(), statement + ";");
      assert.equal(await columnsOf(table), "", "the preview created nothing");
      assert.equal(await overflowsHorizontally(page), false);

      await page.getByRole("button", { name: "Create table" }).click();
      await page.waitForURL(`${base}/app/${table}`);
      assert.equal(await textOf(page, ".messages .message-info"), `Table ${table} created`);
      assert.equal(
        await columnsOf(table),
        ["id\tbigint\tNO\t\\N", "owner_id\tbigint\tYES\t\\N", "note\ttext\tNO\t'none'::text"]
          .join("\n"),
      );
      assert.equal(
        await keysOf(table),
        "FOREIGN KEY (owner_id) REFERENCES owners(id)\nPRIMARY KEY (id)",
      );

      // Pasted rows: their columns typed as the importer types them, the rows inserted.
      await page.goto(`${base}/-/create-table?database=app`);
      await page.getByLabel("Table name").fill(`parts_${width}`);
      await page.getByText("Start from pasted rows").click();
      await page.getByLabel("Pasted rows").fill("code\tprice\tstock\nA7\t1.5\t10\nB2\t2\t\n");
      await page.getByRole("button", { name: "Read columns" }).click();
      await page.getByText("3 columns and 2 rows read.").waitFor();
      await columns.nth(0).getByLabel("primary key").check();
      await page.getByRole("button", { name: "Preview SQL" }).click();
      await page.getByText("Then 2 rows are inserted, in the same transaction.").waitFor();
      assert.match(
        (await page.locator(".create-statements").textContent())!,
        /"price" double precision,\n {3}"stock" bigint/,
      );
      await page.getByRole("button", { name: "Create table" }).click();
      await page.waitForURL(`${base}/app/parts_${width}`);
      assert.equal(
        await psql(`select code, price, stock from parts_${width} order by code`),
        "A7\t1.5\t10\nB2\t2\t\\N",
      );
    },
    editorService,
  );

  browserTest(
    `PostgreSQL: alter table at ${width}x${height}: rename, retype, default, foreign key; no moves`,
    async (page, base) => {
      const table = `pets_${width}`;
      await openAs(page, base, width, height, `/app/${table}`);
      await page.locator(".actions-menu summary").click();
      await page.getByRole("link", { name: "Alter table" }).click();
      await page.waitForURL(`${base}/app/${table}/-/alter-table`);
      // PostgreSQL cannot move a column: no move buttons, and the help says why.
      assert.equal(await page.getByRole("button", { name: "Move up" }).count(), 0);
      assert.match((await textOf(page, ".write-help"))!, /cannot be moved/);
      const row = (name: string) =>
        page.locator(".alter-column", { has: page.locator(`input[name=name][value=${name}]`) });
      await row("name").getByLabel("Name").fill("pet_name");
      await row("name").getByLabel("Default").fill("unnamed");
      await row("weight").getByLabel("Type").selectOption("INTEGER");
      await row("owner_id").getByLabel("References").selectOption({ label: "owners.id" });
      assert.equal(await overflowsHorizontally(page), false);

      const before = await columnsOf(table);
      await page.getByRole("button", { name: "Preview change" }).click();
      await page.locator(".alter-preview").waitFor();
      const statements = (await textOf(page, ".alter-statements"))!;
      assert.match(statements, new RegExp(`^ALTER TABLE "${table}" RENAME COLUMN "name" TO`));
      assert.match(statements, /ALTER COLUMN "weight" TYPE bigint USING "weight"::bigint/);
      assert.match(statements, /SET DEFAULT 'unnamed'/);
      assert.match(statements, /FOREIGN KEY \("owner_id"\) REFERENCES "owners" \("id"\)/);
      assert.match((await textOf(page, ".alter-schema"))!, /"weight" bigint/);
      assert.equal(await columnsOf(table), before, "the preview changed nothing");

      await page.getByRole("button", { name: "Apply change" }).click();
      await page.waitForURL(`${base}/app/${table}`);
      assert.equal(await textOf(page, ".messages .message-info"), `Table ${table} altered`);
      assert.equal(
        await columnsOf(table),
        [
          "id\tinteger\tNO\t\\N",
          "pet_name\ttext\tYES\t'unnamed'::text",
          "owner_id\tinteger\tYES\t\\N",
          "weight\tbigint\tYES\t\\N",
        ].join("\n"),
      );
      assert.match(await keysOf(table), /FOREIGN KEY \(owner_id\) REFERENCES owners\(id\)/);
      assert.equal(await psql(`select weight from ${table} order by id`), "12\n7");

      // The page shows the table as it is now; a retype PostgreSQL refuses is explained.
      await page.goto(`${base}/app/${table}/-/alter-table`);
      assert.equal(await row("pet_name").getByLabel("Default").inputValue(), "unnamed");
      await row("pet_name").getByLabel("Type").selectOption("INTEGER");
      await page.getByRole("button", { name: "Preview change" }).click();
      await page.locator(".write-error").waitFor();
      assert.match(
        (await textOf(page, ".write-error"))!,
        /Column pet_name cannot become bigint: invalid input syntax for type bigint: "rex"/,
      );
      assert.equal(
        await psql(
          `select data_type from information_schema.columns where table_name = '${table}' ` +
            "and column_name = 'pet_name'",
        ),
        "text",
      );
    },
    editorService,
  );
}

Deno.test({
  name: "browser: PostgreSQL table pages' cluster stopped",
  ignore: !RUN,
  fn: async () => {
    await cluster?.stop();
  },
});
