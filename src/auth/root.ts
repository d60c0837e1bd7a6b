/**
 * The one-time `--root` login token (API-DETAILS §13): the CLI prints
 * `/-/auth-token?token=<hex>`; the first visit signs in as `{"id": "root"}`.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import { constantTimeEqual } from "./constant_time.ts";

/** The answer of {@link RootToken.consume}; anything but "ok" is a 403 message. */
export type RootTokenResult = "ok" | "Root token has already been used" | "Invalid token";

/** A random token that can be exchanged for the root actor exactly once. */
export class RootToken {
  /** The token as 64 hex characters. */
  readonly value: string;
  #used = false;

  /** @param value a fixed token (tests); a random 32-byte token by default */
  constructor(value: string = randomBytes(32).toString("hex")) {
    this.value = value;
  }

  /**
   * Exchange `token`: "ok" the first time it matches. Once used, every attempt answers "Root
   * token has already been used", as Datasette does.
   */
  consume(token: string | null | undefined): RootTokenResult {
    if (this.#used) return "Root token has already been used";
    if (!constantTimeEqual(String(token ?? ""), this.value)) return "Invalid token";
    this.#used = true;
    return "ok";
  }
}
