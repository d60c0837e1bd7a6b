/**
 * Creating tables on PostgreSQL, against a real throw-away cluster: `/-/create` from rows, pasted
 * CSV and with foreign keys, `"alter": true` on inserts, and tables named `schema.table`. Each
 * request goes to a SQLite file and to a PostgreSQL database of the same tables and gets the same
 * answer, but for what differs by design (the schema text, PostgreSQL's types); what PostgreSQL
 * holds afterwards is read from its catalogs. Altering them: `postgres_alter_test.ts`. Ignored when
 * PostgreSQL is not installed.
 */
import assert from "node:assert/strict";
import type { Service } from "../../src/service.ts";
import { events } from "../fixtures/plugins/event_log.ts";
import {
  both,
  columnsOf,
  HAVE_PG,
  type Pair,
  post,
  psql,
  rowsOf,
  same,
  VISITS,
  withPair,
} from "./_postgres_pair.ts";

async function createSteps(t: Deno.TestContext, pair: Pair): Promise<void> {
  await t.step("create from rows: same answer, PostgreSQL's types, rows inserted", async () => {
    const rows = [
      { id: 1, title: "Dune", score: 4.5, tags: ["sf"], done: true },
      { id: 2, title: "Emma", score: 3, tags: null, done: false },
    ];
    const { pg } = await same(
      pair,
      "/app/-/create",
      { table: "books", rows, pk: "id" },
      201,
      ["schema"],
    );
    assert.equal(pg.row_count, 2);
    assert.match(String(pg.schema), /"id" bigint PRIMARY KEY/);
    assert.equal(
      await columnsOf(pair.cluster, "books"),
      [
        "id\tbigint\tNO\t\\N",
        "title\ttext\tYES\t\\N",
        "score\tdouble precision\tYES\t\\N",
        "tags\ttext\tYES\t\\N",
        "done\tbigint\tYES\t\\N",
      ].join("\n"),
    );
    const { lite, pg: pgRows } = await rowsOf(pair, "books");
    assert.deepEqual(pgRows, lite);
    assert.deepEqual(pgRows, [
      { id: 1, title: "Dune", score: 4.5, tags: '["sf"]', done: 1 },
      { id: 2, title: "Emma", score: 3, tags: null, done: 0 },
    ]);
  });

  await t.step("create from pasted CSV: the importer's types, rows inserted", async () => {
    const csv = "code,price,label\nA1,1.5,first\nB2,20,second\n";
    const { pg } = await same(pair, "/app/-/create", { table: "prices", csv }, 201, ["schema"]);
    assert.equal(pg.row_count, 2);
    assert.equal(
      await columnsOf(pair.cluster, "prices"),
      ["code\ttext\tYES\t\\N", "price\tdouble precision\tYES\t\\N", "label\ttext\tYES\t\\N"]
        .join("\n"),
    );
    const tsv = "n\tword\n1\tone\n2\ttwo\n";
    await same(
      pair,
      "/app/-/create",
      {
        table: "words",
        csv: tsv,
        columns: [{ name: "num", type: "integer", not_null: true }, { name: "text" }],
        pk: "num",
      },
      201,
      ["schema"],
    );
    assert.equal(
      await psql(pair.cluster, "select num, text from words order by num"),
      "1\tone\n2\ttwo",
    );
  });

  await t.step("create with foreign keys: the same checks and messages", async () => {
    const { pg } = await same(
      pair,
      "/app/-/create",
      VISITS,
      201,
      ["schema"],
    );
    assert.match(String(pg.schema), /FOREIGN KEY \("owner_id"\) REFERENCES "owners"\("id"\)/);
    assert.equal(
      await psql(
        pair.cluster,
        "select pg_get_constraintdef(oid) from pg_constraint " +
          "where conrelid = 'visits'::regclass and contype = 'f'",
      ),
      "FOREIGN KEY (owner_id) REFERENCES owners(id)",
    );
    // The defaults work: an insert of only the key gets them.
    await same(pair, "/app/visits/-/insert", { row: { id: 1, owner_id: 1 } }, 201, ["rows"]);
    assert.match(
      await psql(pair.cluster, "select vet, at, stamp > 1700000000 from visits"),
      /^dr\. who\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d.*\tt$/,
    );
    // A broken key is refused by the server (400), and the table holds nothing new.
    const broken = await post(pair.pg, "/app/visits/-/insert", { row: { id: 2, owner_id: 99 } });
    assert.equal(broken.status, 400, broken.text);
    assert.match(broken.text, /violates foreign key constraint/);
    for (
      const [fk, message] of [
        [{ column: "pet_id", fk_table: "nowhere" }, /Foreign key on pet_id: there is no table/],
        [
          { column: "pet_id", fk_table: "pets", fk_column: "name" },
          /Foreign key on pet_id: pets.name is neither its primary key nor unique/,
        ],
        [{ column: "pet_id", fk_table: "pets", fk_column: "nope" }, /pets has no column nope/],
      ] as const
    ) {
      const { pg } = await same(pair, "/app/-/create", {
        table: "bad_fk",
        columns: [{ name: "pet_id", type: "integer" }],
        foreign_keys: [fk],
      }, 400);
      assert.match(JSON.stringify(pg), message);
    }
    assert.equal(
      await psql(pair.cluster, "select count(*) from pg_tables where tablename = 'bad_fk'"),
      "0",
    );
  });

  await t.step("create: registered column types, rows into a table that exists", async () => {
    await same(
      pair,
      "/app/-/create",
      {
        table: "contacts",
        columns: [{ name: "id", type: "integer" }, { name: "mail", column_type: "email" }],
        pk: "id",
      },
      201,
      ["schema"],
    );
    const types = await pair.pg.client.get("/app/contacts.json?_extra=column_types");
    assert.deepEqual(types.json<{ column_types: unknown }>().column_types, {
      mail: { type: "email", config: null },
    });
    const body = { table: "contacts", rows: [{ id: 1, mail: "a@example.com" }], pk: "id" };
    await same(pair, "/app/-/create", body, 201, ["schema"]);
    // A taken key: each engine's own words, as for /-/insert.
    const taken = await both(pair, "/app/-/create", body, 400);
    assert.match(
      String(taken.pg.error),
      /duplicate key value .*\(Key \(id\)=\(1\) already exists\)/,
    );
    await same(pair, "/app/-/create", { ...body, ignore: true }, 201, ["schema"]);
    const replaced = { ...body, rows: [{ id: 1, mail: "b@example.com" }], replace: true };
    await same(pair, "/app/-/create", replaced, 201, ["schema"]);
    const { lite, pg } = await rowsOf(pair, "contacts");
    assert.deepEqual(pg, lite);
    assert.deepEqual(pg, [{ id: 1, mail: "b@example.com" }]);
  });

  await t.step("create dry run: PostgreSQL's statement, nothing kept", async () => {
    const { pg } = await same(
      pair,
      "/app/-/create",
      {
        table: "later",
        rows: [{ a: 1, b: "x" }],
        dry_run: true,
      },
      200,
      ["schema", "statements"],
    );
    assert.deepEqual(pg.statements, [
      'CREATE TABLE "later" (\n   "a" bigint,\n   "b" text\n)',
    ]);
    assert.equal(
      await psql(pair.cluster, "select count(*) from pg_tables where tablename = 'later'"),
      "0",
    );
  });

  await t.step('"alter": true adds missing columns on create, insert, upsert, update', async () => {
    // Each request to SQLite, then to PostgreSQL, with the events each sent (the event_log
    // plugin is loaded into both): the same events, alter-table among them when columns came.
    const sentBy = async (svc: Service, path: string, body: unknown, status: number) => {
      const mark = events.length;
      const response = await post(svc, path, body);
      assert.equal(response.status, status, response.text);
      return events.slice(mark);
    };
    const alike = async (path: string, body: unknown, status: number, added: string[]) => {
      const lite = await sentBy(pair.sqlite, path, body, status);
      const pg = await sentBy(pair.pg, path, body, status);
      const schemas = ["before_schema", "after_schema"];
      const shape = (sent: typeof events) =>
        sent.map(({ name, properties }) => ({
          name,
          properties: Object.fromEntries(
            Object.entries(properties).filter(([key]) => !schemas.includes(key)),
          ),
        }));
      assert.deepEqual(shape(pg), shape(lite));
      assert.deepEqual(
        pg.map((event) => Object.keys(event.properties).sort()),
        lite.map((event) => Object.keys(event.properties).sort()),
      );
      const alter = pg.filter((event) => event.name === "alter-table");
      assert.equal(alter.length, added.length ? 1 : 0, `${path}: ${JSON.stringify(pg)}`);
      if (!added.length) return;
      // PostgreSQL's schemas are its definitions from the catalogs, before and after the write.
      const { before_schema, after_schema } = alter[0].properties as Record<string, string>;
      assert.match(before_schema, /^CREATE TABLE "public"\."books" \(/);
      for (const column of added) {
        assert.doesNotMatch(before_schema, new RegExp(`"${column}"`));
        assert.match(after_schema, new RegExp(`\n  "${column}" \\w`));
      }
      for (const line of before_schema.split("\n").filter((line) => line.startsWith("  "))) {
        assert.ok(after_schema.includes(line.replace(/,$/, "")), `${line} kept`);
      }
    };
    await alike(
      "/app/-/create",
      { table: "books", rows: [{ id: 3, title: "Ulysses", pages: 730 }], pk: "id", alter: true },
      201,
      ["pages"],
    );
    await alike(
      "/app/books/-/insert",
      { rows: [{ id: 4, title: "Kim", price: 9.5 }], alter: true },
      201,
      ["price"],
    );
    await alike("/app/books/-/upsert", { rows: [{ id: 4, isbn: "978" }], alter: true }, 200, [
      "isbn",
    ]);
    await alike("/app/books/4/-/update", { update: { note: "good" }, alter: true }, 200, ["note"]);
    // "alter" that adds nothing changes no schema: no alter-table on either engine.
    await alike("/app/books/4/-/update", { update: { note: "fine" }, alter: true }, 200, []);
    await alike("/app/books/-/insert", { rows: [{ id: 6, title: "Nana" }], alter: true }, 201, []);
    // A write that fails after adding its column keeps neither, and sends no event.
    const failed = await sentBy(
      pair.pg,
      "/app/books/-/insert",
      { rows: [{ id: 6, title: "again", extra: 1 }], alter: true },
      400,
    );
    assert.deepEqual(failed, []);
    assert.equal(
      await columnsOf(pair.cluster, "books"),
      [
        "id\tbigint\tNO\t\\N",
        "title\ttext\tYES\t\\N",
        "score\tdouble precision\tYES\t\\N",
        "tags\ttext\tYES\t\\N",
        "done\tbigint\tYES\t\\N",
        "pages\tbigint\tYES\t\\N",
        "price\tdouble precision\tYES\t\\N",
        "isbn\ttext\tYES\t\\N",
        "note\ttext\tYES\t\\N",
      ].join("\n"),
    );
    const { lite, pg } = await rowsOf(pair, "books");
    assert.deepEqual(pg, lite);
    // Without "alter", an unknown column is still refused the same way.
    await same(pair, "/app/books/-/insert", { rows: [{ id: 5, other: 1 }] }, 400);
  });
}

async function schemaSteps(pair: Pair): Promise<void> {
  await pair.cluster.psql("create schema reports", "app");
  const created = await post(pair.schemas, "/app/-/create", {
    table: "reports.monthly",
    columns: [{ name: "month", type: "text" }, { name: "owner", type: "integer" }],
    pk: "month",
    foreign_keys: [{ column: "owner", fk_table: "public.owners" }],
  });
  assert.equal(created.status, 201, created.text);
  assert.match(
    created.text,
    /CREATE TABLE \\"reports\\".\\"monthly\\"[\s\S]*REFERENCES \\"public\\".\\"owners\\"/,
  );
  // A dot in a table's name is tilde-encoded in its URL.
  const monthly = String(pair.schemas.urls.table("app", "reports.monthly"));
  const altered = await post(pair.schemas, `${monthly}/-/alter`, {
    operations: [
      { op: "add_column", args: { name: "total", type: "real", default: 0 } },
      { op: "drop_foreign_key", args: { column: "owner" } },
      { op: "rename_table", args: { to: "yearly" } },
    ],
  });
  assert.equal(altered.status, 200, altered.text);
  assert.equal(altered.json<{ table: string }>().table, "reports.yearly");
  assert.equal(
    await psql(
      pair.cluster,
      "select table_schema, column_name, data_type from information_schema.columns " +
        "where table_name = 'yearly' order by ordinal_position",
    ),
    "reports\tmonth\ttext\nreports\towner\tbigint\nreports\ttotal\tdouble precision",
  );
  const yearly = String(pair.schemas.urls.table("app", "reports.yearly", { format: "json" }));
  assert.equal((await pair.schemas.client.get(yearly)).status, 200);
}

Deno.test({
  name: "PostgreSQL: create from rows, CSV and with foreign keys; tables of several schemas",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: (t) =>
    withPair(async (pair) => {
      await t.step("create", (t) => createSteps(t, pair));
      await t.step("several schemas: tables named schema.table", () => schemaSteps(pair));
    }),
});
