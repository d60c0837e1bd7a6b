/**
 * JSON for request bodies that keeps what each number was written as. `JSON.parse` turns
 * `12345678901234567890` into a rounded double and `1.0` into the integer `1`; a write API that
 * did the same would store different values than the client sent. Here integers beyond ±2^53
 * become exact `bigint`s and whole numbers written as floats (`1.0`, `2e3`) become
 * {@link JsonReal}, so they can be stored as REAL, as a Python client of the reference would get.
 *
 * @module
 */

/** A whole number written in float notation (`1.0`): a REAL, not an INTEGER. */
export class JsonReal {
  constructor(readonly value: number) {}
}

// What V8 passes as the third reviver argument (JSON.parse source text access).
interface ReviverContext {
  source?: string;
}

const INTEGER_LEXEME = /^-?\d+$/;
const NEEDS_SOURCE = /\d{16}|\d\.0+(?!\d)|\d[eE]/;

/**
 * Parses JSON `text`; numbers become `number`, `bigint` (integers outside the safe range) or
 * {@link JsonReal} (whole numbers with a fraction or exponent part).
 *
 * @throws {SyntaxError} for text that is not JSON
 */
export function parseExactJson(text: string): unknown {
  // The reviver costs about six times a plain parse; without a 16-digit run, a whole number
  // written with a fraction (`1.0`) or any exponent, plain JSON.parse loses nothing.
  if (!NEEDS_SOURCE.test(text)) return JSON.parse(text);
  return JSON.parse(text, function (_key, value, context?: ReviverContext) {
    if (typeof value !== "number" || context?.source === undefined) return value;
    const source = context.source;
    if (INTEGER_LEXEME.test(source)) {
      return Number.isSafeInteger(value) ? value : BigInt(source);
    }
    return Number.isInteger(value) ? new JsonReal(value) : value;
  });
}

/** JSON text of a parsed value: bigints stay exact, reals keep their `.0`. */
export function exactJsonText(value: unknown): string {
  return JSON.stringify(value, (_key, item) => {
    if (typeof item === "bigint") return rawJson(item.toString());
    if (item instanceof JsonReal) return rawJson(realText(item.value));
    return item;
  });
}

/** A float as Python writes it: `1.0`, `0.5`, `1e+21`. */
export function realText(value: number): string {
  const text = String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

// JSON.rawJSON (V8 11.4+) lets JSON.stringify emit number text it could not represent itself.
const rawJson = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;
