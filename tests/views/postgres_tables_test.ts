/**
 * Creating and altering tables on PostgreSQL, against a real throw-away cluster: `/-/create` from
 * rows, pasted CSV and with foreign keys, `"alter": true` on inserts, and `/-/alter` in place.
 * Each request goes to a SQLite file and to a PostgreSQL database of the same tables and gets the
 * same answer, but for what differs by design (the schema text, PostgreSQL's types); what
 * PostgreSQL holds afterwards is read from its catalogs. Ignored when PostgreSQL is not installed.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { pgAvailable, type PgCluster, startCluster } from "../fixtures/pg_cluster.ts";
import { events } from "../fixtures/plugins/event_log.ts";

const EVENT_LOG = new URL("../fixtures/plugins/event_log.ts", import.meta.url).pathname;

const HAVE_PG = pgAvailable("PostgreSQL table tests");

const TABLES = `
create table owners (id int primary key, name text);
insert into owners values (1, 'ann'), (2, 'bob');
create table pets (id int primary key, name text, owner_id int, weight text);
insert into pets values (1, 'rex', 1, '12'), (2, 'tom', 2, 'heavy');
create table pairs (a int, b int, c text, primary key (a, b));
insert into pairs values (1, 1, 'x'), (2, 1, 'y');
create table counters (id int primary key, n text default '5');
insert into counters values (1, '12');
`;

const ACTIONS = ["insert-row", "update-row", "create-table", "alter-table"];
const METADATA = {
  databases: {
    app: { permissions: Object.fromEntries(ACTIONS.map((action) => [action, { id: "ann" }])) },
  },
};

interface Pair {
  sqlite: Service;
  pg: Service;
  /** The same PostgreSQL database with two schemas served: tables are `schema.table`. */
  schemas: Service;
  cluster: PgCluster;
}

function post(svc: Service, path: string, body: unknown) {
  return svc.client.post(path, {
    body: JSON.stringify(body),
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${svc.create_token("ann")}`,
    },
  });
}

/** Posts to both; asserts the status on each; returns both JSON answers. */
async function both(pair: Pair, path: string, body: unknown, status: number) {
  const lite = await post(pair.sqlite, path, body);
  const pg = await post(pair.pg, path, body);
  assert.equal(lite.status, status, `SQLite: ${lite.text}`);
  assert.equal(pg.status, status, `PostgreSQL: ${pg.text}`);
  return { lite: lite.json<Record<string, unknown>>(), pg: pg.json<Record<string, unknown>>() };
}

/** {@link both}, and the answers equal but for the keys each engine words its own way. */
async function same(pair: Pair, path: string, body: unknown, status: number, own: string[] = []) {
  const { lite, pg } = await both(pair, path, body, status);
  const without = (answer: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(answer).filter(([key]) => !own.includes(key)));
  assert.deepEqual(without(pg), without(lite));
  return { lite, pg };
}

async function psql(cluster: PgCluster, sql: string): Promise<string> {
  return (await cluster.psql(`copy (${sql}) to stdout`, "app")).trim();
}

/** A table's columns as the catalog has them: name, type, nullable, default, one per line. */
function columnsOf(cluster: PgCluster, table: string): Promise<string> {
  return psql(
    cluster,
    "select column_name, data_type, is_nullable, column_default from information_schema.columns " +
      `where table_name = '${table}' order by ordinal_position`,
  );
}

/** Everything the catalogs say of a table: columns, constraints, indexes, grants. */
function catalogOf(cluster: PgCluster, table: string): Promise<string> {
  return psql(
    cluster,
    `select 'column', a.attnum::text || ' ' || a.attname || ' ' ||
        format_type(a.atttypid, a.atttypmod) || ' ' || a.attnotnull::text || ' ' ||
        coalesce(pg_get_expr(d.adbin, d.adrelid), '-')
      from pg_attribute a left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
      where a.attrelid = '${table}'::regclass and a.attnum > 0
    union all select 'constraint', conname || ' ' || pg_get_constraintdef(oid)
      from pg_constraint where conrelid = '${table}'::regclass
    union all select 'index', indexdef from pg_indexes where tablename = '${table}'
    union all select 'grant', coalesce(relacl::text, '-') from pg_class where relname = '${table}'
    order by 1, 2`,
  );
}

/** Rows of a table read back through each service's JSON API, as arrays. */
async function rowsOf(pair: Pair, table: string) {
  const read = async (svc: Service) =>
    (await svc.client.get(`/app/${table}.json?_shape=array`)).json();
  return { lite: await read(pair.sqlite), pg: await read(pair.pg) };
}

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
      {
        table: "visits",
        columns: [
          { name: "id", type: "integer" },
          { name: "owner_id", type: "integer" },
          { name: "vet", type: "text", default: "dr. who" },
          { name: "at", type: "text", default_expr: "current_timestamp" },
          { name: "stamp", type: "integer", default_expr: "current_unixtime" },
        ],
        pk: "id",
        foreign_keys: [{ column: "owner_id", fk_table: "owners" }],
      },
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
  name: "PostgreSQL: create from rows, CSV and with foreign keys; alter in place",
  ignore: !HAVE_PG,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const cluster = await startCluster();
    const dir = await Deno.makeTempDir();
    const services: Service[] = [];
    try {
      await cluster.psql("create database app");
      await cluster.psql(TABLES, "app");
      const path = `${dir}/app.db`;
      const out = await new Deno.Command("sqlite3", { args: [path, TABLES] }).output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
      const svc = (options: ConstructorParameters<typeof Service>[0]) => {
        const service = new Service({ metadata: METADATA, secret: "pg-tables", ...options });
        services.push(service);
        return service;
      };
      const pair: Pair = {
        sqlite: svc({ files: [path], plugins: [EVENT_LOG] }),
        pg: svc({ postgres: [`app=${cluster.url("app")}`], plugins: [EVENT_LOG] }),
        schemas: svc({
          postgres: [`app=${cluster.url("app")}`],
          postgres_schemas: ["public", "reports"],
        }),
        cluster,
      };
      for (const service of services) await service.invoke_startup();
      await t.step("create", (t) => createSteps(t, pair));
      await t.step("alter", (t) => alterSteps(t, pair));
      await t.step("several schemas: tables named schema.table", () => schemaSteps(pair));
    } finally {
      for (const service of services) await service.close();
      await cluster.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
