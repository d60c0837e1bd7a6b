/**
 * Open connections of this server process, for `/-/metrics`: the sockets the process holds
 * (`/proc/self/fd` on Linux) less its listening socket. `Deno.serve` reports no connection
 * events, and `/proc/net/tcp` lists every socket of the host (reading it took 12 ms with 3,000
 * sockets), so the process's own descriptors are counted instead. Outbound connections (a write
 * sent to a LiteFS primary, a plugin's `fetch`) count too. Elsewhere than Linux: null (no metric).
 *
 * @module
 */

/** Established connections, or null when unknown. */
export function openConnections(listeners = 1): number | null {
  let sockets = 0;
  try {
    for (const entry of Deno.readDirSync("/proc/self/fd")) {
      try {
        if (Deno.readLinkSync(`/proc/self/fd/${entry.name}`).startsWith("socket:")) sockets++;
      } catch { /* closed meanwhile */ }
    }
  } catch {
    return null;
  }
  return Math.max(0, sockets - listeners);
}
