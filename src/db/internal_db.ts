/**
 * The internal database (spec "Internal database"): a private named in-memory database, or a file
 * with `--internal <path>`, holding the unstable `catalog_*` tables that describe the attached
 * databases, plus whatever plugins store there.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { SqlValue } from "../sqlite/values.ts";
import { Database } from "./database.ts";
import type { DatabaseHost } from "./host.ts";

/** Schema of the catalog tables. */
export const CATALOG_SCHEMA = `
CREATE TABLE IF NOT EXISTS catalog_databases (
  database_name TEXT PRIMARY KEY,
  path TEXT,
  is_memory INTEGER,
  schema_version INTEGER
);
CREATE TABLE IF NOT EXISTS catalog_tables (
  database_name TEXT,
  table_name TEXT,
  rootpage INTEGER,
  sql TEXT,
  PRIMARY KEY (database_name, table_name)
);
CREATE TABLE IF NOT EXISTS catalog_columns (
  database_name TEXT,
  table_name TEXT,
  cid INTEGER,
  name TEXT,
  type TEXT,
  "notnull" INTEGER,
  default_value TEXT,
  is_pk INTEGER,
  hidden INTEGER,
  PRIMARY KEY (database_name, table_name, name)
);
CREATE TABLE IF NOT EXISTS catalog_indexes (
  database_name TEXT,
  table_name TEXT,
  seq INTEGER,
  name TEXT,
  "unique" INTEGER,
  origin TEXT,
  partial INTEGER,
  PRIMARY KEY (database_name, table_name, name)
);
CREATE TABLE IF NOT EXISTS catalog_foreign_keys (
  database_name TEXT,
  table_name TEXT,
  id INTEGER,
  seq INTEGER,
  "table" TEXT,
  "from" TEXT,
  "to" TEXT,
  on_update TEXT,
  on_delete TEXT,
  match TEXT,
  PRIMARY KEY (database_name, table_name, id, seq)
);
`;

const CATALOG_TABLES = [
  "catalog_foreign_keys",
  "catalog_indexes",
  "catalog_columns",
  "catalog_tables",
  "catalog_databases",
];

/**
 * Opens the internal database (named `_internal`) and starts creating its catalog tables. With
 * `path` it is that file, otherwise a shared in-memory database with an unguessable name. Writes
 * run in arrival order, so the tables exist before any later write; readers await `ready`.
 */
export function openInternalDatabase(
  host: DatabaseHost | undefined,
  path?: string | null,
): { db: Database; ready: Promise<void> } {
  const db = path ? new Database(host, { path, name: "_internal" }) : new Database(host, {
    memory_name: `vitrine_internal_${crypto.randomUUID()}`,
    name: "_internal",
  });
  return { db, ready: db.execute_write_script(CATALOG_SCHEMA).then(() => {}) };
}

interface TableSchema {
  name: SqlValue;
  rootpage: SqlValue;
  sql: SqlValue;
  columns: SqlValue[][];
  indexes: SqlValue[][];
  foreignKeys: SqlValue[][];
}

/** One database's schema version and per-table pragma rows. */
async function readSchema(db: Database): Promise<{ version: SqlValue; tables: TableSchema[] }> {
  const version =
    (await db.execute("PRAGMA schema_version", null, { request_deadline: false, byte_cap: false }))
      .single_value();
  const tables = (await db.execute(
    "select name, rootpage, sql from sqlite_master where type = 'table'",
    null,
    { truncate: false, request_deadline: false, byte_cap: false },
  )).rows;
  const perTable = async (sql: string, table: SqlValue) =>
    (await db.execute(sql, [table], { truncate: false, request_deadline: false, byte_cap: false }))
      .values;
  // A table whose virtual-table module is missing has no columns to list (its pragma fails).
  const columnsOf = async (table: SqlValue) =>
    await db.table_unavailable(String(table)) ? [] : await perTable(
      `select cid, name, type, "notnull", dflt_value, pk, hidden from pragma_table_xinfo(?)`,
      table,
    );
  const details: TableSchema[] = [];
  for (const [name, rootpage, sql] of tables) {
    details.push({
      name,
      rootpage,
      sql,
      columns: await columnsOf(name),
      indexes: await perTable(
        `select seq, name, "unique", origin, partial from pragma_index_list(?)`,
        name,
      ),
      foreignKeys: await perTable(
        `select id, seq, "table", "from", "to", on_update, on_delete, match
        from pragma_foreign_key_list(?)`,
        name,
      ),
    });
  }
  return { version, tables: details };
}

function clearDatabase(conn: Connection, name: string): void {
  for (const table of CATALOG_TABLES) {
    conn.run(`DELETE FROM ${table} WHERE database_name = ?`, [name]);
  }
}

/**
 * Brings the catalog up to date with `databases`: re-reads a database whose schema version
 * changed (or that is new) and drops rows of databases no longer present.
 */
export async function refreshCatalog(internal: Database, databases: Database[]): Promise<void> {
  const known = new Map<string, number>();
  for (
    const [name, version] of (await internal.execute(
      "select database_name, schema_version from catalog_databases",
      null,
      { truncate: false, request_deadline: false, byte_cap: false },
    )).rows
  ) known.set(String(name), Number(version));
  const schemas: { db: Database; schema: Awaited<ReturnType<typeof readSchema>> }[] = [];
  for (const db of databases) {
    if (db === internal) continue;
    const schema = await readSchema(db);
    if (known.get(db.name) !== Number(schema.version)) schemas.push({ db, schema });
  }
  const present = new Set(databases.map((db) => db.name));
  await internal.execute_write_fn((conn) => {
    conn.exec("BEGIN");
    try {
      for (const name of known.keys()) if (!present.has(name)) clearDatabase(conn, name);
      for (const { db, schema } of schemas) {
        clearDatabase(conn, db.name);
        conn.run("INSERT INTO catalog_databases VALUES (?, ?, ?, ?)", [
          db.name,
          db.path,
          db.is_memory ? 1 : 0,
          schema.version,
        ]);
        for (const table of schema.tables) {
          const key = [db.name, table.name];
          conn.run("INSERT INTO catalog_tables VALUES (?, ?, ?, ?)", [
            ...key,
            table.rootpage,
            table.sql,
          ]);
          for (const c of table.columns) {
            conn.run("INSERT INTO catalog_columns VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", [
              ...key,
              ...c,
            ]);
          }
          for (const i of table.indexes) {
            conn.run("INSERT INTO catalog_indexes VALUES (?, ?, ?, ?, ?, ?, ?)", [...key, ...i]);
          }
          for (const f of table.foreignKeys) {
            conn.run(
              "INSERT INTO catalog_foreign_keys VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
              [...key, ...f],
            );
          }
        }
      }
      conn.exec("COMMIT");
    } catch (error) {
      conn.rollback();
      throw error;
    }
  });
}
