/**
 * Heuristics over the schema: the full-text table of a table, hidden tables, and the label
 * column used to display foreign keys.
 *
 * @module
 */

import { columnDetails, objectNames, primaryKeys, type SqlRunner } from "./introspect.ts";

/** Shadow tables SQLite creates for FTS3/4 and FTS5 virtual tables. */
const FTS_SHADOW_SUFFIXES = [
  "_content",
  "_segments",
  "_segdir",
  "_stat",
  "_docsize",
  "_data",
  "_idx",
  "_config",
];

/** SpatiaLite's system tables, hidden when the database looks spatially enabled. */
const SPATIALITE_TABLES = [
  "ElementaryGeometries",
  "SpatialIndex",
  "geometry_columns",
  "spatial_ref_sys",
  "spatial_ref_sys_aux",
  "spatialite_history",
  "sql_statements_log",
  "sqlite_sequence",
  "views_geometry_columns",
  "virts_geometry_columns",
  "data_licenses",
  "KNN",
  "KNN2",
  "geometry_columns_auth",
  "geometry_columns_statistics",
  "geometry_columns_field_infos",
  "geometry_columns_time",
  "views_geometry_columns_auth",
  "views_geometry_columns_statistics",
  "views_geometry_columns_field_infos",
  "virts_geometry_columns_auth",
  "virts_geometry_columns_statistics",
  "virts_geometry_columns_field_infos",
  "SE_external_graphics",
  "SE_fonts",
  "SE_raster_styled_layers",
  "SE_vector_styled_layers",
  "rl2map_configurations",
];

const CONTENT_OPTION =
  /(?<![\w])content\s*=\s*(?:"((?:[^"]|"")*)"|'((?:[^']|'')*)'|\[([^\]]*)\]|`([^`]*)`|([^\s,)]+))/i;

/** The table named by an FTS virtual table's `content=` option, or null. */
export function ftsContentTable(createSql: string): string | null {
  const match = CONTENT_OPTION.exec(createSql);
  if (!match) return null;
  const value = match[1]?.replaceAll('""', '"') ?? match[2]?.replaceAll("''", "'") ??
    match[3] ?? match[4] ?? match[5];
  return value || null;
}

async function ftsVirtualTables(run: SqlRunner): Promise<{ name: string; sql: string }[]> {
  const rows = await run(
    `select name, sql from sqlite_master
    where type = 'table' and sql like 'CREATE VIRTUAL TABLE%USING FTS%'`,
  );
  return rows.map(([name, sql]) => ({ name: String(name), sql: String(sql) }));
}

/**
 * The FTS table that indexes `table`: `config.fts_table` when set, else a virtual table using
 * FTS3/4/5 with `content=<table>`, or an FTS table named `table` itself.
 */
export async function detectFtsTable(
  run: SqlRunner,
  table: string,
  config: Record<string, unknown> = {},
): Promise<string | null> {
  if (typeof config.fts_table === "string" && config.fts_table) return config.fts_table;
  for (const fts of await ftsVirtualTables(run)) {
    if (fts.name === table || ftsContentTable(fts.sql) === table) return fts.name;
  }
  return null;
}

/**
 * Tables to hide from listings: FTS shadow tables, `sqlite_stat*`, `_vitrine_history`, SpatiaLite's system tables,
 * FTS tables whose content table exists (`content=` or `<table>_fts`), and tables whose
 * `configOf(table).hidden` is true.
 */
export async function detectHiddenTables(
  run: SqlRunner,
  configOf: (table: string) => Record<string, unknown>,
): Promise<string[]> {
  const tables = await objectNames(run, "table");
  const existing = new Set(tables);
  const hidden = new Set<string>();
  for (const fts of await ftsVirtualTables(run)) {
    for (const suffix of FTS_SHADOW_SUFFIXES) {
      if (existing.has(fts.name + suffix)) hidden.add(fts.name + suffix);
    }
    const content = ftsContentTable(fts.sql) ??
      (fts.name.endsWith("_fts") ? fts.name.slice(0, -4) : null);
    if (content !== null && existing.has(content)) hidden.add(fts.name);
  }
  for (const table of tables) {
    if (/^sqlite_stat\d$/.test(table)) hidden.add(table);
  }
  if (existing.has("spatial_ref_sys") && existing.has("geometry_columns")) {
    for (const table of SPATIALITE_TABLES) if (existing.has(table)) hidden.add(table);
    for (const table of tables) if (/^(idx_|KNN)/.test(table)) hidden.add(table);
  }
  // The history of writes kept in the file (`db/history/`) is Vitrine's, not the data's.
  if (existing.has("_vitrine_history")) hidden.add("_vitrine_history");
  for (const table of tables) if (configOf(table).hidden) hidden.add(table);
  return [...hidden];
}

const isTextType = (type: string) => /CHAR|CLOB|TEXT/i.test(type);

async function uniqueSingleColumns(run: SqlRunner, table: string): Promise<Set<string>> {
  const rows = await run(
    `select (select group_concat(name, char(0)) from pragma_index_info(il.name)) as columns
    from pragma_index_list(?) as il where il."unique" = 1 and il.origin != 'pk'`,
    [table],
  );
  return new Set(
    rows.map(([columns]) => String(columns ?? "")).filter((c) => c && !c.includes("\0")),
  );
}

/**
 * The column that names a row of `table`: `config.label_column`, else its only unique text
 * column (the primary key does not count: a label repeating the key adds nothing), else a column called `name` or `title`, else the other column of a two-column table
 * whose first is its key (`id`, `pk` or the primary key).
 */
export async function detectLabelColumn(
  run: SqlRunner,
  table: string,
  config: Record<string, unknown> = {},
): Promise<string | null> {
  if (typeof config.label_column === "string" && config.label_column) return config.label_column;
  const details = await columnDetails(run, table);
  const columns = details.map((row) => ({ name: String(row[1]), type: String(row[2] ?? "") }));
  const unique = await uniqueSingleColumns(run, table);
  const uniqueText = columns.filter((c) => isTextType(c.type) && unique.has(c.name));
  if (uniqueText.length === 1) return uniqueText[0].name;
  const named = columns.find((c) => ["name", "title"].includes(c.name.toLowerCase()));
  if (named) return named.name;
  if (columns.length === 2) {
    const pks = await primaryKeys(run, table);
    const keyNames = new Set(["id", "pk", ...(pks.length === 1 ? pks : [])]);
    const others = columns.filter((c) => !keyNames.has(c.name));
    if (others.length === 1) return others[0].name;
  }
  return null;
}
