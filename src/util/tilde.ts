/**
 * Tilde encoding for database, table and row key names in URLs (SPEC "Naming rules").
 *
 * Percent-encoding with `~` instead of `%`: proxies and frameworks often decode `%2F` before the
 * application sees it, while `~2F` survives untouched.
 */
import { blobFromKeyText, blobKeyText, EMPTY_KEY_TEXT, keyText } from "./key_text.ts";

const SAFE_BYTE = new Uint8Array(256);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") {
  SAFE_BYTE[c.charCodeAt(0)] = 1;
}
const SPACE = 0x20;
const SAFE_TEXT = /^[A-Za-z0-9_-]*$/;
const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/**
 * Encode `s`: every UTF-8 byte outside `A-Z a-z 0-9 _ -` becomes `~XX` (uppercase hex) and a space
 * becomes `+`.
 *
 * @example tilde_encode("foo/bar.csv") === "foo~2Fbar~2Ecsv"
 */
export function tilde_encode(s: string): string {
  // Keys are mostly plain (numbers, simple names): nothing to encode.
  if (SAFE_TEXT.test(s)) return s;
  let out = "";
  for (const byte of utf8.encode(s)) {
    if (SAFE_BYTE[byte]) out += String.fromCharCode(byte);
    else if (byte === SPACE) out += "+";
    else out += "~" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/**
 * Decode a tilde-encoded string: `~XX` becomes the byte, `+` a space. A literal `%` is kept as is
 * (so `%2F` is never decoded by accident) and malformed `~` sequences stay literal.
 */
export function tilde_decode(s: string): string {
  // Most names have nothing to decode (this runs several times per request).
  if (!/[~+]/.test(s)) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "~" && isHexPair(s, i + 1)) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === "+") {
      bytes.push(SPACE);
    } else {
      const code = s.codePointAt(i)!;
      if (code > 0xffff) i++;
      bytes.push(...utf8.encode(String.fromCodePoint(code)));
    }
  }
  return utf8Decoder.decode(new Uint8Array(bytes));
}

function isHexPair(s: string, at: number): boolean {
  return /^[0-9A-Fa-f]{2}$/.test(s.slice(at, at + 2));
}

/** A row as views see it: an object or a Results row answering `row["column"]`. */
export type RowLike = Record<string, unknown> | { [column: string]: unknown };

/**
 * The URL path segment for a row: its primary key values (or `rowid` when `useRowid`), see
 * {@link rowPathOf}. A value given as `{ value, label }` (an expanded foreign key) contributes
 * its `value`.
 */
export function pathFromRowPks(row: RowLike, pks: string[], useRowid: boolean): string {
  const columns = useRowid ? ["rowid"] : pks;
  return rowPathOf(columns.map((column) => {
    const value = (row as Record<string, unknown>)[column];
    return value !== null && typeof value === "object" && "value" in value
      ? (value as { value: unknown }).value
      : value;
  }));
}

/**
 * A row's key values as the path segment of its URL (`1,a~2Cb`): each tilde-encoded, joined with
 * commas; NULL is `None`, as the reference writes it. Two values have no text that finds them
 * again, so they are written in forms tilde encoding never makes (it writes a value's `$` as
 * `~24`): a BLOB as `$x` and its hex, the empty string as `$empty`.
 */
export function rowPathOf(values: readonly unknown[]): string {
  return values.map((value) => {
    if (value instanceof Uint8Array) return blobKeyText(value);
    if (value === "") return EMPTY_KEY_TEXT;
    return tilde_encode(value === null || value === undefined ? "None" : String(value));
  }).join(",");
}

/** Split a row path (`1,a~2Cb`) into its primary key values as text (`["1", "a,b"]`). */
export function splitRowPath(path: string): string[] {
  return rowPathValues(path).map(keyText);
}

/**
 * The values to look a row up by, from its path: text, or the bytes of a `$x` part (see
 * {@link rowPathOf}).
 */
export function rowPathValues(path: string): (string | Uint8Array)[] {
  return path.split(",").map((part) =>
    blobFromKeyText(part) ?? (part === EMPTY_KEY_TEXT ? "" : tilde_decode(part))
  );
}
