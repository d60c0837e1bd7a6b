/**
 * Altering tables on PostgreSQL in place (`/-/alter`), against a real throw-away cluster: each
 * request goes to a SQLite file and to a PostgreSQL database of the same tables and gets the same
 * answer, but for the SQL; what PostgreSQL holds afterwards is read from its catalogs. Ignored when
 * PostgreSQL is not installed.
 */
import assert from "node:assert/strict";
import { events } from "../fixtures/plugins/event_log.ts";
import {
  both,
  catalogOf,
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

async function alterSteps(t: Deno.TestContext, pair: Pair): Promise<void> {
  const path = "/app/pets/-/alter";
  await t.step("alter: every in-place operation, the same answer but the SQL", async () => {
    const operations = [
      { op: "rename_column", args: { name: "name", to: "pet_name" } },
      { op: "add_column", args: { name: "born", type: "text", default: "unknown" } },
      { op: "alter_column", args: { name: "pet_name", not_null: true, default: "?" } },
      { op: "add_foreign_key", args: { column: "owner_id", fk_table: "owners" } },
    ];
    const mark = events.length;
    const { pg } = await same(
      pair,
      path,
      { operations, dry_run: true },
      200,
      ["schema", "before_schema", "statements"],
    );
    assert.deepEqual(pg.statements, [
      'ALTER TABLE "pets" RENAME COLUMN "name" TO "pet_name"',
      `ALTER TABLE "pets" ADD COLUMN "born" text DEFAULT 'unknown'`,
      `ALTER TABLE "pets" ALTER COLUMN "pet_name" SET DEFAULT '?'`,
      'ALTER TABLE "pets" ALTER COLUMN "pet_name" SET NOT NULL',
      'ALTER TABLE "pets" ADD CONSTRAINT "pets_owner_id_fkey" FOREIGN KEY ("owner_id") ' +
      'REFERENCES "owners" ("id")',
    ]);
    assert.match(String(pg.schema), /"pet_name" text NOT NULL DEFAULT '\?'::text/);
    // The dry run kept nothing.
    assert.match(await columnsOf(pair.cluster, "pets"), /^id\tinteger\tNO\t\\N\nname\t/);
    const applied = await same(pair, path, { operations }, 200, [
      "schema",
      "before_schema",
      "statements",
    ]);
    assert.equal(applied.pg.operations_applied, 4);
    // The alter-table event, with both schemas, from each engine (the dry run sent none).
    const sent = events.slice(mark).filter((event) => event.name === "alter-table");
    assert.equal(sent.length, 2);
    for (const [event, answer] of [[sent[0], applied.lite], [sent[1], applied.pg]] as const) {
      assert.equal(event.properties.table, "pets");
      assert.equal(event.properties.before_schema, answer.before_schema);
      assert.equal(event.properties.after_schema, answer.schema);
    }
    assert.equal(
      await columnsOf(pair.cluster, "pets"),
      [
        "id\tinteger\tNO\t\\N",
        "pet_name\ttext\tNO\t'?'::text",
        "owner_id\tinteger\tYES\t\\N",
        "weight\ttext\tYES\t\\N",
        "born\ttext\tYES\t'unknown'::text",
      ].join("\n"),
    );
    // Served at once with the new columns and the new label link.
    const { lite, pg: rows } = await rowsOf(pair, "pets");
    assert.deepEqual(rows, lite);
    const page = await pair.pg.client.get("/app/pets.json?_labels=on&_shape=array");
    assert.deepEqual(page.json<Record<string, unknown>[]>()[0].owner_id, {
      value: 1,
      label: "ann",
    });
  });

  await t.step("alter: a retype that changes stored values says which, as on SQLite", async () => {
    const create = {
      table: "codes",
      pk: "id",
      rows: [
        { id: 1, name: "0042", book: "12" },
        { id: 2, name: "12", book: "1.50" },
        { id: 3, name: "007", book: "2.0" },
      ],
    };
    await both(pair, "/app/-/create", create, 201);
    const operations = [
      { op: "alter_column", args: { name: "name", type: "integer" } },
      { op: "alter_column", args: { name: "book", type: "float" } },
    ];
    const own = ["schema", "before_schema", "statements"];
    const { pg } = await same(pair, "/app/codes/-/alter", { operations, dry_run: true }, 200, own);
    assert.deepEqual(pg.changed_values, [
      { column: "name", rows: 2, before: "0042", after: 42 },
      { column: "book", rows: 1, before: "1.50", after: 1.5 },
    ]);
    // The dry run kept the text, and a change that converts nothing reports nothing.
    assert.equal(await psql(pair.cluster, "select name from codes where id = 1"), "0042");
    const ids = [{ op: "alter_column", args: { name: "id", type: "float" } }];
    const none = await same(
      pair,
      "/app/codes/-/alter",
      { operations: ids, dry_run: true },
      200,
      own,
    );
    assert.deepEqual(none.pg.changed_values, []);
  });

  await t.step("alter: retype, primary key, drop, rename the table", async () => {
    await pair.cluster.psql("create index pets_born on pets (born)", "app");
    const before = await catalogOf(pair.cluster, "pets");
    assert.match(before, /pets_born/);
    await same(
      pair,
      path,
      {
        operations: [
          { op: "alter_column", args: { name: "owner_id", type: "text" } },
          { op: "drop_foreign_key", args: { column: "owner_id" } },
          { op: "drop_column", args: { name: "born" } },
          { op: "set_primary_key", args: { columns: ["id", "pet_name"] } },
          { op: "rename_table", args: { to: "animals" } },
        ],
      },
      200,
      ["schema", "before_schema", "statements"],
    );
    assert.deepEqual(events.at(-1), {
      name: "rename-table",
      properties: { database: "app", old_table: "pets", new_table: "animals" },
    });
    const after = await catalogOf(pair.cluster, "animals");
    assert.match(after, /column\t3 owner_id text false/);
    assert.match(after, /constraint\tpets_pkey PRIMARY KEY \(id, pet_name\)/);
    assert.doesNotMatch(after, /FOREIGN KEY|born/);
    const { lite, pg } = await rowsOf(pair, "animals");
    assert.deepEqual(pg, lite);
  });

  await t.step("alter: drop a default, NOT NULL on and off, replace the foreign keys", async () => {
    const path = "/app/visits/-/alter";
    const own = ["schema", "before_schema", "statements"];
    const { pg } = await same(
      pair,
      path,
      {
        operations: [
          { op: "alter_column", args: { name: "vet", default: null, not_null: true } },
          { op: "set_foreign_keys", args: { foreign_keys: [] } },
        ],
      },
      200,
      own,
    );
    assert.deepEqual(pg.statements, [
      'ALTER TABLE "visits" DROP CONSTRAINT "visits_owner_id_fkey"',
      'ALTER TABLE "visits" ALTER COLUMN "vet" DROP DEFAULT',
      'ALTER TABLE "visits" ALTER COLUMN "vet" SET NOT NULL',
    ]);
    assert.match(await columnsOf(pair.cluster, "visits"), /\nvet\ttext\tNO\t\\N\n/);
    assert.doesNotMatch(await catalogOf(pair.cluster, "visits"), /FOREIGN KEY/);
    await same(
      pair,
      path,
      {
        operations: [
          { op: "alter_column", args: { name: "vet", not_null: false } },
          {
            op: "set_foreign_keys",
            args: { foreign_keys: [{ column: "owner_id", fk_table: "owners" }] },
          },
        ],
      },
      200,
      own,
    );
    assert.match(await columnsOf(pair.cluster, "visits"), /\nvet\ttext\tYES\t\\N\n/);
    assert.match(
      await catalogOf(pair.cluster, "visits"),
      /visits_owner_id_fkey FOREIGN KEY \(owner_id\) REFERENCES owners\(id\)/,
    );
  });

  await t.step("alter: a retype keeps the column's default, converted", async () => {
    const response = await post(pair.pg, "/app/counters/-/alter", {
      operations: [{ op: "alter_column", args: { name: "n", type: "integer" } }],
    });
    assert.equal(response.status, 200, response.text);
    await pair.cluster.psql("insert into counters (id) values (2)", "app");
    assert.equal(
      await psql(pair.cluster, "select id, n, pg_typeof(n) from counters order by id"),
      "1\t12\tbigint\n2\t5\tbigint",
    );
  });

  await t.step("alter: dropping a column of a compound key keeps the key's others", async () => {
    await same(
      pair,
      "/app/pairs/-/alter",
      {
        operations: [{ op: "drop_column", args: { name: "b" } }],
      },
      200,
      ["schema", "before_schema", "statements"],
    );
    assert.match(
      await catalogOf(pair.cluster, "pairs"),
      /constraint\tpairs_pkey PRIMARY KEY \(a\)/,
    );
    const { lite, pg } = await rowsOf(pair, "pairs");
    assert.deepEqual(pg, lite);
    // And a key set after the drop in the same request replaces it.
    await same(
      pair,
      "/app/pairs/-/alter",
      {
        operations: [
          { op: "add_column", args: { name: "d", type: "integer", not_null: true, default: 0 } },
          { op: "drop_column", args: { name: "a" } },
          { op: "set_primary_key", args: { columns: ["c"] } },
        ],
      },
      200,
      ["schema", "before_schema", "statements"],
    );
    assert.match(
      await catalogOf(pair.cluster, "pairs"),
      /constraint\tpairs_pkey PRIMARY KEY \(c\)/,
    );
  });

  await t.step("alter: a failed alter leaves the table exactly as it was", async () => {
    await pair.cluster.psql(
      "create index animals_weight on animals (weight); grant select on animals to public",
      "app",
    );
    const before = await catalogOf(pair.cluster, "animals");
    // The last operation fails (a value does not convert) after three that succeeded.
    const response = await post(pair.pg, "/app/animals/-/alter", {
      operations: [
        { op: "add_column", args: { name: "extra", type: "integer" } },
        { op: "rename_column", args: { name: "pet_name", to: "called" } },
        { op: "drop_column", args: { name: "owner_id" } },
        { op: "alter_column", args: { name: "weight", type: "integer" } },
      ],
    });
    assert.equal(response.status, 400, response.text);
    const error = response.json<{ errors: string[] }>();
    assert.match(
      JSON.stringify(error),
      /Column weight cannot become bigint: invalid input syntax for type bigint: \\"heavy\\"/,
    );
    assert.equal(await catalogOf(pair.cluster, "animals"), before);
  });

  await t.step("alter: reordering columns is refused before anything runs", async () => {
    const before = await catalogOf(pair.cluster, "animals");
    const response = await post(pair.pg, "/app/animals/-/alter", {
      operations: [
        { op: "add_column", args: { name: "extra", type: "integer" } },
        { op: "reorder_columns", args: { columns: ["weight"] } },
      ],
    });
    assert.equal(response.status, 400, response.text);
    assert.match(
      response.text,
      /Operation 2 \(reorder_columns\): PostgreSQL cannot change the order of a table's columns/,
    );
    assert.equal(await catalogOf(pair.cluster, "animals"), before);
  });

  await t.step("alter: what other tables and views depend on is refused (400)", async () => {
    await pair.cluster.psql(
      // visits.owner_id references owners.id already (made by the create steps).
      "create view heavy as select id, weight from animals",
      "app",
    );
    const before = await catalogOf(pair.cluster, "owners") +
      await catalogOf(pair.cluster, "animals");
    const key = await post(pair.pg, "/app/owners/-/alter", {
      operations: [{ op: "set_primary_key", args: { columns: ["name"] } }],
    });
    assert.equal(key.status, 400, key.text);
    assert.match(key.text, /other objects depend on it/);
    const dropped = await post(pair.pg, "/app/animals/-/alter", {
      operations: [{ op: "drop_column", args: { name: "weight" } }],
    });
    assert.equal(dropped.status, 400, dropped.text);
    assert.match(dropped.text, /view heavy depends on column weight/);
    assert.equal(
      await catalogOf(pair.cluster, "owners") + await catalogOf(pair.cluster, "animals"),
      before,
    );
  });

  await t.step(
    "alter: a table another query reads is busy (503) after the time limit",
    async () => {
      const before = await catalogOf(pair.cluster, "counters");
      // Another session reads the table for 4 seconds (an export would, for longer).
      const reader = pair.cluster.psql(
        "begin; lock table counters in access share mode; select pg_sleep(4); commit;",
        "app",
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      const started = Date.now();
      const response = await post(pair.pg, "/app/counters/-/alter", {
        operations: [{ op: "add_column", args: { name: "extra" } }],
      });
      const waited = Date.now() - started;
      assert.equal(response.status, 503, response.text);
      assert.match(response.text, /The table is in use/);
      // The default sql_time_limit_ms is 1000: it gave up then, not when the reader finished.
      assert.ok(waited < 3000, `waited ${waited} ms`);
      await reader;
      assert.equal(await catalogOf(pair.cluster, "counters"), before);
    },
  );

  await t.step("alter: the same checks as SQLite's, in the same words", async () => {
    for (
      const operations of [
        [{ op: "drop_column", args: { name: "nope" } }],
        [{ op: "add_column", args: { name: "weight" } }],
        [{ op: "alter_column", args: { name: "weight", type: "money" } }],
        [{ op: "add_foreign_key", args: { column: "weight", fk_table: "nowhere" } }],
      ]
    ) {
      await same(pair, "/app/animals/-/alter", { operations }, 400);
    }
  });
}

/** Create, alter and rename a table of a second schema, with a key to the first's. */
Deno.test({
  name: "PostgreSQL: alter in place",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: (t) =>
    withPair(async (pair) => {
      // The table with a foreign key and defaults the alter steps change, made as the create
      // tests make it.
      await both(pair, "/app/-/create", VISITS, 201);
      await both(pair, "/app/visits/-/insert", { row: { id: 1, owner_id: 1 } }, 201);
      await t.step("alter", (t) => alterSteps(t, pair));
    }),
});
