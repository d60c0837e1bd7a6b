/**
 * Open connections of this server process, for `/-/metrics`: the sockets the process holds
 * (`/proc/self/fd` on Linux) less its listening socket. `Deno.serve` reports no connection
 * events, and `/proc/net/tcp` lists every socket of the host (reading it took 12 ms with 3,000
 * sockets), so the process's own descriptors are counted instead. Outbound connections (a write
 * sent to a LiteFS primary, a plugin's `fetch`) count too. Elsewhere than Linux: null (no metric).
 * The same listing gives the count of all open descriptors (`process_open_fds`).
 *
 * @module
 */

/** Established connections, or null when unknown. */
export function openConnections(listeners = 1): number | null {
  const sockets = countDescriptors((target) => target.startsWith("socket:"));
  return sockets === null ? null : Math.max(0, sockets - listeners);
}

/** Every open file descriptor of the process (files, sockets, pipes), or null when unknown. */
export function openDescriptors(): number | null {
  return countDescriptors(() => true);
}

function countDescriptors(counts: (target: string) => boolean): number | null {
  let count = 0;
  try {
    for (const entry of Deno.readDirSync("/proc/self/fd")) {
      try {
        if (counts(Deno.readLinkSync(`/proc/self/fd/${entry.name}`))) count++;
      } catch { /* closed meanwhile */ }
    }
  } catch {
    return null;
  }
  return count;
}
