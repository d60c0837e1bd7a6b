/**
 * `WriteQueue`: the single writer of one database. Tasks run one at a time in arrival order on
 * the main thread; `block: false` callers get a task id at once and errors are only logged.
 *
 * @module
 */

/** A unit of write work; runs with exclusive use of the write connection. */
export type WriteTask<T> = () => T | Promise<T>;

/** Runs write tasks strictly one after another, first come first served. */
export class WriteQueue {
  #tail: Promise<unknown> = Promise.resolve();
  #pending = 0;
  #label: string;

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
    const result = this.#tail.then(() => task());
    const settled = result.finally(() => this.#pending--);
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

  /** Resolves once every task queued so far has finished. */
  async drain(): Promise<void> {
    await this.#tail;
  }
}
