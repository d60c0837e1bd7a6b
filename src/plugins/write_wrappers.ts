/**
 * Runs a write inside the generator functions `write_wrapper` hooks answered: each runs up to its
 * `yield` before the write, gets the write's result back from it (or the write's error thrown
 * into it), and finishes after. The first implementation called is the outermost, as pluggy nests
 * wrappers. Events the wrappers queue are handed back for sending once the write committed.
 *
 * @module
 */

import type { Connection } from "../sqlite/connection.ts";
import type { Event } from "./events.ts";
import type { WriteWrapper } from "./hookspecs.ts";

/**
 * `write(conn)` wrapped by `wrappers`; runs on the write connection, inside the write's
 * transaction, so a wrapper's own statements commit or roll back with it. Queued events go into
 * `events` (the caller sends them after the commit and drops them on failure).
 */
export function wrapWrite<T>(
  wrappers: readonly WriteWrapper[],
  conn: Connection,
  events: Event[],
  write: () => T,
): T {
  if (!wrappers.length) return write();
  const track_event = (event: Event) => void events.push(event);
  const started: Generator<unknown, void, unknown>[] = [];
  try {
    for (const wrapper of wrappers) {
      const generator = wrapper({ conn, track_event });
      if (!generator || typeof generator.next !== "function") {
        throw new TypeError("write_wrapper must answer a generator function (function*)");
      }
      started.push(generator);
      generator.next();
    }
  } catch (error) {
    for (const generator of started.reverse()) generator.return(undefined);
    throw error;
  }
  let result: T;
  try {
    result = write();
  } catch (error) {
    // Each wrapper sees the error; one that throws replaces it for the wrappers outside it.
    let failure = error;
    for (const generator of started.reverse()) {
      try {
        generator.throw(failure);
      } catch (thrown) {
        failure = thrown;
      }
    }
    events.length = 0;
    throw failure;
  }
  for (const generator of started.reverse()) generator.next(result);
  return result;
}
