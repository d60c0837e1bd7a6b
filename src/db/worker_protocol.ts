/**
 * Messages between the main thread (`pool.ts`) and a read worker (`worker.ts`).
 * One request is in flight per worker at a time, which is what makes cancellation safe: the
 * main thread only interrupts the connection of the request it is still waiting for.
 *
 * @module
 */

import type { ReadRequest, SerializedError } from "./read_query.ts";
import type { ReadTarget } from "./read_target.ts";

/** Main thread → worker. */
export type ToWorker =
  | { type: "init"; pluginModules: string[]; cacheSizeKb: number }
  | { type: "query"; id: number; target: ReadTarget; request: ReadRequest }
  | { type: "forget"; id: number; name: string };

/** Worker → main thread. */
export type FromWorker =
  /** Sent before a query when its connection differs from the previous one reported. */
  | { type: "connection"; id: number; pointer: bigint }
  | { type: "result"; id: number; json: string; tagged: boolean }
  | { type: "error"; id: number; error: SerializedError }
  | { type: "done"; id: number }
  /** The worker is about to close itself (`self.close()` or `Deno.exit()` in plugin code). */
  | { type: "exit"; reason: string };
