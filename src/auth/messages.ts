/**
 * Flash messages (`svc.add_message`), carried to the next page in the signed `ds_messages` cookie
 * as `[[message, type], ...]` (API-DETAILS §13).
 *
 * @module
 */

import type { Signer } from "./signer.ts";

/** Message types, as `svc.INFO`, `svc.WARNING`, `svc.ERROR`. */
export const INFO = 1;
export const WARNING = 2;
export const ERROR = 3;

/** The cookie that carries messages. */
export const MESSAGES_COOKIE = "ds_messages";

/** A message and its type. */
export type Message = [string, number];

/** The `ds_messages` cookie value for `messages`. */
export function encodeMessages(signer: Signer, messages: readonly Message[]): string {
  return signer.sign(messages.map(([message, type]) => [message, type]), "messages");
}

/**
 * The messages in a `ds_messages` cookie. A missing, tampered or malformed cookie yields no
 * messages rather than an error: a stale cookie must never break a page.
 */
export function decodeMessages(signer: Signer, cookie: string | null | undefined): Message[] {
  if (!cookie) return [];
  let decoded: unknown;
  try {
    decoded = signer.unsign(cookie, "messages");
  } catch {
    return [];
  }
  if (!Array.isArray(decoded)) return [];
  return decoded.filter((entry): entry is Message =>
    Array.isArray(entry) && entry.length === 2 && typeof entry[0] === "string" &&
    typeof entry[1] === "number"
  );
}
