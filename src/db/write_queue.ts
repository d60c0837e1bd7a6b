/**
 * `WriteQueue`: the single writer of one database. Tasks run one at a time in arrival order on
 * the main thread; `block: false` callers get a task id at once and errors are only logged.
 *
 * @module
 */

/** The longest run of back-to-back writes before other work gets a turn, in ms. */
const BUSY_SLICE_MS = 20;

/** A unit of write work; runs with exclusive use of the write connection. */
export type WriteTask<T> = () => T | Promise<T>;

/** Runs write tasks strictly one after another, first come first served. */
export class WriteQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;
  #label: string;
  /** When the current run of back-to-back tasks began, and when the last task ended. */
  #sliceStart = 0;
  #lastEnd = -Infinity;

  /** `label` names the database in logged errors of non-blocking writes. */
  constructor(label: string) {
    this.#label = label;
  }

  /** Tasks queued or running. */
  get pending(): number {
    return this.#pending;
  }

  /** Queues `task` and resolves with its result (or rejects with its error). */
  run<T>(task: WriteTask<T>): Promise<T> {
    this.#pending++;
    const result = this.#tail.then(() => this.#yieldIfBusy()).then(() => task());
    const settled = result.finally(() => {
      this.#pending--;
      this.#lastEnd = performance.now();
    });
    // The chain must survive a failed task, so the tail never rejects.
    this.#tail = settled.catch(() => {});
    return result;
  }

  /** Queues `task` without waiting: returns a task id; a failure is logged, never thrown. */
  enqueue(task: WriteTask<unknown>): string {
    const taskId = crypto.randomUUID();
    this.run(task).catch((error) => {
      console.error(`Write task ${taskId} on ${this.#label} failed:`, error);
    });
    return taskId;
  }

  /**
   * Tasks follow one another as promise callbacks, which run before any I/O: a long queue of
   * writes would keep every other request (health checks included) waiting until it is empty.
   * After {@link BUSY_SLICE_MS} of back-to-back writes, the next one waits for one turn of the
   * event loop. A write arriving at an idle queue starts at once.
   */
  async #yieldIfBusy(): Promise<void> {
    const now = performance.now();
    if (now - this.#lastEnd > 1) {
      this.#sliceStart = now;
      return;
    }
    if (now - this.#sliceStart < BUSY_SLICE_MS) return;
    await new Promise((resolve) => setTimeout(resolve, 0));
    this.#sliceStart = performance.now();
  }

  /** Resolves once every task queued so far has finished. */
  async drain(): Promise<void> {
    await this.#tail;
  }
}
