/**
 * `ReadPool`: the read workers shared by every database of a service (DESIGN.md "Queries and
 * concurrency"; the scheduling is explained in docs/internals.md "Read pool"). Its queue, in two
 * lanes, and how far a query's deadline moves while it waits are `pool_queue.ts`'s; its export
 * cursors `pool_cursor.ts`'s; this file starts, feeds, interrupts and stops the workers.
 *
 * - A worker takes the next query as soon as it is free, so no query waits behind one particular
 *   busy worker.
 * - `size` base workers take queries of both lanes. While every worker is busy and one of them
 *   runs a long query (by its past or by the time it has run), short queries get up to `spare`
 *   extra workers, which never take long ones: a short query is never stuck behind long ones.
 * - Workers that have nothing to do give their memory back: spares stop after a while, base
 *   workers after longer, except the last one, which releases what it holds instead (SQLite's
 *   cached pages, its grown heap, glibc's freed blocks). The next queries start workers again.
 * - A query's deadline is absolute, counted from its request's arrival, but the time the query
 *   itself waits in the queue moves it (`pool_queue.ts`): a running one is given only what is
 *   left (`database.ts` moves the request's arrival by as much, for its later queries). So under
 *   load a query still gets its whole time to run, as in the reference, and the queue cannot grow
 *   without bound.
 *
 * @module
 */

import { sqlite } from "../sqlite/ffi.ts";
import type { SqlValue } from "../sqlite/values.ts";
import { QueryCosts } from "./query_costs.ts";
import { type ReadRequest, wallClock } from "./read_query.ts";
import {
  type ChunkRequest,
  controlJob,
  type CursorChunk,
  type Job,
  type PoolCursor,
  type PoolWorker,
  type ReadAnswer,
  reviveError,
} from "./pool_jobs.ts";
import { BootClock, PoolQueue, type WorkerSupply } from "./pool_queue.ts";
import { type CursorHost, openCursor } from "./pool_cursor.ts";

export type { ChunkRequest, CursorChunk, PoolCursor, ReadAnswer };
import type { ReadTarget } from "./read_target.ts";
import { decodeRows } from "./wire.ts";
import type { FromWorker, ToWorker } from "./worker_protocol.ts";
import { READ_WORKER_NAME, readWorkerEntry } from "../util/assets.ts";

/** How to build a pool. */
export interface ReadPoolOptions {
  /** Number of workers (`num_sql_threads`); 0 means callers run reads on the main thread. */
  size: number;
  /** Extra workers for short queries while the others are busy with long ones (default 2). */
  spare?: number;
  /** `PRAGMA cache_size` in KiB for every worker connection; 0 leaves SQLite's default. */
  cacheSizeKb?: number;
  /** Module URLs each worker imports; their `prepare_connection` runs on every connection. */
  pluginModules?: string[];
  /** SQLite extensions (`path[:entrypoint]`) every worker connection loads, as the main thread's. */
  extensions?: string[];
  /**
   * The worker's entry module. The default serves reads without plugins; the service passes
   * `app/read_worker.ts`, which also loads `pluginModules` through the plugin registry.
   */
  workerUrl?: string | URL;
  /**
   * Called once the last worker has given back its memory after its idle time: the owner may do
   * the same with the main thread's connections.
   */
  onIdle?: () => void;
  /** A spare worker without work for this long is stopped (default 30 s). */
  spareIdleMs?: number;
  /**
   * A base worker without work for this long is stopped, unless it is the last one, which gives
   * back the memory it holds instead (default 60 s).
   */
  baseIdleMs?: number;
}

/** Entry of a read worker that loads no plugins. */
const PLAIN_WORKER = new URL("./plain_worker.ts", import.meta.url);

