/**
 * Moving values between JS and SQLite: binding parameters, reading result columns, reading
 * function arguments and setting function results.
 *
 * Integers are read as doubles first (an `i64` FFI result is always a slow BigInt); only values
 * outside ±2^53 take the `int64` path and come back as `bigint`.
 *
 * @module
 */

import {
  SQLITE_BLOB,
  SQLITE_FLOAT,
  SQLITE_INTEGER,
  SQLITE_NULL,
  SQLITE_STATIC,
  SQLITE_TEXT,
  SQLITE_TRANSIENT,
} from "./constants.ts";
import { readCString, sqlite } from "./ffi.ts";

/** A value SQLite can return. */
export type SqlValue = null | number | bigint | string | Uint8Array;
/** A value that can be bound: booleans bind as 0/1, undefined as NULL. */
export type BindValue = SqlValue | boolean | undefined;
/** Positional (`?`, `?NNN`) values, or named (`:name`, `@name`, `$name`) values keyed without prefix. */
export type BindParams = BindValue[] | Record<string, BindValue>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// `i64` parameters are given a bigint: Deno 2.9 converts a number for them on a slow path, about
// 200 ns a call against 40 ns for a fresh BigInt (measured with sqlite3_bind_int64).
type BindInt64 = (stmt: Deno.PointerValue, index: number, value: bigint) => number;
type ResultInt64 = (context: Deno.PointerValue, value: bigint) => void;

// Text is encoded into this buffer and bound from it: SQLITE_TRANSIENT makes SQLite copy the
// bytes before the call returns, so the next value may overwrite them. Allocating a Uint8Array
// per value (TextEncoder.encode) made binding a short string cost 1 µs instead of 0.25 µs.
const scratch = new Uint8Array(64 * 1024);
const SHORT_TEXT = 64;

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A bigint as an `i64` argument; the FFI layer would silently wrap values outside the range. */
function int64(value: bigint): bigint {
  if (value < INT64_MIN || value > INT64_MAX) {
    throw new RangeError(`Cannot bind ${value}: SQLite integers are 64-bit (-2^63 to 2^63-1)`);
  }
  return value;
}

/** Integers SQLite can store as INTEGER; -0 stays a REAL so that its sign survives. */
function isInteger(value: number): boolean {
  return Number.isSafeInteger(value) && !Object.is(value, -0);
}

/** Binds one value at 1-based `index`; returns the SQLite result code. */
export function bindValue(stmt: Deno.PointerValue, index: number, value: BindValue): number {
  const lib = sqlite();
  if (value === null || value === undefined) return lib.sqlite3_bind_null(stmt, index);
  switch (typeof value) {
    case "number":
      // NaN binds as a REAL NaN, which SQLite stores as NULL.
      return isInteger(value)
        ? (lib.sqlite3_bind_int64 as BindInt64)(stmt, index, BigInt(value))
        : lib.sqlite3_bind_double(stmt, index, value);
    case "bigint":
      return (lib.sqlite3_bind_int64 as BindInt64)(stmt, index, int64(value));
    case "boolean":
      return (lib.sqlite3_bind_int64 as BindInt64)(stmt, index, value ? 1n : 0n);
    case "string": {
      // A UTF-16 code unit takes at most 3 UTF-8 bytes: text that surely fits goes through the
      // scratch buffer (SQLITE_TRANSIENT: SQLite copies it), longer text gets its own.
      const length = value.length;
      if (length <= SHORT_TEXT) {
        // Short ASCII text is copied by hand: cheaper than a call into the encoder.
        let i = 0;
        for (; i < length; i++) {
          const code = value.charCodeAt(i);
          if (code > 0x7f) break;
          scratch[i] = code;
        }
        if (i === length) {
          return lib.sqlite3_bind_text(stmt, index, scratch, length, SQLITE_TRANSIENT);
        }
      }
      if (length * 3 <= scratch.length) {
        const written = encoder.encodeInto(value, scratch).written;
        return lib.sqlite3_bind_text(stmt, index, scratch, written, SQLITE_TRANSIENT);
      }
      const bytes = encoder.encode(value);
      return lib.sqlite3_bind_text(stmt, index, bytes, bytes.byteLength, SQLITE_TRANSIENT);
    }
  }
  if (value instanceof Uint8Array) {
    // An empty buffer arrives as a NULL pointer, which SQLite would store as NULL.
    if (value.byteLength === 0) return lib.sqlite3_bind_zeroblob(stmt, index, 0);
    return lib.sqlite3_bind_blob(stmt, index, value, value.byteLength, SQLITE_TRANSIENT);
  }
  throw new TypeError(`Cannot bind a value of type ${describeType(value)}`);
}

