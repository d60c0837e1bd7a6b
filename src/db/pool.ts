/**
 * `ReadPool`: the read workers shared by every database of a service (DESIGN.md "Queries and
 * concurrency"). Workers start on demand up to `size`; each query goes to the least-busy one.
 * A worker runs one query at a time; others wait in that worker's queue on the main thread.
 *
 * @module
 */

import { SqliteError } from "../sqlite/errors.ts";
import { sqlite } from "../sqlite/ffi.ts";
import type { ReadRequest, ReadResult, SerializedError } from "./read_query.ts";
import type { ReadTarget } from "./read_target.ts";
import { decodeResult } from "./wire.ts";
import type { FromWorker, ToWorker } from "./worker_protocol.ts";
import { READ_WORKER_NAME, readWorkerEntry } from "../util/assets.ts";

/** How to build a pool. */
export interface ReadPoolOptions {
  /** Number of workers (`num_sql_threads`); 0 means callers run reads on the main thread. */
  size: number;
  /** `PRAGMA cache_size` in KiB for every worker connection; 0 leaves SQLite's default. */
  cacheSizeKb?: number;
  /** Module URLs each worker imports; their `prepare_connection` runs on every connection. */
  pluginModules?: string[];
  /**
   * The worker's entry module. The default serves reads without plugins; the service passes
   * `app/read_worker.ts`, which also loads `pluginModules` through the plugin registry.
   */
  workerUrl?: string | URL;
}

/** Entry of a read worker that loads no plugins. */
const PLAIN_WORKER = new URL("./plain_worker.ts", import.meta.url);

/** How often a cancelled query is interrupted again until its worker answers. */
const CANCEL_RETRY_MS = 25;

interface Job {
  id: number;
  message: ToWorker;
  resolve(value: FromWorker): void;
  reject(error: Error): void;
}

interface PoolWorker {
  worker: Worker;
  index: number;
  queue: Job[];
  current: Job | null;
  /** The connection the current query runs on, for `sqlite3_interrupt`. */
  pointer: bigint | null;
}

/** Rebuilds a worker's error on this thread (SQLite errors stay `SqliteError`). */
function reviveError(error: SerializedError): Error {
  if (error.extendedCode !== undefined) return new SqliteError(error.message, error.extendedCode);
  const revived = new Error(error.message);
  revived.name = error.name;
  return revived;
}

/** A pool of read workers. Always `close()` it, or the process will not exit. */
export class ReadPool {
  /** Maximum number of workers. */
  readonly size: number;
  #options: Required<ReadPoolOptions>;
  #workers: PoolWorker[] = [];
  #nextId = 1;
  #nextWorker = 0;
  #closed = false;

