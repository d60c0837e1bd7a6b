/**
 * `payload.signature` signing, byte-compatible with itsdangerous `URLSafeSerializer(secret,
 * salt=namespace)` (API-DETAILS §13), so `ds_actor` cookies and `dstok_` tokens interoperate with
 * Datasette given the same secret.
 *
 * @module
 */

import { Buffer } from "node:buffer";
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { deflateSync, inflateSync } from "node:zlib";

/** Thrown by {@link Signer.unsign} when a signed value was tampered with or is malformed. */
export class BadSignature extends Error {
  override name = "BadSignature";
  constructor(message = "Signature does not match", options?: ErrorOptions) {
    super(message, options);
  }
}

/**
 * The secret to sign with: the one given, else `VITRINE_SECRET`, else 32 random bytes (hex) — a
 * secret of this process only, so its cookies and tokens end with it. An empty value counts as
 * none: a blank `VITRINE_SECRET=` must not sign everything with an empty key.
 */
export function instanceSecret(given?: string | null): string {
  if (given) return given;
  const fromEnv = Deno.env.get("VITRINE_SECRET");
  if (fromEnv) return fromEnv;
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Signs JSON-serialisable values with HMAC-SHA1, one derived key per namespace. */
export class Signer {
  readonly #secret: string;
  readonly #keys = new Map<string, Buffer>();

  /** @param secret the instance secret (`--secret` / `VITRINE_SECRET`) */
  constructor(secret: string) {
    this.#secret = secret;
  }

  /**
   * Sign `value` under `namespace`.
   *
   * @example
   * ```ts
   * new Signer("secret").sign({ a: { id: "root" } }, "actor");
   * // "eyJhIjp7ImlkIjoicm9vdCJ9fQ.Nyuc5Q7xhxf1VMYzBUosCIdrdW0"
   * ```
   */
  sign(value: unknown, namespace = "default"): string {
    const payload = encodePayload(value);
    return `${payload}.${this.#signature(payload, namespace)}`;
  }

  /**
   * Verify `text` signed under `namespace` and return the original value.
   *
   * @throws {BadSignature} when the signature does not match or the payload cannot be decoded
   */
  unsign(text: string, namespace = "default"): unknown {
    if (typeof text !== "string") throw new BadSignature("Signed value must be a string");
    const dot = text.lastIndexOf(".");
    if (dot < 0) throw new BadSignature('No "." found in value');
    const payload = text.slice(0, dot);
    const given = Buffer.from(text.slice(dot + 1));
    const expected = Buffer.from(this.#signature(payload, namespace));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new BadSignature(`Signature "${text.slice(dot + 1)}" does not match`);
    }
    try {
      return decodePayload(payload);
    } catch (error) {
      throw new BadSignature("Could not decode the signed payload", { cause: error });
    }
  }

  #signature(payload: string, namespace: string): string {
    return createHmac("sha1", this.#key(namespace)).update(payload).digest("base64url");
  }

  // itsdangerous' default "django-concat" derivation: SHA1(salt + "signer" + secret).
  #key(namespace: string): Buffer {
    let key = this.#keys.get(namespace);
    if (!key) {
      key = createHash("sha1").update(namespace + "signer" + this.#secret).digest();
      this.#keys.set(namespace, key);
    }
    return key;
  }
}

function encodePayload(value: unknown): string {
  const json = Buffer.from(compactJson(value), "utf8");
  const compressed = deflateSync(json);
  // itsdangerous only keeps the compressed form when it saves at least two bytes.
  if (compressed.length < json.length - 1) return "." + compressed.toString("base64url");
  return json.toString("base64url");
}

// itsdangerous 2.x dumps with separators=(",", ":") and ensure_ascii=False, which writes the same
// bytes as JSON.stringify: raw UTF-8, with only quotes, backslashes and control characters escaped.
function compactJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) {
    throw new TypeError(`Cannot sign a value of type ${typeof value}: it has no JSON form`);
  }
  return text;
}

function decodePayload(payload: string): unknown {
  const compressed = payload.startsWith(".");
  const encoded = compressed ? payload.slice(1) : payload;
  if (!/^[A-Za-z0-9_-]*$/.test(encoded)) throw new Error("Not base64url");
  let bytes: Uint8Array = Buffer.from(encoded, "base64url");
  if (compressed) bytes = inflateSync(bytes);
  return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
}
