/**
 * The read pool's queue (`pool.ts`): the queries waiting for a worker, in two lanes, the order in
 * which free workers take them, and how far their deadlines move while they wait (docs/internals.md
 * "Read pool").
 *
 * - A query whose SQL text has been long so far (`query_costs.ts`) waits in the long lane; every
 *   other query (new texts too) in the short lane, which is served first. The lane is decided
 *   again whenever a cost is recorded, so the queries of one text keep their order when its cost
 *   crosses the line; and a long query that has waited {@link LONG_WAIT_MS} goes before the short
 *   ones, which keep the spares.
 * - A query's deadline is moved by its own wait here, up to `QUEUE_WAIT_FACTOR` (`pool_jobs.ts`)
 *   times its time limit, and by the time the pool spent booting workers: a query waiting longer
 *   fails as interrupted without running.
 *
 * Which worker takes a job, and starting one, is the pool's ({@link WorkerSupply}).
 *
 * @module
 */

import type { ReadRequest } from "./read_query.ts";
import { interruptedError, wallClock } from "./read_query.ts";
import type { QueryCosts } from "./query_costs.ts";
import { type Job, jobRequest, type PoolWorker, queueBound } from "./pool_jobs.ts";
import type { FromWorker, ToWorker } from "./worker_protocol.ts";

/**
 * A query in the long lane that has waited this long (ms) is taken by the next free base worker
 * before the short lane. Without it, a steady stream of short queries kept the long lane waiting
 * until its queries failed at their deadline: 27 failed answers in 5 s of the varied mix
 * (bench/honest_load.ts). Short queries still have the spares meanwhile.
 */
export const LONG_WAIT_MS = 250;

/** What the queue needs of the pool's workers to hand jobs out. */
export interface WorkerSupply {
  /** A free worker, or a new one where the pool's rules allow; spares too when `spare`. */
  workerFor(spare: boolean): PoolWorker | null;
  /** The job may run on a spare worker. */
  mayTakeSpare(job: Job): boolean;
  /** Sends a job taken out of the queue to `worker`. */
  send(worker: PoolWorker, job: Job): void;
}

/**
 * How long the pool has had workers but none ready (wall ms): the time queued queries waited for
 * a boot, which is not theirs.
 */
export class BootClock {
  #bootedFor = 0;
  /** Since when it has had workers but none ready, or null. */
  #since: number | null = null;

