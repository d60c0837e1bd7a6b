/**
 * Runs a write inside the generator functions `write_wrapper` hooks answered: each runs up to its
 * `yield` before the write, gets the write's result back from it (or the write's error thrown
 * into it), and finishes after. The first implementation called is the outermost, as pluggy nests
 * wrappers. Events the wrappers queue are handed back for sending once the write committed.
 *
 * A wrapper may be a plain generator (`function*`) or an async one (`async function*`): an async
 * one can `await` between its steps, which a PostgreSQL write's connection needs (its `execute`
 * returns a Promise); the write waits for each step, inside its transaction, either way.
 *
 * @module
 */

import type { EngineConnection } from "../db/engine.ts";
import type { Event } from "./events.ts";
import type { WriteWrapper } from "./hookspecs.ts";

type Started = Generator<unknown, void, unknown> | AsyncGenerator<unknown, void, unknown>;

/**
 * `write()` wrapped by `wrappers`, inside the write's transaction on `conn`, so a wrapper's own
 * statements commit or roll back with it. Queued events go into `events` (the caller sends them
 * after the commit and drops them on failure).
 */
export async function wrapWrite<T>(
  wrappers: readonly WriteWrapper[],
  conn: EngineConnection,
  events: Event[],
  write: () => T | Promise<T>,
): Promise<T> {
  if (!wrappers.length) return await write();
  const track_event = (event: Event) => void events.push(event);
  const started: Started[] = [];
  try {
    for (const wrapper of wrappers) {
      const generator = wrapper({ conn, track_event });
      if (!generator || typeof generator.next !== "function") {
        throw new TypeError(
          "write_wrapper must answer a generator function (function* or async function*)",
        );
      }
      started.push(generator);
      await generator.next();
    }
  } catch (error) {
    for (const generator of started.reverse()) await generator.return(undefined);
    throw error;
  }
  let result: T;
  try {
    result = await write();
  } catch (error) {
    // Each wrapper sees the error; one that throws replaces it for the wrappers outside it.
    let failure = error;
    for (const generator of started.reverse()) {
      try {
        await generator.throw(failure);
      } catch (thrown) {
        failure = thrown;
      }
    }
    events.length = 0;
    throw failure;
  }
  for (const generator of started.reverse()) await generator.next(result);
  return result;
}
