/**
 * Open TCP connections to the server's port, as the Linux kernel lists them in
 * `/proc/net/tcp` and `/proc/net/tcp6`: established connections whose local port is the
 * server's, accepted or still waiting in the listen queue. `Deno.serve` reports no connection
 * events, so this is the one exact count available; elsewhere it is null (no metric).
 *
 * @module
 */

const ESTABLISHED = "01";

/** The number of established connections to local `port`, or null when unknown. */
export function openConnections(port: number): number | null {
  let count = 0;
  let readAny = false;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = Deno.readTextFileSync(file);
    } catch {
      continue;
    }
    readAny = true;
    count += countInTable(text, port);
  }
  return readAny ? count : null;
}

/** Rows of a `/proc/net/tcp` table in state ESTABLISHED with local port `port`. */
export function countInTable(text: string, port: number): number {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  let count = 0;
  for (const line of text.split("\n").slice(1)) {
    // "  sl  local_address rem_address   st ..." → ["0:", "0100007F:1F91", "…", "01", …]
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4) continue;
    if (fields[3] === ESTABLISHED && fields[1].endsWith(`:${hexPort}`)) count++;
  }
  return count;
}
