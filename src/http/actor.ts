/**
 * The actor type. It lives in the protocol layer because every request carries one
 * (`request.actor`); who an actor may be and what it may do is decided in `src/auth/`.
 *
 * @module
 */

/** An actor: a dictionary with at least `id`, or null for an anonymous request. */
export type Actor = Record<string, unknown>;