  /** Creates the pool; no worker starts until the first query. */
  constructor(options: ReadPoolOptions) {
    this.size = Math.max(0, Math.floor(options.size));
    this.#options = {
      cacheSizeKb: 0,
      pluginModules: [],
      ...options,
      workerUrl: options.workerUrl ?? PLAIN_WORKER,
    };
  }

  /** Workers started so far and how many queries each has in flight or queued. */
  threads(): { name: string; busy: number }[] {
    return this.#workers.map((w) => ({
      name: `vitrine-read-${w.index}`,
      busy: w.queue.length + (w.current ? 1 : 0),
    }));
  }

  /**
   * Runs a read query on the least-busy worker. Aborting `signal` drops a queued query, or
   * interrupts a running one (it then fails with SQLite's "interrupted").
   */
  async run(target: ReadTarget, request: ReadRequest, signal?: AbortSignal): Promise<ReadResult> {
    if (this.size === 0) throw new Error("This pool has no workers (num_sql_threads is 0)");
    const worker = this.#pickWorker();
    const id = this.#nextId++;
    const reply = await this.#submit(worker, { type: "query", id, target, request }, signal);
    if (reply.type === "result") return decodeResult(reply.json, reply.tagged);
    throw reviveError((reply as { error: SerializedError }).error);
  }

  /** Closes every worker connection that opens or attaches the database `name`. */
  async forget(name: string): Promise<void> {
    await Promise.all(this.#workers.map((worker) => {
      const id = this.#nextId++;
      return this.#submit(worker, { type: "forget", id, name });
    }));
  }

  /** Interrupts running queries and terminates every worker. */
  close(): void {
    this.#closed = true;
    for (const worker of this.#workers) {
      if (worker.current && worker.pointer !== null) this.#interrupt(worker.pointer);
      const jobs = [...worker.queue, ...(worker.current ? [worker.current] : [])];
      // Cleared first so that no cancel retry touches a connection of a terminated worker.
      worker.current = null;
      worker.queue = [];
      worker.pointer = null;
      worker.worker.terminate();
      for (const job of jobs) job.reject(new Error("The read pool was closed"));
    }
    this.#workers = [];
  }

  #pickWorker(): PoolWorker {
    if (this.#closed) throw new Error("The read pool is closed");
    let best: PoolWorker | undefined;
    let bestLoad = Infinity;
    for (const worker of this.#workers) {
      const load = worker.queue.length + (worker.current ? 1 : 0);
      if (load < bestLoad) [best, bestLoad] = [worker, load];
    }
    if (best && (bestLoad === 0 || this.#workers.length >= this.size)) return best;
    return this.#startWorker();
  }

  #startWorker(): PoolWorker {
    // A program may start every read worker from its own entry (cli.ts; see util/assets.ts).
    const module = readWorkerEntry(this.#options.workerUrl);
    const worker = new Worker(module, { type: "module", name: READ_WORKER_NAME });
    const entry: PoolWorker = {
      worker,
      index: this.#nextWorker++,
      queue: [],
      current: null,
      pointer: null,
    };
    worker.onmessage = (event: MessageEvent<FromWorker>) => this.#onMessage(entry, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#onCrash(entry, new Error(`Read worker failed: ${event.message}`));
    };
    worker.onmessageerror = () => {
      this.#onCrash(entry, new Error("Read worker failed: a message could not be read"));
    };
    const { pluginModules, cacheSizeKb } = this.#options;
    worker.postMessage({ type: "init", pluginModules, cacheSizeKb } satisfies ToWorker);
    this.#workers.push(entry);
    return entry;
  }

  #submit(worker: PoolWorker, message: ToWorker, signal?: AbortSignal): Promise<FromWorker> {
    return new Promise<FromWorker>((resolve, reject) => {
      const job: Job = { id: (message as { id: number }).id, message, resolve, reject };
      if (signal) {
        if (signal.aborted) return reject(signal.reason);
        const onAbort = () => this.#cancel(worker, job, signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        const done = () => signal.removeEventListener("abort", onAbort);
        job.resolve = (value) => (done(), resolve(value));
        job.reject = (error) => (done(), reject(error));
      }
      worker.queue.push(job);
      this.#dispatch(worker);
    });
  }

  #cancel(worker: PoolWorker, job: Job, reason: unknown): void {
    const queued = worker.queue.indexOf(job);
    if (queued >= 0) {
      worker.queue.splice(queued, 1);
      job.reject(reason instanceof Error ? reason : new Error(String(reason)));
      return;
    }
    // An interrupt that lands just before the statement starts is a no-op in SQLite, and the
    // pointer may not have arrived yet, so keep interrupting until the job is answered.
    const retry = () => {
      if (worker.current !== job) return;
      // Safe: this job is still in flight, so the connection is open and owned by the worker.
      if (worker.pointer !== null) this.#interrupt(worker.pointer);
      setTimeout(retry, CANCEL_RETRY_MS);
    };
    retry();
  }

  #interrupt(pointer: bigint): void {
    sqlite().sqlite3_interrupt(Deno.UnsafePointer.create(pointer));
  }

  #dispatch(worker: PoolWorker): void {
    if (worker.current || worker.queue.length === 0) return;
    worker.current = worker.queue.shift()!;
    worker.worker.postMessage(worker.current.message);
  }

  #onMessage(worker: PoolWorker, message: FromWorker): void {
    if (message.type === "connection") {
      worker.pointer = message.pointer;
      return;
    }
    if (message.type === "exit") {
      this.#onCrash(worker, new Error(`Read worker exited: ${message.reason}`));
      return;
    }
    const job = worker.current;
    if (!job || job.id !== message.id) return;
    worker.current = null;
    // After "forget" the worker may have closed the connection we know about.
    if (job.message.type === "forget") worker.pointer = null;
    job.resolve(message);
    this.#dispatch(worker);
  }

  /** Drops a dead worker (the next query starts a fresh one) and fails its queries. */
  #onCrash(worker: PoolWorker, error: Error): void {
    if (!this.#workers.includes(worker)) return;
    this.#workers = this.#workers.filter((w) => w !== worker);
    const jobs = [...(worker.current ? [worker.current] : []), ...worker.queue];
    worker.current = null;
    worker.queue = [];
    worker.pointer = null;
    worker.worker.terminate();
    for (const job of jobs) job.reject(error);
  }
}
