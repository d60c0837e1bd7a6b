/**
 * The `--root` login token (API-DETAILS §13): the CLI prints `/-/auth-token?token=…`; a visit
 * signs in as `{"id": "root"}`.
 *
 * The token is signed with the instance secret, so that behind a load balancer the link any
 * replica printed works on every replica sharing `VITRINE_SECRET`. Each process accepts a given
 * token once (as the reference system does), and a token expires an hour after it was printed:
 * with no state shared between replicas, that hour bounds how long a leaked link is worth
 * anything (docs/scaling.md).
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import type { Signer } from "./signer.ts";

/** The answer of {@link RootToken.consume}; anything but "ok" is a 403 message. */
export type RootTokenResult =
  | "ok"
  | "Root token has already been used"
  | "Root token has expired; restart with --root for a new link"
  | "Invalid token";

/** How long a printed root link stays valid. */
export const ROOT_TOKEN_LIFETIME_MS = 60 * 60 * 1000;

const NAMESPACE = "root-token";

/** Options of {@link RootToken}. */
export interface RootTokenOptions {
  /** The clock, in ms since the epoch (tests). */
  now?: () => number;
  /** How long the token is valid (default {@link ROOT_TOKEN_LIFETIME_MS}). */
  lifetimeMs?: number;
}

/** A signed token that signs its bearer in as root, once per process. */
export class RootToken {
  /** The token as printed in the link: a signed `{n: nonce, e: expiry}`. */
  readonly value: string;
  #signer: Signer;
  #now: () => number;
  #used = new Set<string>();

  /** A fresh token signed by `signer` (the service's, i.e. the instance secret). */
  constructor(signer: Signer, options: RootTokenOptions = {}) {
    this.#signer = signer;
    this.#now = options.now ?? Date.now;
    const expires = Math.floor(
      (this.#now() + (options.lifetimeMs ?? ROOT_TOKEN_LIFETIME_MS)) / 1000,
    );
    this.value = signer.sign({ n: randomBytes(16).toString("hex"), e: expires }, NAMESPACE);
  }

  /**
   * Exchange `token` (this process's or another replica's): "ok" the first time this process
   * sees it, while it has not expired.
   */
  consume(token: string | null | undefined): RootTokenResult {
    let payload: unknown;
    try {
      payload = this.#signer.unsign(String(token ?? ""), NAMESPACE);
    } catch {
      return "Invalid token";
    }
    const { n, e } = (payload ?? {}) as { n?: unknown; e?: unknown };
    if (typeof n !== "string" || typeof e !== "number") return "Invalid token";
    if (this.#used.has(n)) return "Root token has already been used";
    if (this.#now() >= e * 1000) {
      return "Root token has expired; restart with --root for a new link";
    }
    this.#used.add(n);
    return "ok";
  }
}
