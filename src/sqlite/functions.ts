/**
 * User-defined SQL functions, aggregates and collations, registered through
 * `Deno.UnsafeCallback`. Callbacks belong to the thread that created them and must outlive every
 * statement that may call them, so each connection keeps its callbacks in a {@link UserFunctions}
 * and closes them when the connection closes.
 *
 * @module
 */

import { SQLITE_DETERMINISTIC, SQLITE_INNOCUOUS, SQLITE_UTF8 } from "./constants.ts";
import { check } from "./errors.ts";
import { cString, sqlite } from "./ffi.ts";
import { readArguments, setResult, setResultError, type SqlValue } from "./values.ts";

/** A scalar SQL function; its return value becomes the SQL result. */
export type ScalarFunction = (...args: SqlValue[]) => unknown;
/** One aggregate group's state: `step()` per row, `finalize()` gives the result. */
export interface AggregateInstance {
  /** Adds one row's arguments. */
  step(...args: SqlValue[]): unknown;
  /** Returns the aggregate's value. */
  finalize(): unknown;
}
/** A class whose instances aggregate one group (Python sqlite3's `create_aggregate`). */
export type AggregateClass = new () => AggregateInstance;
/** Compares two strings: negative, zero or positive. */
export type CollationFunction = (a: string, b: string) => number;

const decoder = new TextDecoder();

const SCALAR = { parameters: ["pointer", "i32", "pointer"], result: "void" } as const;
const FINAL = { parameters: ["pointer"], result: "void" } as const;
const COMPARE = {
  parameters: ["pointer", "i32", "pointer", "i32", "pointer"],
  result: "i32",
} as const;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Rejects promises: SQLite needs the answer before the callback returns. */
function synchronous(value: unknown, what: string): unknown {
  if (value instanceof Promise) {
    value.catch(() => {}); // the result is discarded; avoid an unhandled rejection
    throw new Error(`${what} returned a Promise; SQL callbacks must be synchronous`);
  }
  return value;
}

/** The functions, aggregates and collations registered on one connection. */
export class UserFunctions {
  #db: Deno.PointerValue;
  #callbacks: { close(): void }[] = [];

  /** Registrations for the `sqlite3*` handle `db`. */
  constructor(db: Deno.PointerValue) {
    this.#db = db;
  }

  /**
   * Registers a scalar function (`numArgs` -1 accepts any number of arguments). `innocuous`
   * functions (no side effects, nothing private revealed) may also be called from views,
   * triggers and other schema SQL, which `trusted_schema=OFF` otherwise refuses.
   */
  createFunction(
    name: string,
    numArgs: number,
    fn: ScalarFunction,
    options: { deterministic?: boolean; innocuous?: boolean } = {},
  ): void {
    const callback = this.#keep(
      new Deno.UnsafeCallback(SCALAR, (context, argc, argv) => {
        try {
          const result = fn(...readArguments(argc, argv));
          setResult(context, synchronous(result, `Function ${name}()`));
        } catch (error) {
          setResultError(context, errorMessage(error));
        }
      }),
    );
    const flags = SQLITE_UTF8 | (options.deterministic ? SQLITE_DETERMINISTIC : 0) |
      (options.innocuous ? SQLITE_INNOCUOUS : 0);
    const rc = sqlite().sqlite3_create_function_v2(
      this.#db,
      cString(name),
      numArgs,
      flags,
      null,
      callback.pointer,
      null,
      null,
      null,
    );
    check(this.#db, rc);
  }

  /**
   * Registers an aggregate. SQLite gives each group a zeroed scratch area
   * (`sqlite3_aggregate_context`); we store there the id of the group's JS instance.
   */
  createAggregate(name: string, numArgs: number, Aggregate: AggregateClass): void {
    const instances = new Map<number, AggregateInstance>();
    const failed = new Set<number>();
    let nextId = 1;
    const lib = sqlite();

    const step = this.#keep(
      new Deno.UnsafeCallback(SCALAR, (context, argc, argv) => {
        const slot = new Int32Array(
          Deno.UnsafePointerView.getArrayBuffer(lib.sqlite3_aggregate_context(context, 4)!, 4),
        );
        let id = slot[0];
        try {
          if (failed.has(id)) return;
          if (id === 0) {
            id = slot[0] = nextId++;
            instances.set(id, new Aggregate());
          }
          const result = instances.get(id)!.step(...readArguments(argc, argv));
          synchronous(result, `Aggregate ${name} step()`);
        } catch (error) {
          instances.delete(id);
          if (id !== 0) failed.add(id);
          setResultError(context, errorMessage(error));
        }
      }),
    );

    const final = this.#keep(
      new Deno.UnsafeCallback(FINAL, (context) => {
        // With 0 bytes SQLite does not allocate: null means step never ran (empty group).
        const pointer = lib.sqlite3_aggregate_context(context, 0);
        const id = pointer === null ? 0 : new Int32Array(
          Deno.UnsafePointerView.getArrayBuffer(pointer, 4),
        )[0];
        if (failed.delete(id)) return;
        try {
          const instance = instances.get(id) ?? new Aggregate();
          instances.delete(id);
          setResult(context, synchronous(instance.finalize(), `Aggregate ${name} finalize()`));
        } catch (error) {
          instances.delete(id);
          setResultError(context, errorMessage(error));
        }
      }),
    );

    const rc = lib.sqlite3_create_function_v2(
      this.#db,
      cString(name),
      numArgs,
      SQLITE_UTF8,
      null,
      null,
      step.pointer,
      final.pointer,
      null,
    );
    check(this.#db, rc);
  }

  /**
   * Registers a collation. SQLite cannot report an error from a comparison, so a throwing
   * `compare` counts as "equal".
   */
  createCollation(name: string, compare: CollationFunction): void {
    const text = (length: number, pointer: Deno.PointerValue) =>
      length === 0 || pointer === null
        ? ""
        : decoder.decode(Deno.UnsafePointerView.getArrayBuffer(pointer, length));
    const callback = this.#keep(
      new Deno.UnsafeCallback(COMPARE, (_arg, lengthA, pointerA, lengthB, pointerB) => {
        try {
          const order = Number(compare(text(lengthA, pointerA), text(lengthB, pointerB)));
          return order < 0 ? -1 : order > 0 ? 1 : 0;
        } catch {
          return 0;
        }
      }),
    );
    const rc = sqlite().sqlite3_create_collation_v2(
      this.#db,
      cString(name),
      SQLITE_UTF8,
      null,
      callback.pointer,
      null,
    );
    check(this.#db, rc);
  }

  /** Frees every callback; call only after the connection is closed. */
  close(): void {
    for (const callback of this.#callbacks) callback.close();
    this.#callbacks = [];
  }

  #keep<T extends { close(): void }>(callback: T): T {
    this.#callbacks.push(callback);
    return callback;
  }
}
