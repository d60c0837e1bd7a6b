/**
 * A record source read by a worker (`source_worker.ts`): decoding, parsing and classifying the
 * fields of a CSV file take about half of an import's time, and on a second core they overlap
 * with binding and inserting on this one. A CSV file's rows arrive packed (`encoded_rows.ts`:
 * their text already UTF-8, each field's kind told), so this thread neither classifies nor
 * encodes them again, nor clones a string per field.
 *
 * Running from source only: a compiled program reads the file on its own thread
 * ({@link canReadInWorker}).
 *
 * @module
 */

import { ImportError } from "./import_error.ts";
import type { SourceOptions } from "./open_source.ts";
import type { ImportFormat, RecordSource, SourceRecord } from "./records.ts";
import type { EncodedRows } from "./encoded_rows.ts";

/** What the importer's thread asks of the worker. */
export type WorkerRequest =
  | { kind: "start"; path: string; options: SourceOptions; classify: boolean }
  | { kind: "more" };

/** What the worker posts. */
export type WorkerReply =
  | { kind: "open"; format: ImportFormat; typed: boolean }
  | { kind: "records"; lines: Int32Array; values: unknown[][]; added: string[]; bytes: number }
  | { kind: "encoded"; rows: EncodedRows; added: string[]; bytes: number }
  | { kind: "end"; added: string[]; bytes: number }
  | { kind: "error"; message: string; line: number | null; importError: boolean };

const WORKER_URL = new URL("./source_worker.ts", import.meta.url);

/** True when the worker's module can be loaded: a program run from its TypeScript source. */
export function canReadInWorker(): boolean {
  return WORKER_URL.protocol === "file:" && !Deno.build.standalone;
}

/**
 * Opens `path` (or `-`, standard input) in a worker; resolves once the format is known. `classify`
 * has the worker send each CSV field's kind (type detection on).
 */
export function workerSource(
  path: string,
  options: SourceOptions,
  classify: boolean,
): Promise<RecordSource<SourceRecord[] | EncodedRows> & { close(): void }> {
  const worker = new Worker(WORKER_URL, { type: "module", name: "vitrine-import" });
  const replies: WorkerReply[] = [];
  let waiting: (() => void) | null = null;
  worker.onmessage = (event: MessageEvent<WorkerReply>) => {
    replies.push(event.data);
    waiting?.();
    waiting = null;
  };
  worker.onerror = (event) => {
    event.preventDefault();
    replies.push({ kind: "error", message: event.message, line: null, importError: false });
    waiting?.();
    waiting = null;
  };
  const next = async (): Promise<WorkerReply> => {
    while (!replies.length) await new Promise<void>((resolve) => waiting = resolve);
    const reply = replies.shift()!;
    if (reply.kind === "error") {
      throw reply.importError
        ? new ImportError(reply.message, { line: reply.line })
        : new Error(reply.message);
    }
    return reply;
  };
  worker.postMessage({ kind: "start", path, options, classify } satisfies WorkerRequest);
  const columns: string[] = [];
  let bytes = 0;
  async function* batches(): AsyncGenerator<SourceRecord[] | EncodedRows> {
    while (true) {
      const reply = await next();
      if (reply.kind === "end") {
        columns.push(...reply.added);
        bytes = reply.bytes;
        return;
      }
      if (reply.kind !== "records" && reply.kind !== "encoded") continue;
      // Ask for the next batch at once, so the worker parses it while this one is inserted.
      worker.postMessage({ kind: "more" } satisfies WorkerRequest);
      columns.push(...reply.added);
      bytes = reply.bytes;
      if (reply.kind === "encoded") {
        yield reply.rows;
        continue;
      }
      const { lines, values } = reply;
      const out: SourceRecord[] = new Array(lines.length);
      for (let r = 0; r < lines.length; r++) out[r] = { line: lines[r], values: values[r] };
      yield out;
    }
  }
  return next().then((open) => {
    if (open.kind !== "open") throw new Error("The import worker answered out of turn");
    return {
      format: open.format,
      typed: open.typed,
      columns,
      get bytesRead() {
        return bytes;
      },
      batches,
      close: () => worker.terminate(),
    };
  }, (error) => {
    worker.terminate();
    throw error;
  });
}
