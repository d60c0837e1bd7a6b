/// <reference lib="deno.worker" />
// Interrupts a connection from another thread, the way the read pool cancels a query.
import { sqlite } from "../../src/sqlite/ffi.ts";

self.onmessage = (event: MessageEvent<{ pointer: bigint; afterMs: number }>) => {
  const { pointer, afterMs } = event.data;
  setTimeout(() => {
    sqlite().sqlite3_interrupt(Deno.UnsafePointer.create(pointer));
    self.postMessage("interrupted");
  }, afterMs);
};