/** How often a cancelled query is interrupted again until its worker answers. */
const CANCEL_RETRY_MS = 25;
/**
 * A running query still unanswered once it has had twice its time (and at least this much more)
 * is interrupted from this thread. The worker's progress handler stops a query at its deadline
 * between two steps of SQLite's VM, but one step may take seconds: `count(*)` walks a whole b-tree
 * in one, and on a cold 600 MB file that was 3.7 s under a 1 s limit (bench/big_files.ts).
 * `sqlite3_interrupt` is seen inside such a step too. Not at the limit itself: a quick query whose
 * thread waited for a core on a busy machine would then fail where the progress handler, which it
 * never reaches, lets it finish (a worker's first query, after opening its connection, took over
 * its 500 ms there).
 */
const LIMIT_GRACE_MS = 20;
/**
 * A worker running one query this long (wall clock) counts as stuck, whatever the query's past:
 * spares may start for the short queries behind it. Not at `LONG_QUERY_MS`: a fresh server's
 * first burst (sixteen 12 ms queries at once, whose cost was not known yet) ran each for over
 * 20 ms on two cores, and the spares it started held the main thread 45–90 ms each while Deno
 * built their isolates: the last answer came after 290–330 ms (median of six servers 316 ms; 280
 * with this line), the reference's after 205–225 (bench/honest_load.ts). Texts known to be long
 * still count at once.
 */
const STUCK_MS = 100;
/** How often waiting short queries look again for a worker that has turned long. */
const RECHECK_MS = 5;
/** How much lower base workers' scheduling priority is than the main thread's (Linux nice). */
const BASE_WORKER_NICENESS = 5;

/** How long a stopping worker may take to close its connections before it is terminated. */
const STOP_WAIT_MS = 5_000;
/** A spare worker without work for this long is stopped. */
const SPARE_IDLE_MS = 30_000;
/**
 * A base worker without work for this long is stopped, or asked to release memory when it is the
 * last. Longer than for spares: starting a worker again costs a boot (tens of milliseconds) to
 * the first query of the next burst.
 */
const BASE_IDLE_MS = 60_000;

