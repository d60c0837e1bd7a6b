/**
 * `importFile`: a file on disk (or standard input, `-`) into a table of an open connection.
 *
 * @module
 */

import type { Connection } from "../../sqlite/connection.ts";
import { type ImportOptions, type ImportResult, importSource } from "./importer.ts";
import { openSource, type SourceOptions } from "./open_source.ts";
import { ImportError } from "./import_error.ts";
import { canReadInWorker, workerSource } from "./worker_source.ts";

/** What to read and how, and where the rows go. */
export interface ImportFileOptions extends ImportOptions, Omit<SourceOptions, "name"> {
  /** A file path, or `-` for standard input. */
  path: string;
  /**
   * Read and parse the file on a worker thread, in parallel with the inserts (when the program
   * runs from source: `worker_source.ts`).
   */
  inWorker?: boolean;
}

/** Imports `options.path` into `options.table` (one transaction). */
export async function importFile(
  conn: Connection,
  options: ImportFileOptions,
): Promise<ImportResult> {
  const stdin = options.path === "-";
  const emptyAsNull = options.emptyAsNull ?? options.detectTypes !== false;
  if (options.inWorker && canReadInWorker()) {
    const source = await workerSource(options.path, {
      format: options.format,
      encoding: options.encoding,
      delimiter: options.delimiter,
      quote: options.quote,
      name: stdin ? undefined : options.path,
      emptyAsNull,
    }, options.detectTypes !== false);
    try {
      return await importSource(conn, source, options);
    } finally {
      source.close();
    }
  }
  let file: Deno.FsFile | null = null;
  if (!stdin) {
    try {
      file = await Deno.open(options.path);
    } catch (error) {
      const reason = error instanceof Deno.errors.NotFound ? "no such file" : String(error);
      throw new ImportError(`Cannot read ${options.path}: ${reason}`);
    }
  }
  const readable = stdin ? Deno.stdin.readable : file!.readable;
  try {
    const source = await openSource(readable, {
      ...options,
      name: stdin ? undefined : options.path,
      emptyAsNull,
    });
    return await importSource(conn, source, options);
  } finally {
    // The readable closes the file once read to its end; an error may stop it before then.
    try {
      file?.close();
    } catch {
      // already closed
    }
  }
}
