/**
 * `vitrine insert DB TABLE FILE` (`-` reads standard input): CSV, TSV, JSON (an array of objects)
 * or NDJSON into a table of a SQLite file, created if need be. One transaction: an error leaves
 * the database as it was, and says which line of the file it met. A new column of ISO dates is
 * TEXT with the `date` (or `datetime`) column type: said in the summary, and kept in the internal
 * database `--internal FILE` names, where `vitrine serve --internal FILE` finds it.
 */
import type { Command } from "commander";
import { Connection } from "../sqlite/connection.ts";
import { importFile } from "../db/import/import_file.ts";
import type { ImportResult } from "../db/import/importer.ts";
import { COLUMN_TYPES_SCHEMA } from "../db/column_type_store.ts";
import { basename, extname } from "node:path";
import { checkDelimiter } from "../db/import/open_source.ts";
import type { ImportFormat } from "../db/import/records.ts";
import { ProgressBar } from "./progress_bar.ts";
import { collect } from "./argv.ts";
import { CliExit } from "./exit.ts";
import { looksLikeSqlite } from "./sqlite_file.ts";

interface InsertFlags {
  pk: string[];
  replace?: boolean;
  upsert?: boolean;
  alter?: boolean;
  format?: string;
  encoding?: string;
  delimiter?: string;
  quote?: string;
  /** False with `--no-detect-types`. */
  detectTypes: boolean;
  fts?: string[];
  silent?: boolean;
  internal?: string;
}

const FORMATS = ["csv", "tsv", "json", "ndjson"];

/** Adds the `insert` command. */
export function addInsertCommand(program: Command): void {
  program.command("insert")
    .description("Insert rows from a CSV, TSV, JSON or NDJSON file into a table")
    .argument("<database>", "SQLite database file (created if it does not exist)")
    .argument("<table>", "table to insert into (created if it does not exist)")
    .argument("<file>", 'the file to read, or "-" for standard input')
    .option("--pk <column>", "primary key column of a new table (repeat for several)", collect, [])
    .option("--replace", "replace rows whose primary key is already taken")
    .option("--upsert", "update rows whose primary key is already taken")
    .option("--alter", "add columns the table does not have yet")
    .option("--format <format>", "csv, tsv, json or ndjson (default: from the file)")
    .option("--encoding <encoding>", "utf-8, latin-1 (Windows-1252), utf-16le… (default: detected)")
    .option("--delimiter <char>", "CSV field delimiter (default: detected)")
    .option("--quote <char>", "CSV quote character (default: detected)")
    .option("--no-detect-types", "make every new column TEXT, as written in the file")
    .option("--fts <columns...>", "build a full-text search index on these columns")
    .option("--silent", "no progress bar, no summary")
    .option(
      "--internal <file>",
      "keep the column types found (date, datetime) in this internal database, for serve --internal",
    )
    .action(async (database: string, table: string, file: string, flags: InsertFlags) => {
      if (flags.format && !FORMATS.includes(flags.format)) {
        throw new CliExit(
          1,
          `Error: --format is one of ${FORMATS.join(", ")}, not "${flags.format}"`,
        );
      }
      if (flags.replace && flags.upsert) {
        throw new CliExit(1, "Error: choose one of --replace and --upsert");
      }
      if (!looksLikeSqlite(database, { missingIsFine: true })) {
        throw new CliExit(1, `Error: ${database} is not a SQLite database`);
      }
      const total = file === "-" ? null : fileSize(file);
      const bar = new ProgressBar(total, !flags.silent && Deno.stderr.isTerminal());
      const conn = Connection.open(database, { mode: "rwc" });
      const started = performance.now();
      try {
        conn.exec("PRAGMA busy_timeout = 5000");
        const result = await importFile(conn, {
          path: file,
          inWorker: true,
          table,
          pk: flags.pk,
          replace: flags.replace,
          upsert: flags.upsert,
          alter: flags.alter,
          format: flags.format as ImportFormat | undefined,
          encoding: flags.encoding,
          delimiter: flags.delimiter === undefined ? undefined : checkDelimiter(flags.delimiter),
          quote: flags.quote,
          detectTypes: flags.detectTypes,
          fts: flags.fts,
          onProgress: ({ rows, bytes }) => bar.update(rows, bytes),
        });
        bar.done();
        const warning = flags.internal
          ? keptColumnTypes(flags.internal, database, table, result.columns)
          : null;
        if (!flags.silent) {
          const seconds = (performance.now() - started) / 1000;
          const typed = result.columns.filter((column) => column.column_type)
            .map((column) => `${column.name} (${column.column_type})`);
          console.log(
            `${result.rows.toLocaleString("en")} rows into ${table} ` +
              `(${result.created ? "new table" : "existing table"}) in ${seconds.toFixed(1)} s` +
              (typed.length ? `; column types: ${typed.join(", ")}` : ""),
          );
        }
        if (warning !== null) console.error(warning);
      } catch (error) {
        bar.done();
        const where = file === "-" ? "standard input" : file;
        throw new CliExit(1, `Error: ${where}: ${(error as Error).message}`);
      } finally {
        conn.close();
      }
    });
}

/**
 * Records the column types of `table` in the internal database `internal` (created if need be),
 * under the name `vitrine serve` gives the database file: its name without the extension. The
 * rows are committed by then: a failure here (a server holding the file's lock) is a warning, for
 * an error and exit code 1 would have the same rows inserted again.
 */
function keptColumnTypes(
  internal: string,
  database: string,
  table: string,
  columns: ImportResult["columns"],
): string | null {
  try {
    keepColumnTypes(internal, database, table, columns);
    return null;
  } catch (error) {
    return `Warning: the rows are in, but their column types could not be kept in ${internal}: ` +
      `${(error as Error).message}. Set them on the table page, or with /-/set-column-type.`;
  }
}

function keepColumnTypes(
  internal: string,
  database: string,
  table: string,
  columns: ImportResult["columns"],
): void {
  const typed = columns.filter((column) => column.column_type);
  if (!typed.length) return;
  const conn = Connection.open(internal, { mode: "rwc" });
  try {
    // A server using the same file writes to it briefly now and then.
    conn.exec("pragma busy_timeout = 2000");
    conn.exec(COLUMN_TYPES_SCHEMA);
    const name = basename(database, extname(database));
    for (const column of typed) {
      conn.run(
        `INSERT OR REPLACE INTO column_types
          (database_name, resource_name, column_name, column_type, config) VALUES (?, ?, ?, ?, NULL)`,
        [name, table, column.name, column.column_type],
      );
    }
  } finally {
    conn.close();
  }
}

function fileSize(path: string): number | null {
  try {
    return Deno.statSync(path).size;
  } catch {
    return null;
  }
}
