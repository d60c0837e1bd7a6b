/**
 * The worker half of {@link ../worker_source.ts}: opens the file (or standard input), decodes and
 * parses it, and posts batches of records to the importer's thread, which binds and inserts them
 * meanwhile: CSV rows packed into typed arrays with each field's kind (integer, real, text, empty;
 * `encoded_rows.ts`), JSON records as they are. At most a few batches wait unread, so memory stays
 * bounded however large the file.
 *
 * @module
 */

import { encodeRows, transferables } from "./encoded_rows.ts";
import { ImportError } from "./import_error.ts";
import { openSource, type SourceOptions } from "./open_source.ts";
import type { WorkerReply, WorkerRequest } from "./worker_source.ts";

/** Batches posted and not yet taken by the importer, at most. */
const AHEAD = 4;

/** This thread's worker scope (typed here, as `db/worker.ts` does, not by a lib directive). */
const scope = globalThis as unknown as {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
};

let credit = AHEAD;
let wake: (() => void) | null = null;

scope.onmessage = (event) => {
  const message = event.data;
  if (message.kind === "start") {
    run(message.path, message.options, message.classify).catch(() => {});
  } else {
    credit++;
    wake?.();
    wake = null;
  }
};

function post(reply: WorkerReply, transfer: Transferable[] = []): void {
  scope.postMessage(reply, transfer);
}

async function run(path: string, options: SourceOptions, classify: boolean): Promise<void> {
  let file: Deno.FsFile | null = null;
  try {
    if (path !== "-") {
      try {
        file = await Deno.open(path);
      } catch (error) {
        const reason = error instanceof Deno.errors.NotFound ? "no such file" : String(error);
        throw new ImportError(`Cannot read ${path}: ${reason}`);
      }
    }
    const source = await openSource(path === "-" ? Deno.stdin.readable : file!.readable, options);
    post({ kind: "open", format: source.format, typed: source.typed });
    let columns = 0;
    for await (const batch of source.batches()) {
      while (credit <= 0) await new Promise<void>((resolve) => wake = resolve);
      credit--;
      // A JSON file's keys grow as rows show new ones: send the names added since last time.
      const added = source.columns.length > columns ? source.columns.slice(columns) : [];
      columns = source.columns.length;
      const bytes = source.bytesRead;
      if (source.typed) {
        const lines = new Int32Array(batch.length);
        const values: unknown[][] = new Array(batch.length);
        for (let r = 0; r < batch.length; r++) {
          lines[r] = batch[r].line;
          values[r] = batch[r].values;
        }
        post({ kind: "records", lines, values, added, bytes }, [lines.buffer as ArrayBuffer]);
      } else {
        const rows = encodeRows(batch, columns, classify);
        post({ kind: "encoded", rows, added, bytes }, transferables(rows));
      }
    }
    const added = source.columns.length > columns ? source.columns.slice(columns) : [];
    post({ kind: "end", added, bytes: source.bytesRead });
  } catch (error) {
    const line = error instanceof ImportError ? error.line : null;
    let message = error instanceof Error ? error.message : String(error);
    if (line && message.startsWith(`line ${line}: `)) {
      message = message.slice(`line ${line}: `.length);
    }
    post({ kind: "error", message, line, importError: error instanceof ImportError });
  } finally {
    try {
      file?.close();
    } catch {
      // already closed
    }
  }
}
