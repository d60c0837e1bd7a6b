/**
 * `vitrine insert DB TABLE FILE` (`-` reads standard input): CSV, TSV, JSON (an array of objects)
 * or NDJSON into a table of a SQLite file, created if need be. One transaction: an error leaves
 * the database as it was, and says which line of the file it met.
 */
import type { Command } from "commander";
import { Connection } from "../sqlite/connection.ts";
import { importFile } from "../db/import/import_file.ts";
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
        if (!flags.silent) {
          const seconds = (performance.now() - started) / 1000;
          console.log(
            `${result.rows.toLocaleString("en")} rows into ${table} ` +
              `(${result.created ? "new table" : "existing table"}) in ${seconds.toFixed(1)} s`,
          );
        }
      } catch (error) {
        bar.done();
        const where = file === "-" ? "standard input" : file;
        throw new CliExit(1, `Error: ${where}: ${(error as Error).message}`);
      } finally {
        conn.close();
      }
    });
}

function fileSize(path: string): number | null {
  try {
    return Deno.statSync(path).size;
  } catch {
    return null;
  }
}