  /** A worker starts while none is ready: booting time counts from now (if it did not already). */
  start(): void {
    if (this.#since === null) this.#since = wallClock();
  }

  /** A worker is ready: booting time stops counting. */
  ready(): void {
    if (this.#since === null) return;
    this.#bootedFor += wallClock() - this.#since;
    this.#since = null;
  }

  /** Booting time up to now (wall ms). */
  ms(): number {
    const since = this.#since;
    return this.#bootedFor + (since === null ? 0 : wallClock() - since);
  }
}

/** The queries waiting for a read worker, in two lanes. */
export class PoolQueue {
  #short: Job[] = [];
  #long: Job[] = [];
  /** `costs.version` when the lanes were last sorted (see {@link PoolQueue.relane}). */
  #lanedAt = 0;
  #costs: QueryCosts;
  #boot: BootClock;
  #abortRunning: (job: Job) => void;
  #added: () => void;

  /**
   * `costs` decides the lanes, `boot` says how long the pool has been booting; `abortRunning`
   * interrupts a job whose signal is aborted after it left the queue; `added` is called once a job
   * is queued (the pool then hands out what it can).
   */
  constructor(
    costs: QueryCosts,
    boot: BootClock,
    abortRunning: (job: Job) => void,
    added: () => void,
  ) {
    this.#costs = costs;
    this.#boot = boot;
    this.#abortRunning = abortRunning;
    this.#added = added;
  }

  /** Queries waiting. */
  get length(): number {
    return this.#short.length + this.#long.length;
  }

  /**
   * Queues `message`; the promise settles with the worker's answer. Aborting `signal` drops the
   * job while queued, or interrupts it once running; reaching `request.deadline` (moved by its
   * wait, see {@link PoolQueue.chargeWait}) fails it as interrupted.
   */
  add(
    message: ToWorker,
    request: ReadRequest,
    signal?: AbortSignal,
    onSend?: (worker: PoolWorker) => void,
  ): Promise<FromWorker> {
    return new Promise<FromWorker>((resolve, reject) => {
      const job: Job = {
        id: (message as { id: number }).id,
        message,
        sql: request.sql,
        long: this.#costs.isLong(request.sql),
        knownShort: this.#costs.isKnownShort(request.sql),
        queuedAt: performance.now(),
        credited: 0,
        bootMark: this.#boot.ms(),
        timer: null,
        onSend,
        resolve,
        reject,
      };
      if (signal) {
        if (signal.aborted) return reject(signal.reason);
        const onAbort = () => this.#cancel(job, signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        const done = () => signal.removeEventListener("abort", onAbort);
        job.resolve = (value) => (done(), resolve(value));
        job.reject = (error) => (done(), reject(error));
      }
      if (request.deadline !== null) {
        const wait = request.deadline - wallClock();
        if (wait <= 0) return job.reject(interruptedError());
        job.timer = setTimeout(() => this.#expire(job), wait + queueBound(request));
      }
      (job.long ? this.#long : this.#short).push(job);
      this.#added();
    });
  }

  /** Fails every waiting job with `error()` and empties the queue. */
  clear(error: () => Error): void {
    for (const job of [...this.#short, ...this.#long]) this.#settle(job).reject(error());
    this.#short = [];
    this.#long = [];
  }

  /**
   * Hands queued jobs to workers from `supply`, the short lane first. Base workers take any job;
   * spares only those `supply.mayTakeSpare`. Returns whether a job that may take a spare is still
   * waiting (a busy worker may soon count as long, allowing a spare).
   */
  dispatch(supply: WorkerSupply): boolean {
    this.relane();
    // A long query that has waited its turn long enough goes first, on a base worker.
    const now = performance.now();
    while (this.#long.length && now - this.#long[0].queuedAt >= LONG_WAIT_MS) {
      const worker = supply.workerFor(false);
      if (!worker) break;
      supply.send(worker, this.#settle(this.#long.shift()!));
    }
    let waiting = false;
    for (const lane of [this.#short, this.#long]) {
      for (let i = 0; i < lane.length;) {
        const job = lane[i];
        const spareOk = supply.mayTakeSpare(job);
        const worker = supply.workerFor(spareOk);
        if (worker) {
          lane.splice(i, 1);
          supply.send(worker, this.#settle(job));
          continue;
        }
        // No base worker to be had: only later short jobs that may take a spare can still go.
        if (spareOk) {
          waiting = true;
          break;
        }
        if (lane === this.#long) break;
        i++;
      }
    }
    return waiting;
  }

  /**
   * Sorts the waiting queries into their lanes again by what their texts cost now, each lane in
   * the order they arrived. A lane decided once at arrival split the queries of one text whose
   * cost hovered around `LONG_QUERY_MS` (`query_costs.ts`): those queued while it counted as short
   * overtook those queued while it counted as long, again and again, and sixteen clients asking
   * `select count(*), random()` of 500,000 rows (21 ms) got answers after over a second and
   * failures at the deadline while the average wait was 250 ms (bench/honest_load.ts).
   */
  relane(): void {
    if (this.#lanedAt === this.#costs.version) return;
    this.#lanedAt = this.#costs.version;
    const waiting = this.#short.length + this.#long.length;
    if (waiting === 0) return;
    let moved = false;
    for (const job of [...this.#short, ...this.#long]) {
      if (job.sql === null) continue;
      const long = this.#costs.isLong(job.sql);
      if (long !== job.long) moved = true;
      job.long = long;
      job.knownShort = this.#costs.isKnownShort(job.sql);
    }
    if (!moved) return;
    const all = [...this.#short, ...this.#long].sort((a, b) => a.id - b.id);
    this.#short = all.filter((job) => !job.long);
    this.#long = all.filter((job) => job.long);
  }

  /**
   * Moves the deadline of a job leaving the queue by its wait: the time it waited for a boot (one
   * it waits on its worker's boot the worker adds itself, `sentAt`), and its wait in the queue,
   * which is not its own time either, up to its bound.
   */
  chargeWait(job: Job): void {
    this.#chargeBoot(job);
    const credit = this.#queueCredit(job);
    const request = jobRequest(job);
    if (credit > 0 && request && request.deadline !== null) {
      request.deadline += credit;
      job.credited += credit;
    }
  }

  #cancel(job: Job, reason: unknown): void {
    if (this.#unqueue(job)) {
      this.#settle(job).reject(reason instanceof Error ? reason : new Error(String(reason)));
      return;
    }
    this.#abortRunning(job);
  }

  /** Clears a job's queue timer; returns it for resolving or rejecting. */
  #settle(job: Job): Job {
    if (job.timer !== null) clearTimeout(job.timer);
    job.timer = null;
    return job;
  }

  /**
   * A queued job reached its deadline moved by its longest wait (`queueBound`): it fails as
   * interrupted without running, unless part of its wait was for workers to boot. No worker
   * could take it then (a cold start, or on a machine so busy that loading the modules takes a
   * second), and that time is not the query's: its deadline moves by as much.
   */
  #expire(job: Job): void {
    job.timer = null;
    this.#chargeBoot(job);
    const request = jobRequest(job);
    const left = request?.deadline == null
      ? 0
      : request.deadline + this.#queueCredit(job) - wallClock();
    if (left > 0) {
      job.timer = setTimeout(() => this.#expire(job), left);
      return;
    }
    if (this.#unqueue(job)) job.reject(interruptedError());
  }

  /**
   * How much more the job's deadline moves for its wait in the queue so far: the wait, up to its
   * bound, less what it was already given (boots).
   */
  #queueCredit(job: Job): number {
    const request = jobRequest(job);
    if (!request) return 0;
    const waited = Math.min(performance.now() - job.queuedAt, queueBound(request));
    return Math.max(0, waited - job.credited);
  }

  /** Moves the job's deadline by the booting time since its mark; returns how much. */
  #chargeBoot(job: Job): number {
    const booting = this.#boot.ms();
    const boot = booting - job.bootMark;
    job.bootMark = booting;
    const request = jobRequest(job);
    if (boot > 0 && request?.deadline != null) {
      request.deadline += boot;
      job.credited += boot;
    }
    return boot;
  }

  #unqueue(job: Job): boolean {
    for (const lane of [this.#short, this.#long]) {
      const at = lane.indexOf(job);
      if (at >= 0) {
        lane.splice(at, 1);
        return true;
      }
    }
    return false;
  }
}
