/** Helpers for the import tests: bytes as a stream, an import into a fresh memory database. */
import { Connection } from "../../../src/sqlite/connection.ts";
import { openSource, type SourceOptions } from "../../../src/db/import/open_source.ts";
import {
  type ImportOptions,
  type ImportResult,
  importSource,
} from "../../../src/db/import/importer.ts";

/** `content` as a stream of chunks of `chunkSize` bytes (to cross chunk boundaries). */
export async function* chunksOf(
  content: string | Uint8Array,
  chunkSize = 7,
): AsyncGenerator<Uint8Array> {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  for (let i = 0; i < bytes.length; i += chunkSize) yield bytes.slice(i, i + chunkSize);
}

/** Imports `content` (named `name`) into table `t` of `conn` (a new memory database by default). */
export async function importText(
  content: string | Uint8Array,
  options: Partial<ImportOptions> & SourceOptions = {},
  conn: Connection = Connection.open(":memory:"),
): Promise<{ conn: Connection; result: ImportResult; rows: unknown[][] }> {
  const source = await openSource(chunksOf(content, options.name?.endsWith(".big") ? 65536 : 7), {
    name: "data.csv",
    emptyAsNull: options.detectTypes !== false,
    ...options,
  });
  const result = await importSource(conn, source, { table: "t", ...options });
  const rows = conn.query(`select * from [${result.table}] order by rowid`).rows;
  return { conn, result, rows };
}

/** `[name, declared type]` of each column of `table`. */
export function columnTypes(conn: Connection, table = "t"): string[][] {
  return conn.query("select name, type from pragma_table_info(?)", [table]).rows.map((row) =>
    row.map(String)
  );
}
