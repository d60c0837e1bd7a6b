/**
 * A read worker: owns read-only connections (one per target), runs one query at a time under its
 * deadline and answers with JSON text — and, for JSON pages, with the page's rows as finished
 * bytes. Plugin modules are imported here too, because SQL functions registered by
 * `prepare_connection` are callbacks bound to the thread that created them.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import { encodePage, runRead, serializeError, wallClock } from "./read_query.ts";
import { openReadConnection, type ReadSource, type ReadTarget, targetKey } from "./read_target.ts";
import { encodeRows } from "./wire.ts";
import {
  closeCursor,
  closeCursorsOf,
  readAhead,
  readChunk,
  shrinkHeapIfDue,
} from "./worker_cursors.ts";
import type { FromWorker, ToWorker } from "./worker_protocol.ts";
import { lowerThreadPriority } from "../util/thread_priority.ts";
import { shrinkHeap } from "../util/young_garbage.ts";
import { returnFreedMemoryNow } from "../util/malloc_tuning.ts";
import { threadCpuMs } from "../util/thread_clock.ts";

/** Runs the plugins' `prepare_connection` hooks on a connection this worker opened. */
export type PrepareConnection = (conn: Connection, database: string) => void;

/** Imports plugin modules by URL and answers how to prepare connections with them. */
export type LoadPlugins = (moduleUrls: string[]) => Promise<PrepareConnection>;

/**
 * This thread's worker scope, typed here rather than through `/// <reference lib="deno.worker" />`
 * (a directive that changes globals, which JSR packages may not use).
 */
const scope = globalThis as unknown as {
  postMessage(message: unknown, transfer?: Transferable[]): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  close(): void;
};

const connections = new Map<string, { conn: Connection; target: ReadTarget }>();
/** The plugins' `prepare_connection` implementations, in the main thread's call order. */
let prepareConnection: PrepareConnection = () => {};
let loadPluginModules: LoadPlugins = () => Promise.resolve(() => {});
let cacheSizeKb = 0;
/** `--load-extension` libraries: a query page's `select hello()` runs here, not on the writer. */
let extensions: string[] = [];
let ready: Promise<void> = Promise.resolve();
let reportedPointer: bigint | null = null;
/** When plugins finished loading: queries sent earlier waited for the boot, not for SQLite. */
let readyAt = wallClock();

function post(message: FromWorker): void {
  scope.postMessage(message);
}

async function loadPlugins(urls: string[]): Promise<void> {
  prepareConnection = await loadPluginModules(urls);
}

function connectionFor(target: ReadTarget): Connection {
  const key = targetKey(target);
  const cached = connections.get(key);
  if (cached) return cached.conn;
  const conn = openReadConnection(target);
  try {
    if (cacheSizeKb > 0) conn.exec(`PRAGMA cache_size = -${Math.floor(cacheSizeKb)}`);
    for (const extension of extensions) {
      const [file, entry] = extension.split(":");
      conn.loadExtension(file, entry);
    }
    prepareConnection(conn, target.name);
  } catch (error) {
    conn.close();
    throw error;
  }
  connections.set(key, { conn, target });
  return conn;
}

/** Closes the connections that open or attach the database `name` (every one without a name). */
function forget(name?: string, instance?: number): void {
  const matches = (source: ReadSource) =>
    source.name === name && (instance === undefined || source.instance === instance);
  for (const [key, { conn, target }] of connections) {
    if (name === undefined || matches(target) || target.attach.some(matches)) {
      closeCursorsOf(conn);
      conn.close();
      connections.delete(key);
    }
  }
  reportedPointer = null;
}

/**
 * Gives back what an idle worker holds beyond its live data: SQLite's cached pages, the heap V8
 * grew for the queries it ran, and the freed blocks left in glibc's arenas.
 */
function releaseMemory(): void {
  for (const { conn } of connections.values()) conn.releaseMemory();
  shrinkHeap();
  returnFreedMemoryNow();
}