/** The address of the first byte of `bytes`, for {@link bindTextAt}. */
export function addressOf(bytes: Uint8Array): bigint {
  return BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(bytes)));
}

/**
 * Binds the `length` bytes of UTF-8 text at `address` (inside a buffer, from {@link addressOf})
 * without a copy (SQLITE_STATIC): the caller keeps the buffer alive and unchanged until the
 * statement has been stepped and its bindings cleared or replaced. The importer's rows arrive as
 * one buffer of text per batch; binding each value where it lies, with its address a bigint
 * rather than a view object per value, took binding and inserting them from about 0.9 to 0.3 s of
 * CPU for a million rows of five columns.
 */
export function bindTextAt(
  stmt: Deno.PointerValue,
  index: number,
  address: bigint,
  length: number,
): number {
  // An empty buffer may have no address, and a NULL pointer would bind NULL.
  if (length === 0) return bindValue(stmt, index, "");
  return sqlite().sqlite3_bind_text_at(stmt, index, address, length, SQLITE_STATIC);
}

function describeType(value: unknown): string {
  return typeof value === "object" ? (value?.constructor?.name ?? "object") : typeof value;
}

/** Number of UTF-8 bytes needed for `text` (lone surrogates count as the 3-byte U+FFFD). */
function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Decodes text of `byteLength` bytes at `pointer`. `getCString` is 8x faster than TextDecoder but
 * stops at a NUL byte, so when its result is shorter than SQLite's byte count we decode the
 * exact bytes instead (pure-ASCII text is confirmed by the length compare alone). Invalid UTF-8
 * (`cast(x'ff00' as text)`) decodes to U+FFFD, whose 3 bytes could make a cut-short string look
 * complete, so text holding U+FFFD is decoded exactly too.
 */
export function readText(pointer: Deno.PointerValue, byteLength: number): string {
  if (pointer === null || byteLength === 0) return "";
  const text = Deno.UnsafePointerView.getCString(pointer);
  if (text.length === byteLength) return text;
  if (utf8Length(text) === byteLength && !text.includes("\uFFFD")) return text;
  return decoder.decode(Deno.UnsafePointerView.getArrayBuffer(pointer, byteLength));
}

/** Copies `byteLength` bytes at `pointer` into a fresh Uint8Array. */
export function readBlob(pointer: Deno.PointerValue, byteLength: number): Uint8Array {
  const out = new Uint8Array(byteLength);
  if (pointer !== null && byteLength > 0) new Deno.UnsafePointerView(pointer).copyInto(out);
  return out;
}

/** {@link readColumn}'s mark in `seen[i]` for an INTEGER value. */
export const SEEN_INTEGER = 1;
/** {@link readColumn}'s mark in `seen[i]` for a REAL value. */
export const SEEN_REAL = 2;

/**
 * Reads column `i` of the current row of `stmt`. Both storage classes of numbers come back as
 * JavaScript numbers; `seen[i]`, when given, collects which were met ({@link SEEN_INTEGER},
 * {@link SEEN_REAL}), so that a REAL `12.0` can still be written `12.0` (`Statement.realColumns`).
 */