/** A pool of read workers. Always `close()` it, or the process will not exit. */
export class ReadPool {
  /** Number of base workers. */
  readonly size: number;
  /** Most extra workers for short queries. */
  readonly spare: number;
  #options: Required<ReadPoolOptions>;
  #workers: PoolWorker[] = [];
  /**
   * Workers taken out of the pool, closing their connections before they are terminated; each
   * with what terminates it at once.
   */
  #retiring = new Map<PoolWorker, () => void>();
  /** The queries waiting for a worker. */
  #queue: PoolQueue;
  /** What each SQL text has cost so far (read by `database.ts` too, for tiny queries). */
  readonly costs: QueryCosts = new QueryCosts();
  #nextId = 1;
  #nextWorker = 0;
  #recheck: ReturnType<typeof setTimeout> | null = null;
  #closed = false;
  /** How long the pool has had workers but none ready: not charged to queued queries. */
  #boot = new BootClock();
  /** What the queue takes workers from (see {@link ReadPool.#pump}). */
  #supply: WorkerSupply = {
    workerFor: (spare) =>
      this.#freeWorker(spare) ?? this.#newBaseWorker() ?? (spare ? this.#newSpare() : null),
    mayTakeSpare: (job) => this.#mayTakeSpare(job),
    send: (worker, job) => this.#send(worker, job),
  };
  /** What export cursors use of the pool. */
  #cursorHost: CursorHost = {
    nextId: () => this.#nextId++,
    enqueue: (message, request, onSend) => this.#enqueue(message, request, undefined, onSend),
    onWorker: (worker, message) => this.#onWorker(worker, message),
  };

  /** Creates the pool; no worker starts until the first query. */
  constructor(options: ReadPoolOptions) {
    this.size = Math.max(0, Math.floor(options.size));
    this.spare = this.size === 0 ? 0 : Math.max(0, Math.floor(options.spare ?? 2));
    this.#options = {
      cacheSizeKb: 0,
      pluginModules: [],
      extensions: [],
      ...options,
      spare: this.spare,
      workerUrl: options.workerUrl ?? PLAIN_WORKER,
      onIdle: options.onIdle ?? (() => {}),
      spareIdleMs: options.spareIdleMs ?? SPARE_IDLE_MS,
      baseIdleMs: options.baseIdleMs ?? BASE_IDLE_MS,
    };
    this.#queue = new PoolQueue(
      this.costs,
      this.#boot,
      (job) => this.#abortRunning(job),
      () => this.#pump(),
    );
  }

  /**
   * Starts the base workers now, and resolves once they are ready. Creating a worker holds the
   * calling thread for 45–90 ms (Deno builds its isolate there), and booting one takes longer:
   * started on demand, they held the first pages of a fresh server, and every request arriving
   * with them (bench/big_files.ts, bench/cold_start.ts). A server calls this before it listens.
   * Workers started here and never used stop after their idle time like any other.
   */
  async prestart(): Promise<void> {
    if (this.#closed) return;
    const started: PoolWorker[] = [];
    while (this.#workers.filter((w) => !w.spare).length < this.size) {
      const worker = this.#startWorker(false);
      worker.used = true;
      started.push(worker);
      this.#next(worker);
    }
    // A worker that fails to boot leaves the pool (#drop), which wakes this loop too.
    while (!this.#closed && started.some((w) => !w.ready && this.#workers.includes(w))) {
      await new Promise<void>((resolve) => this.#readyWaiters.push(resolve));
    }
  }

  /** Callers of {@link prestart} waiting for a worker to become ready (or to leave). */
  #readyWaiters: (() => void)[] = [];

  #wakeReadyWaiters(): void {
    for (const wake of this.#readyWaiters.splice(0)) wake();
  }

  /** Workers started so far and whether each is running a query. */
  threads(): { name: string; busy: number }[] {
    return this.#workers.map((w) => ({ name: `vitrine-read-${w.index}`, busy: w.current ? 1 : 0 }));
  }

  /** Export cursors open (`_stream=on` downloads under way). */
  get cursors(): number {
    let open = 0;
    for (const worker of this.#workers) open += worker.cursors;
    return open;
  }

  /** Queries waiting for a worker. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * Runs a read query. Aborting `signal` drops a queued query, or interrupts a running one (it
   * then fails with SQLite's "interrupted"); so does reaching `request.deadline`.
   */
  async run(target: ReadTarget, request: ReadRequest, signal?: AbortSignal): Promise<ReadAnswer> {
    if (this.size === 0) throw new Error("This pool has no workers (num_sql_threads is 0)");
    if (this.#closed) throw new Error("The read pool is closed");
    const id = this.#nextId++;
    const message: ToWorker = { type: "query", id, target, request };
    const reply = await this.#enqueue(message, request, signal);
    if (reply.type === "error") throw reviveError(reply.error);
    if (reply.type !== "result") throw new Error(`Unexpected answer from a read worker`);
    let rows: SqlValue[][] | null = null;
    const { page } = reply;
    return {
      columns: reply.columns,
      truncated: reply.truncated,
      real_columns: reply.real_columns,
      count: reply.count,
      rows: () => {
        if (reply.rows === null) throw new Error("This export page was sent as lines only");
        return rows ??= decodeRows(reply.rows.json, reply.rows.tagged);
      },
      page: page && {
        bytes: page.bytes,
        edge: page.edge && decodeRows(page.edge.json, page.edge.tagged)[0],
      },
    };
  }

  /**
   * Reads `request`'s rows chunk by chunk (each as `next` asks: as export lines or as rows), in
   * one statement on one worker: the first chunk waits in the queue like any query, the following
   * ones go to the same worker as soon as it is free. Each chunk has `request.timeLimitMs` of its
   * own.
   */
  cursor(target: ReadTarget, request: ReadRequest): PoolCursor {
    if (this.size === 0) throw new Error("This pool has no workers (num_sql_threads is 0)");
    return openCursor(this.#cursorHost, target, request);
  }

  /** Sends `message` to `worker` once it is free (before anything from the queue). */
  #onWorker(worker: PoolWorker, message: ToWorker): Promise<FromWorker> {
    if (!this.#workers.includes(worker)) {
      return Promise.reject(new Error("The read worker holding this cursor is gone"));
    }
    return new Promise<FromWorker>((resolve, reject) => {
      const id = (message as { id: number }).id;
      worker.control.push(controlJob(id, message, resolve, reject));
      this.#next(worker);
    });
  }

  /**
   * Closes every worker connection that opens or attaches the database `name` (only that
   * `instance` of it when given: a file replaced under the same name is another database).
   */
  async forget(name: string, instance?: number): Promise<void> {
    await Promise.all(this.#workers.map((worker) =>
      new Promise<FromWorker>((resolve, reject) => {
        const message: ToWorker = { type: "forget", id: this.#nextId++, name, instance };
        const id = message.id;
        worker.control.push(controlJob(id, message, resolve, reject));
        this.#next(worker);
      })
    ));
  }

  /**
   * Fails queued and running queries at once (running ones are interrupted); each worker then
   * closes its connections and is terminated (after 5 s at the latest).
   */
  close(): void {
    this.#closed = true;
    this.#wakeReadyWaiters();
    const error = () => new Error("The read pool was closed");
    this.#queue.clear(error);
    if (this.#recheck !== null) clearTimeout(this.#recheck);
    // Each worker closes its connections before it is terminated (see #retire); what it was
    // running is interrupted and failed at once.
    for (const worker of [...this.#workers]) {
      this.#drop(worker, error(), false);
      this.#retire(worker);
    }
  }

  /** Queues a query (or an export's first chunk); `#pump` then hands out what it can. */
  #enqueue(
    message: ToWorker,
    request: ReadRequest,
    signal?: AbortSignal,
    onSend?: (worker: PoolWorker) => void,
  ): Promise<FromWorker> {
    return this.#queue.add(message, request, signal, onSend);
  }

  /**
   * Hands queued jobs to free workers (`PoolQueue.dispatch`), starting workers where the rules
   * allow. Base workers take any job; spares only short ones, and they keep one spare for texts
   * known to be short: a text never seen counts as short, but it may be a runaway. Four new
   * runaway queries at once took the three base workers and a spare, and every other query that
   * missed the main thread, new texts of the varied mix included, shared the last spare until the
   * runaways' time limit stopped them.
   */
  #pump(): void {
    if (this.#closed) return;
    const waiting = this.#queue.dispatch(this.#supply);
    // Short queries still waiting: a busy worker may soon count as long, allowing a spare.
    if (waiting && this.#recheck === null && this.#canAddSpare()) {
      this.#recheck = setTimeout(() => {
        this.#recheck = null;
        this.#pump();
      }, RECHECK_MS);
    }
  }

  /** Short jobs may take a spare; one whose text never ran only while another spare is left. */
  #mayTakeSpare(job: Job): boolean {
    if (job.long) return false;
    return job.knownShort || this.#unprovenOnSpares() < this.spare - 1;
  }

  /** Spares running a query whose text had never run before. */
  #unprovenOnSpares(): number {
    let count = 0;
    for (const w of this.#workers) {
      if (w.spare && w.current && w.current.sql !== null && !w.current.knownShort) count++;
    }
    return count;
  }

  /** A free worker, spares included when `spare`. */
  #freeWorker(spare: boolean): PoolWorker | undefined {
    return this.#workers.find((w) => !w.current && !w.control.length && (spare || !w.spare));
  }

  #newBaseWorker(): PoolWorker | null {
    const base = this.#workers.filter((w) => !w.spare).length;
    // The last worker giving back its memory is free again in a few milliseconds, sooner than a
    // new worker would boot (tens), which would then sit idle until it stopped again.
    if (base < this.size && !this.#workers.some((w) => w.current?.message.type === "release")) {
      return this.#startWorker(false);
    }
    return null;
  }

  /** A spare, when every worker is busy and one of them is stuck on a long query. */
  #newSpare(): PoolWorker | null {
    if (!this.#canAddSpare()) return null;
    const now = performance.now();
    // A worker still booting is not stuck: a spare would boot no faster.
    const stuck = this.#workers.some((w) =>
      w.ready && w.current && (w.current.long || now - w.since >= STUCK_MS)
    );
    return stuck ? this.#startWorker(true) : null;
  }

  #canAddSpare(): boolean {
    return this.#workers.filter((w) => w.spare).length < this.spare;
  }

  #startWorker(spare: boolean): PoolWorker {
    // A program may start every read worker from its own entry (cli.ts; see util/assets.ts).
    const module = readWorkerEntry(this.#options.workerUrl);
    const worker = new Worker(module, { type: "module", name: READ_WORKER_NAME });
    const entry: PoolWorker = {
      worker,
      index: this.#nextWorker++,
      spare,
      current: null,
      since: 0,
      control: [],
      pointer: null,
      idleTimer: null,
      cursors: 0,
      used: false,
      ready: false,
    };
    if (!this.#workers.some((w) => w.ready)) this.#boot.start();
    worker.onmessage = (event: MessageEvent<FromWorker>) => this.#onMessage(entry, event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      this.#onCrash(entry, new Error(`Read worker failed: ${event.message}`));
    };
    worker.onmessageerror = () => {
      this.#onCrash(entry, new Error("Read worker failed: a message could not be read"));
    };
    const { pluginModules, extensions, cacheSizeKb } = this.#options;
    // Base workers take the long queries: they yield the CPU to the main thread and to the
    // spares, which serve short queries (util/thread_priority.ts).
    const niceness = spare ? 0 : BASE_WORKER_NICENESS;
    worker.postMessage(
      { type: "init", pluginModules, extensions, cacheSizeKb, niceness } satisfies ToWorker,
    );
    this.#workers.push(entry);
    return entry;
  }

  #send(worker: PoolWorker, job: Job): void {
    if (worker.idleTimer !== null) clearTimeout(worker.idleTimer);
    worker.idleTimer = null;
    worker.current = job;
    worker.since = performance.now();
    if (job.message.type === "query" || job.message.type === "cursor") {
      this.#queue.chargeWait(job);
      job.message.sentAt = wallClock();
      worker.used = true;
    }
    job.onSend?.(worker);
    worker.worker.postMessage(job.message);
    // A worker still booting moves the query's deadline by its boot: armed once it is ready.
    if (worker.ready) this.#armLimit(worker, job, 0);
  }

  /**
   * Interrupts `job` if it is still running on `worker` well after its time is over (see
   * {@link LIMIT_GRACE_MS}): its request's deadline (moved by `boot`, the time the worker spent
   * booting after it was sent) or its own time limit from now. Only for queries: an export's
   * chunks are read ahead of their requests.
   */
  #armLimit(worker: PoolWorker, job: Job, boot: number): void {
    if (job.message.type !== "query") return;
    const { deadline, timeLimitMs } = job.message.request;
    let limit = timeLimitMs && timeLimitMs > 0 ? timeLimitMs : Infinity;
    if (deadline !== null) limit = Math.min(limit, deadline + boot - wallClock());
    if (limit === Infinity) return;
    job.limitTimer = setTimeout(() => {
      job.limitTimer = undefined;
      this.#interruptUntilAnswered(worker, job);
    }, Math.max(0, limit) + Math.max(LIMIT_GRACE_MS, limit));
  }

  /** Clears a running job's limit timer (it was answered, or its worker dropped). */
  #disarm(job: Job): void {
    if (job.limitTimer !== undefined) clearTimeout(job.limitTimer);
    job.limitTimer = undefined;
  }

  /** A worker became free: its control messages first, then the queue. */
  #next(worker: PoolWorker): void {
    if (worker.current) return;
    if (worker.control.length) return this.#send(worker, worker.control.shift()!);
    this.#pump();
    if (!worker.current && worker.used && worker.idleTimer === null) {
      const { spareIdleMs, baseIdleMs } = this.#options;
      worker.idleTimer = setTimeout(() => {
        worker.idleTimer = null;
        this.#idle(worker);
      }, worker.spare ? spareIdleMs : baseIdleMs);
    }
  }

  /** `worker` had no work for its idle time: it stops, or releases memory if the last base one. */
  #idle(worker: PoolWorker): void {
    if (worker.current || worker.control.length || worker.cursors) return;
    const otherBase = this.#workers.some((w) => w !== worker && !w.spare);
    if (worker.spare || otherBase) return this.#retire(worker);
    worker.used = false;
    const message: ToWorker = { type: "release", id: this.#nextId++ };
    const released = () => {
      if (!this.#closed) this.#options.onIdle();
    };
    worker.control.push(controlJob(message.id, message, released, () => {}));
    this.#next(worker);
  }

  /** A job whose signal was aborted after it left the queue: interrupted if still running. */
  #abortRunning(job: Job): void {
    const worker = this.#workers.find((w) => w.current === job);
    if (worker) this.#interruptUntilAnswered(worker, job);
  }

  #interruptUntilAnswered(worker: PoolWorker, job: Job): void {
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

  #onMessage(worker: PoolWorker, message: FromWorker): void {
    if (message.type === "ready") {
      worker.ready = true;
      // What it was sent while booting starts only now.
      worker.since = performance.now();
      const sentAt = worker.current?.message.type === "query"
        ? worker.current.message.sentAt
        : null;
      if (worker.current && sentAt != null) {
        this.#armLimit(worker, worker.current, Math.max(0, wallClock() - sentAt));
      }
      this.#boot.ready();
      this.#wakeReadyWaiters();
      return;
    }
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
    this.#disarm(job);
    // After "forget" the worker may have closed the connection we know about.
    if (job.message.type === "forget") worker.pointer = null;
    if (job.sql !== null && (message.type === "result" || message.type === "error")) {
      this.costs.record(job.sql, message.ms);
    }
    job.resolve(message);
    this.#next(worker);
  }

  /** Drops a dead worker (the next query starts a fresh one) and fails its queries. */
  #onCrash(worker: PoolWorker, error: Error): void {
    if (!this.#workers.includes(worker)) return;
    this.#drop(worker, error);
    this.#pump();
  }

  /**
   * Takes an idle worker out of the pool and terminates it once it has closed its connections:
   * terminating the thread frees its heap, but the SQLite connections it opened would stay open
   * for the life of the process, page cache and all.
   */
  #retire(worker: PoolWorker): void {
    this.#workers = this.#workers.filter((w) => w !== worker);
    worker.used = false;
    const stop = () => {
      clearTimeout(deadline);
      this.#retiring.delete(worker);
      worker.current = null;
      worker.worker.terminate();
    };
    // A worker stuck in plugin code never answers: it is terminated all the same.
    const deadline = setTimeout(stop, STOP_WAIT_MS);
    Deno.unrefTimer(deadline);
    this.#retiring.set(worker, stop);
    const message: ToWorker = { type: "stop", id: this.#nextId++ };
    worker.current = controlJob(message.id, message, stop, stop);
    worker.worker.postMessage(message);
  }

  /**
   * Removes a worker from the pool; `error` fails what it was running or holding. The thread is
   * terminated unless `terminate` is false (the caller then stops it).
   */
  #drop(worker: PoolWorker, error: Error | null, terminate = true): void {
    this.#workers = this.#workers.filter((w) => w !== worker);
    this.#wakeReadyWaiters();
    if (worker.idleTimer !== null) clearTimeout(worker.idleTimer);
    // Interrupt first, so the native query stops even though the thread is terminated.
    if (worker.current && worker.pointer !== null) this.#interrupt(worker.pointer);
    const jobs = [...(worker.current ? [worker.current] : []), ...worker.control];
    for (const job of jobs) this.#disarm(job);
    // Cleared first so that no cancel retry touches a connection of a terminated worker.
    worker.current = null;
    worker.control = [];
    worker.pointer = null;
    if (terminate) worker.worker.terminate();
    for (const job of jobs) job.reject(error ?? new Error("The read worker was stopped"));
  }
}
