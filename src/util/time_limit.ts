/**
 * A time limit on a promise that cannot itself be cancelled (a plugin's hook or view): after
 * `ms` the caller gets `onTimeout()`'s error and goes on; the promise is left to settle on its
 * own, its result ignored. The timer never keeps the process alive.
 *
 * @module
 */

/** `promise`, or `onTimeout()`'s error once `ms` milliseconds pass first (`ms` ≤ 0: no limit). */
export function withinTimeLimit<T>(
  promise: PromiseLike<T>,
  ms: number,
  onTimeout: () => Error,
): Promise<T> {
  if (!(ms > 0)) return Promise.resolve(promise);
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), ms);
    Deno.unrefTimer(timer);
    Promise.resolve(promise).then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
