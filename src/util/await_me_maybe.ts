/**
 * Resolve a hook result that may be a value, a promise, or a function returning either (pluggy-style
 * laziness from the spec). A function's result may itself be a promise or another function, so this
 * keeps unwrapping until a plain value remains.
 */
export async function await_me_maybe<T = unknown>(value: unknown): Promise<T> {
  let current = value;
  for (;;) {
    if (typeof current === "function") {
      current = current();
    } else if (isThenable(current)) {
      current = await current;
    } else {
      return current as T;
    }
  }
}

/** camelCase alias for internal callers (STYLE.md uses `awaitMeMaybe`). */
export const awaitMeMaybe: typeof await_me_maybe = await_me_maybe;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function";
}
