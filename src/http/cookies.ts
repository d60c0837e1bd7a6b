/**
 * Cookie header parsing and Set-Cookie serialisation, compatible with Python's http.cookies:
 * values outside the legal cookie alphabet are double-quoted with backslash-octal escapes, so a
 * cookie written by either side reads back the same on the other.
 */

/** Attributes for a Set-Cookie header (the spec's `set_cookie` keywords). */
export interface CookieOptions {
  /** Lifetime in seconds. */
  max_age?: number | null;
  /** A Date, seconds from now, or a ready HTTP date string. */
  expires?: Date | number | string | null;
  /** Path the cookie applies to (default `/`). */
  path?: string | null;
  /** Domain the cookie applies to. */
  domain?: string | null;
  /** Send over HTTPS only. */
  secure?: boolean;
  /** Hidden from page scripts (default true). */
  httponly?: boolean;
  /** SameSite policy (default `lax`). */
  samesite?: "lax" | "strict" | "none" | null;
}

const LEGAL_VALUE = /^[A-Za-z0-9!#$%&'*+\-.^_`|~:]*$/;
const SAMESITE_VALUES = new Set(["lax", "strict", "none"]);

/** Parse a `Cookie:` header into name → value; a later duplicate wins, as in Python. */
export function parseCookies(header: string | null | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  if (!header) return cookies;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim();
    if (!name) continue;
    cookies[name] = unquoteCookieValue(part.slice(eq + 1).trim());
  }
  return cookies;
}

/** Build one Set-Cookie header value. */
export function serializeCookie(name: string, value: string, options: CookieOptions = {}): string {
  const { path = "/", samesite = "lax" } = options;
  if (samesite !== null && !SAMESITE_VALUES.has(samesite)) {
    throw new RangeError(`Cannot set cookie "${name}": samesite must be lax, strict or none`);
  }
  const parts = [`${name}=${quoteCookieValue(value)}`];
  // Attribute order follows Python's SimpleCookie (alphabetical), so headers match byte for byte.
  if (options.domain) parts.push(`Domain=${options.domain}`);
  if (options.expires !== undefined && options.expires !== null) {
    parts.push(`expires=${httpDate(options.expires)}`);
  }
  if (options.httponly) parts.push("HttpOnly");
  if (options.max_age !== undefined && options.max_age !== null) {
    parts.push(`Max-Age=${options.max_age}`);
  }
  if (path) parts.push(`Path=${path}`);
  if (samesite) parts.push(`SameSite=${samesite}`);
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}

/** Name and value of a Set-Cookie header (attributes dropped). */
export function parseSetCookie(header: string): [string, string] | null {
  const first = header.split(";", 1)[0];
  const eq = first.indexOf("=");
  if (eq === -1) return null;
  return [first.slice(0, eq).trim(), unquoteCookieValue(first.slice(eq + 1).trim())];
}

/** Quote a cookie value the way Python's SimpleCookie does, when it needs quoting. */
export function quoteCookieValue(value: string): string {
  if (LEGAL_VALUE.test(value)) return value;
  let out = '"';
  for (const byte of new TextEncoder().encode(value)) {
    const c = String.fromCharCode(byte);
    if (c === '"' || c === "\\") out += "\\" + c;
    else if (byte < 0x20 || byte >= 0x7f || c === "," || c === ";") {
      out += "\\" + byte.toString(8).padStart(3, "0");
    } else out += c;
  }
  return out + '"';
}

/** Undo {@link quoteCookieValue}; unquoted values are returned unchanged. */
export function unquoteCookieValue(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  const inner = value.slice(1, -1);
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === "\\" && /^[0-3][0-7]{2}$/.test(inner.slice(i + 1, i + 4))) {
      bytes.push(parseInt(inner.slice(i + 1, i + 4), 8));
      i += 3;
    } else if (c === "\\" && i + 1 < inner.length) {
      bytes.push(...encoder.encode(inner[++i]));
    } else {
      bytes.push(...encoder.encode(c));
    }
  }
  return new TextDecoder().decode(new Uint8Array(bytes));
}

function httpDate(expires: Date | number | string): string {
  if (expires instanceof Date) return expires.toUTCString();
  if (typeof expires === "number") return new Date(Date.now() + expires * 1000).toUTCString();
  return expires;
}
