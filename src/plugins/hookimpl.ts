/**
 * `hookimpl` marks a hook implementation with options, like pluggy's decorator:
 *
 * ```ts
 * export const forbidden = hookimpl(({ message }) => null, { trylast: true });
 * export const my_render = hookimpl({ specname: "render_cell" })(({ value }) => null);
 * ```
 *
 * Marking is optional: any exported function named as a hook is an implementation.
 *
 * @module
 */

/** Options of a hook implementation. */
export interface HookimplOptions {
  /** Call this implementation before all others without `tryfirst`. */
  tryfirst?: boolean;
  /** Call this implementation after all others without `trylast`. */
  trylast?: boolean;
  /** The hook this function implements, when its export name differs. */
  specname?: string;
}

/** The symbol under which the options are stored on the function. */
const HOOKIMPL = Symbol.for("vitrine.hookimpl");

/** Any function: what `hookimpl` can mark. */
// deno-lint-ignore no-explicit-any
export type AnyFunction = (...args: any[]) => unknown;

/** Marks `fn` as a hook implementation with `options`; returns `fn` itself. */
export function hookimpl<F extends AnyFunction>(fn: F, options?: HookimplOptions): F;
/** Curried form: `hookimpl({ tryfirst: true })(fn)`. */
export function hookimpl(options: HookimplOptions): <F extends AnyFunction>(fn: F) => F;
export function hookimpl<F extends AnyFunction>(
  fnOrOptions: F | HookimplOptions,
  options: HookimplOptions = {},
): F | (<G extends AnyFunction>(fn: G) => G) {
  if (typeof fnOrOptions === "function") return mark(fnOrOptions, options);
  return <G extends AnyFunction>(fn: G) => mark(fn, fnOrOptions);
}

function mark<F extends AnyFunction>(fn: F, options: HookimplOptions): F {
  if (options.tryfirst && options.trylast) {
    throw new TypeError(`hookimpl "${fn.name}": tryfirst and trylast cannot both be set`);
  }
  Object.defineProperty(fn, HOOKIMPL, { value: { ...options }, configurable: true });
  return fn;
}

/** The options `fn` was marked with, or null for an unmarked function. */
export function hookimplOptions(fn: unknown): HookimplOptions | null {
  if (typeof fn !== "function") return null;
  return (fn as unknown as Record<symbol, HookimplOptions | undefined>)[HOOKIMPL] ?? null;
}
