/**
 * `vitrine DB --query "select …" [--format table|csv|tsv|json|ndjson] [-p name=value …]`: the
 * CLI as a query tool. The query goes through the same service a server would run (settings,
 * time limits, `--load-extension`, plugins and their SQL functions, permissions for an anonymous
 * visitor) by asking its own pages in-process:
 *
 * - `csv`, `tsv`, `ndjson`: the `_stream=on` export, piped to stdout as it is written (every
 *   row, in constant memory);
 * - `json`: a JSON array of row objects, written page by page as it follows `next_url`;
 * - `table` (the default on a terminal; otherwise `csv`): an aligned table of every row.
 *
 * A query that fails prints its error on stderr and exits 1.
 *
 * @module
 */

import type { Service } from "../service.ts";
import { CliExit } from "./exit.ts";
import { InvalidSql, validateSqlSelect } from "../util/sql.ts";
import { tilde_encode } from "../util/tilde.ts";

/** The output formats of `--query`. */
export const QUERY_FORMATS = ["table", "csv", "tsv", "json", "ndjson"] as const;

/** What `--query` was given. */
export interface QueryCommand {
  sql: string;
  format?: string;
  /** `name=value` pairs from `-p` / `--param`. */
  params: string[];
}

/**
 * `-p name=value` after `--query` is a parameter, not a port: commander sees `--param`. A
 * port never holds `=`, so `-p 8001` stays the port.
 */
export function queryParamArgs(argv: string[]): string[] {
  if (!argv.some((arg) => arg === "--query" || arg.startsWith("--query="))) return argv;
  return argv.map((arg, i) =>
    arg === "-p" && argv[i + 1]?.includes("=") && argv[i - 1] !== "-p" ? "--param" : arg
  );
}

const encoder = new TextEncoder();

async function write(text: string | Uint8Array): Promise<void> {
  const bytes = typeof text === "string" ? encoder.encode(text) : text;
  let written = 0;
  while (written < bytes.length) written += await Deno.stdout.write(bytes.subarray(written));
}

/** Runs the query and prints it; throws {@link CliExit} 1 with the error when it fails. */
export async function runQueryCommand(svc: Service, command: QueryCommand): Promise<void> {
  const format = command.format ?? (Deno.stdout.isTerminal() ? "table" : "csv");
  if (!(QUERY_FORMATS as readonly string[]).includes(format)) {
    throw new CliExit(1, `Error: --format must be one of ${QUERY_FORMATS.join(", ")}`);
  }
  try {
    validateSqlSelect(command.sql);
  } catch (error) {
    if (error instanceof InvalidSql) throw new CliExit(1, `Error: ${error.message}`);
    throw error;
  }
  const db = [...svc.databases.values()][0];
  if (!db) throw new CliExit(1, "Error: --query needs a database file (or --memory)");
  const args = new URLSearchParams({ sql: command.sql });
  for (const pair of command.params) {
    const eq = pair.indexOf("=");
    if (eq < 1) throw new CliExit(1, `Error: -p expects name=value, got "${pair}"`);
    args.append(pair.slice(0, eq), pair.slice(eq + 1));
  }
  const base = `/${tilde_encode(db.name)}/-/query`;
  if (format === "csv" || format === "tsv" || format === "ndjson") {
    args.set("_stream", "on");
    return await pipeExport(svc, `${base}.${format}?${args}`);
  }
  args.set("_shape", "arrays");
  args.set("_extra", "columns");
  const pages = jsonPages(svc, `${base}.json?${args}`);
  if (format === "json") return await writeJson(pages);
  await writeTable(pages);
}

/** Pipes a streamed export to stdout; its error message to stderr when it fails. */
async function pipeExport(svc: Service, path: string): Promise<void> {
  const response = await svc.handler()(new Request(`http://localhost${path}`));
  if (response.status !== 200 || !response.body) {
    throw new CliExit(1, `Error: ${(await response.text()).trim()}`);
  }
  for await (const chunk of response.body) await write(chunk);
}

interface JsonPage {
  columns: string[];
  rows: unknown[][];
}

/** The query's pages, following `next_url` to the end. */
async function* jsonPages(svc: Service, first: string): AsyncGenerator<JsonPage> {
  let path: string | null = first;
  while (path) {
    const response = await svc.client.get(path);
    const body = response.json() as Record<string, unknown>;
    if (response.status !== 200 || body.ok === false) {
      throw new CliExit(1, `Error: ${body.error ?? response.text}`);
    }
    yield { columns: body.columns as string[], rows: body.rows as unknown[][] };
    const next = body.next_url;
    path = typeof next === "string" ? new URL(next).pathname + new URL(next).search : null;
  }
}

async function writeJson(pages: AsyncGenerator<JsonPage>): Promise<void> {
  let first = true;
  for await (const page of pages) {
    for (const row of page.rows) {
      const object = Object.fromEntries(page.columns.map((column, i) => [column, row[i]]));
      await write(`${first ? "[" : ",\n "}${JSON.stringify(object)}`);
      first = false;
    }
  }
  await write(first ? "[]\n" : "]\n");
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** Every row as an aligned table: numbers to the right, a rule under the header. */
async function writeTable(pages: AsyncGenerator<JsonPage>): Promise<void> {
  let columns: string[] = [];
  const rows: unknown[][] = [];
  for await (const page of pages) {
    columns = page.columns;
    rows.push(...page.rows);
  }
  const widths = columns.map((column, i) =>
    Math.max(column.length, ...rows.map((row) => cellText(row[i]).length))
  );
  const line = (cells: string[], numeric: boolean[]) =>
    cells.map((cell, i) => numeric[i] ? cell.padStart(widths[i]) : cell.padEnd(widths[i]))
      .join("  ").trimEnd() + "\n";
  let out = line(columns, columns.map(() => false));
  out += widths.map((width) => "-".repeat(width)).join("  ") + "\n";
  for (const row of rows) {
    out += line(row.map(cellText), row.map((value) => typeof value === "number"));
  }
  await write(out);
}
