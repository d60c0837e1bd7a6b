/**
 * MultiParams: the spec's multi-valued mapping for `request.args` (query strings and form bodies).
 */
import { keyError } from "../util/key_error.ts";

/** What a MultiParams can be built from. */
export type MultiParamsInit =
  | URLSearchParams
  | string
  | Iterable<readonly [string, string]>
  | Record<string, string | readonly string[]>;

// Property reads that runtimes and libraries make while probing an object; answering them with a
// KeyError would break `await`, JSON.stringify and inspection.
const PROBED_NAMES = new Set(["then", "toJSON", "inspect", "nodeType", "asymmetricMatch"]);

/**
 * `?foo=1&foo=2&bar=3` as a mapping of key to values, in first-seen key order.
 *
 * `args["foo"]` gives the first value and throws a KeyError when missing; `"foo" in args` tests a
 * key. Method names (`get`, `keys`, ...) win over same-named keys for property access; use
 * `args.get(name)` for those.
 */
export class MultiParams {
  /** Index signature for `args["key"]` (served by the Proxy returned from the constructor). */
  [key: string]: unknown;
  #values = new Map<string, string[]>();

  /** Parameters from a query string, `URLSearchParams`, pairs or an object of lists. */
  constructor(init: MultiParamsInit = "") {
    for (const [key, value] of toPairs(init)) {
      const list = this.#values.get(key);
      if (list) list.push(value);
      else this.#values.set(key, [value]);
    }
    // deno-lint-ignore no-this-alias
    const target = this;
    // Methods bound once per instance: a page calls `args.get` dozens of times.
    const bound = new Map<string | symbol, unknown>();
    return new Proxy(target, {
      get(obj, prop) {
        // Methods first: `args.get(…)` is what a page asks most.
        const method = bound.get(prop);
        if (method) return method;
        if (typeof prop === "symbol" || prop in obj) {
          const value = Reflect.get(obj, prop, obj);
          if (typeof value !== "function") return value;
          const fn = value.bind(obj);
          bound.set(prop, fn);
          return fn;
        }
        const list = obj.#values.get(prop);
        if (list) return list[0];
        if (PROBED_NAMES.has(prop)) return undefined;
        throw keyError(prop);
      },
      has(obj, prop) {
        return typeof prop === "string" ? obj.#values.has(prop) : Reflect.has(obj, prop);
      },
    });
  }

  /** First value for `key`, or `fallback` (default null). */
  get(key: string, fallback: string | null = null): string | null {
    return this.#values.get(key)?.[0] ?? fallback;
  }

  /** Every value for `key`; an empty array when missing. */
  getlist(key: string): string[] {
    return [...(this.#values.get(key) ?? [])];
  }

  /** The distinct keys, in first-seen order. */
  keys(): string[] {
    return [...this.#values.keys()];
  }

  /** True when `key` is present (same as `key in args`). */
  has(key: string): boolean {
    return this.#values.has(key);
  }

  /** Every `[key, value]` pair, keys grouped in first-seen order. */
  pairs(): [string, string][] {
    const out: [string, string][] = [];
    for (const [key, list] of this.#values) for (const value of list) out.push([key, value]);
    return out;
  }

  /** Number of distinct keys (Python's `len(args)`). */
  get length(): number {
    return this.#values.size;
  }

  /** Iterates over keys, like a Python dict. */
  *[Symbol.iterator](): IterableIterator<string> {
    yield* this.#values.keys();
  }

  /** The parameters as a query string, without `?`. */
  toString(): string {
    return new URLSearchParams(this.pairs()).toString();
  }

  /** Shown by console.log / Deno.inspect. */
  [Symbol.for("Deno.customInspect")](): string {
    return `MultiParams(${JSON.stringify(Object.fromEntries(this.#values))})`;
  }
}

function toPairs(init: MultiParamsInit): Iterable<readonly [string, string]> {
  if (typeof init === "string") return new URLSearchParams(init);
  if (init instanceof URLSearchParams) return init;
  if (Symbol.iterator in init) return init as Iterable<readonly [string, string]>;
  const pairs: [string, string][] = [];
  for (const [key, value] of Object.entries(init)) {
    if (Array.isArray(value)) { for (const v of value) pairs.push([key, String(v)]); }
    else pairs.push([key, String(value)]);
  }
  return pairs;
}