async function handle(message: ToWorker): Promise<void> {
  if (message.type === "init") {
    cacheSizeKb = message.cacheSizeKb;
    extensions = message.extensions;
    ready = loadPlugins(message.pluginModules).finally(() => {
      // Lowered once booted, not before: loading modules at a lower priority on a busy machine
      // took seconds, and a fresh server's first queries waited for it (issue 42).
      if (message.niceness > 0) lowerThreadPriority(message.niceness);
      readyAt = wallClock();
      post({ type: "ready" });
    });
    // A failed import is reported with each query instead of killing the worker.
    ready.catch(() => {});
    return;
  }
  let started: number | null = null;
  try {
    await ready;
    if (message.type === "forget") {
      forget(message.name, message.instance);
      post({ type: "done", id: message.id });
      return;
    }
    if (message.type === "stop") {
      // Terminating this thread would free its heap but none of SQLite's memory.
      forget();
      post({ type: "done", id: message.id });
      return;
    }
    if (message.type === "release") {
      releaseMemory();
      post({ type: "done", id: message.id });
      return;
    }
    if (message.type === "cursor-close") {
      closeCursor(message.cursor);
      post({ type: "done", id: message.id });
      return;
    }
    const { request } = message;
    // Time spent waiting for this worker to start (module loading, plugins) is not the query's.
    const boot = readyAt - (message.sentAt ?? readyAt);
    if (request.deadline !== null && boot > 0) request.deadline += boot;
    const conn = connectionFor(message.target);
    const pointer = conn.pointerValue;
    if (pointer !== reportedPointer) {
      reportedPointer = pointer;
      post({ type: "connection", id: message.id, pointer });
    }
    // The query's cost is the CPU this thread spends on it: waiting for a core on a busy machine
    // is not the query's, and counted as its cost it made short queries look long (issue 42).
    started = threadCpuMs();
    if (message.type === "cursor") {
      const chunk = readChunk(
        conn,
        message.cursor,
        request,
        message.text,
        message.rows,
        message.open,
      );
      const lines = chunk.lines;
      const reply: FromWorker = {
        type: "chunk",
        id: message.id,
        columns: chunk.columns,
        lines,
        rows: chunk.rows && encodeRows(chunk.rows),
        real_columns: chunk.real_columns,
        done: chunk.done,
        ms: threadCpuMs() - started,
      };
      scope.postMessage(reply, lines ? [lines.buffer as ArrayBuffer] : []);
      if (!chunk.done && message.text) {
        readAhead(message.cursor, request, message.text, message.rows);
      }
      return;
    }
    const result = runRead(conn, request);
    const ms = threadCpuMs() - started;
    const page = encodePage(request, result);
    const reply: FromWorker = {
      type: "result",
      id: message.id,
      columns: result.columns,
      truncated: result.truncated,
      real_columns: result.real_columns ?? [],
      count: result.rows.length,
      // An export page written as lines needs no values on the other side (only its edge row).
      rows: page && request.text ? null : encodeRows(result.rows),
      page: page && { bytes: page.bytes, edge: page.edge && encodeRows([page.edge]) },
      ms,
    };
    // The page's bytes move to the main thread without a copy.
    scope.postMessage(reply, page ? [page.bytes.buffer as ArrayBuffer] : []);
  } catch (error) {
    const ms = started === null ? 0 : threadCpuMs() - started;
    post({ type: "error", id: message.id, error: serializeError(error), ms });
  }
}

/**
 * Makes this worker answer the pool's messages. The entry module (`app/read_worker.ts`) passes
 * the plugin loader, so this layer never imports the plugin system.
 */
export function serveReads(loadPlugins: LoadPlugins): void {
  loadPluginModules = loadPlugins;
  scope.onmessage = (event: MessageEvent<ToWorker>) => {
    // After the reply is posted: an export that just ended leaves the heap to shrink.
    handle(event.data).finally(shrinkHeapIfDue);
  };
}

// A Worker that closes itself sends no event to its owner (deno#14327), so the pool would wait
// forever for the query in flight. Plugin code calling `self.close()` or `Deno.exit()` is the one
// way this worker stops on its own: announce it first so the pool can replace the worker.
const closeSelf = scope.close.bind(scope);
scope.close = () => {
  post({ type: "exit", reason: "self.close() was called" });
  closeSelf();
};
Object.assign(Deno, {
  exit(code?: number): never {
    post({ type: "exit", reason: `Deno.exit(${code ?? ""}) was called` });
    closeSelf();
    throw new Error("The read worker is exiting");
  },
});
