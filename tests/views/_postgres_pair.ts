/**
 * Two services on the same tables, one on a SQLite file and one on a PostgreSQL database of a
 * throw-away cluster (a third serves two of its schemas), for the tests that send each request to
 * both and compare the answers (`postgres_tables_test.ts`, `postgres_alter_test.ts`), and what they
 * read back from PostgreSQL's catalogs.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { pgAvailable, type PgCluster, startCluster } from "../fixtures/pg_cluster.ts";

const EVENT_LOG = new URL("../fixtures/plugins/event_log.ts", import.meta.url).pathname;

/** PostgreSQL is installed (the tests are ignored otherwise). */
export const HAVE_PG = pgAvailable("PostgreSQL table tests");

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

/** The services and the cluster behind them. */
export interface Pair {
  sqlite: Service;
  pg: Service;
  /** The same PostgreSQL database with two schemas served: tables are `schema.table`. */
  schemas: Service;
  cluster: PgCluster;
}

/** Posts `body` as JSON to `path` of `svc`, as the actor allowed every write. */
export function post(svc: Service, path: string, body: unknown) {
  return svc.client.post(path, {
    body: JSON.stringify(body),
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${svc.create_token("ann")}`,
    },
  });
}

/** Posts to both; asserts the status on each; returns both JSON answers. */
export async function both(pair: Pair, path: string, body: unknown, status: number) {
  const lite = await post(pair.sqlite, path, body);
  const pg = await post(pair.pg, path, body);
  assert.equal(lite.status, status, `SQLite: ${lite.text}`);
  assert.equal(pg.status, status, `PostgreSQL: ${pg.text}`);
  return { lite: lite.json<Record<string, unknown>>(), pg: pg.json<Record<string, unknown>>() };
}

/** {@link both}, and the answers equal but for the keys each engine words its own way. */
export async function same(
  pair: Pair,
  path: string,
  body: unknown,
  status: number,
  own: string[] = [],
) {
  const { lite, pg } = await both(pair, path, body, status);
  const without = (answer: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(answer).filter(([key]) => !own.includes(key)));
  assert.deepEqual(without(pg), without(lite));
  return { lite, pg };
}

/** One query's rows through psql, as text (tab-separated, a line a row). */
export async function psql(cluster: PgCluster, sql: string): Promise<string> {
  return (await cluster.psql(`copy (${sql}) to stdout`, "app")).trim();
}

/** A table's columns as the catalog has them: name, type, nullable, default, one per line. */
export function columnsOf(cluster: PgCluster, table: string): Promise<string> {
  return psql(
    cluster,
    "select column_name, data_type, is_nullable, column_default from information_schema.columns " +
      `where table_name = '${table}' order by ordinal_position`,
  );
}

/** Everything the catalogs say of a table: columns, constraints, indexes, grants. */
export function catalogOf(cluster: PgCluster, table: string): Promise<string> {
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
export async function rowsOf(pair: Pair, table: string) {
  const read = async (svc: Service) =>
    (await svc.client.get(`/app/${table}.json?_shape=array`)).json();
  return { lite: await read(pair.sqlite), pg: await read(pair.pg) };
}

/** A table `/-/create` makes on both engines: a foreign key to owners, defaults of each kind. */
export const VISITS = {
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
};

/**
 * Starts a cluster, makes the tables on it and in a SQLite file, serves them as a {@link Pair}, runs
 * `steps`, and stops it all.
 */
export async function withPair(steps: (pair: Pair) => Promise<void>): Promise<void> {
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
    await steps(pair);
  } finally {
    for (const service of services) await service.close();
    await cluster.stop();
    await Deno.remove(dir, { recursive: true });
  }
}