export function readColumn(stmt: Deno.PointerValue, i: number, seen?: Uint8Array): SqlValue {
  const lib = sqlite();
  switch (lib.sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER: {
      if (seen) seen[i] |= SEEN_INTEGER;
      const asDouble = lib.sqlite3_column_double(stmt, i);
      return Number.isSafeInteger(asDouble) ? asDouble : lib.sqlite3_column_int64(stmt, i);
    }
    case SQLITE_FLOAT:
      if (seen) seen[i] |= SEEN_REAL;
      return lib.sqlite3_column_double(stmt, i);
    case SQLITE_TEXT: {
      const pointer = lib.sqlite3_column_text(stmt, i);
      return readText(pointer, lib.sqlite3_column_bytes(stmt, i));
    }
    case SQLITE_BLOB: {
      const pointer = lib.sqlite3_column_blob(stmt, i);
      return readBlob(pointer, lib.sqlite3_column_bytes(stmt, i));
    }
    default:
      return null;
  }
}

/** Reads a `sqlite3_value*` (a function argument). */
export function readSqliteValue(value: Deno.PointerValue): SqlValue {
  const lib = sqlite();
  switch (lib.sqlite3_value_type(value)) {
    case SQLITE_INTEGER: {
      const asDouble = lib.sqlite3_value_double(value);
      return Number.isSafeInteger(asDouble) ? asDouble : lib.sqlite3_value_int64(value);
    }
    case SQLITE_FLOAT:
      return lib.sqlite3_value_double(value);
    case SQLITE_TEXT: {
      const pointer = lib.sqlite3_value_text(value);
      return readText(pointer, lib.sqlite3_value_bytes(value));
    }
    case SQLITE_BLOB: {
      const pointer = lib.sqlite3_value_blob(value);
      return readBlob(pointer, lib.sqlite3_value_bytes(value));
    }
    case SQLITE_NULL:
    default:
      return null;
  }
}

/** Reads the `argc` arguments of a function call from the `argv` array of value pointers. */
export function readArguments(argc: number, argv: Deno.PointerValue): SqlValue[] {
  const args = new Array<SqlValue>(argc);
  if (argc === 0 || argv === null) return args;
  const view = new Deno.UnsafePointerView(argv);
  for (let i = 0; i < argc; i++) {
    args[i] = readSqliteValue(Deno.UnsafePointer.create(view.getBigUint64(i * 8)));
  }
  return args;
}

/** Sets the result of a function call from a JS value. */
export function setResult(context: Deno.PointerValue, value: unknown): void {
  const lib = sqlite();
  if (value === null || value === undefined) return lib.sqlite3_result_null(context);
  switch (typeof value) {
    case "number":
      return isInteger(value)
        ? (lib.sqlite3_result_int64 as ResultInt64)(context, BigInt(value))
        : lib.sqlite3_result_double(context, value);
    case "bigint":
      if (value < INT64_MIN || value > INT64_MAX) {
        return setResultError(context, `Function result ${value} does not fit in 64 bits`);
      }
      return (lib.sqlite3_result_int64 as ResultInt64)(context, value);
    case "boolean":
      return (lib.sqlite3_result_int64 as ResultInt64)(context, value ? 1n : 0n);
    case "string": {
      const bytes = encoder.encode(value);
      return lib.sqlite3_result_text(context, bytes, bytes.byteLength, SQLITE_TRANSIENT);
    }
  }
  if (value instanceof Uint8Array) {
    if (value.byteLength === 0) return lib.sqlite3_result_zeroblob(context, 0);
    return lib.sqlite3_result_blob(context, value, value.byteLength, SQLITE_TRANSIENT);
  }
  setResultError(
    context,
    `Unsupported result type from a user-defined function: ${describeType(value)}`,
  );
}

/** Makes the current function call fail with `message`. */
export function setResultError(context: Deno.PointerValue, message: string): void {
  const bytes = encoder.encode(message);
  sqlite().sqlite3_result_error(context, bytes, bytes.byteLength);
}

/** Name of bind parameter `index` without its `:`/`@`/`$` prefix, or null for `?`/`?NNN`. */
export function parameterName(stmt: Deno.PointerValue, index: number): string | null {
  const name = readCString(sqlite().sqlite3_bind_parameter_name(stmt, index));
  if (name === null || name.startsWith("?")) return null;
  return name.slice(1);
}
