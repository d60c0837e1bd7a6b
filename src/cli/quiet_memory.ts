/**
 * A served process gives back the pages of Deno's executable its last requests ran
 * (`unmapCleanFilePages`, util/file_pages.ts) whenever it goes quiet, after each export of 8 MB
 * or more, and after the idle read pool gave back its memory (`Lifecycle.heavyWorkEnded`). Quiet
 * means that for {@link QUIET_MS} no request arrived, none was being answered and no export was
 * being sent; it releases once per quiet spell. What the next request runs is mapped back as it
 * runs.
 *
 * Why: serving touches code it runs rarely — an export's, the optimising compiler's, a full
 * collection's — and those pages stayed resident for the life of the process, where `ps`,
 * `process_resident_memory_bytes` and a container's working set count them. An export is where
 * most of them come from (17 MB of file pages for the load benchmark's 30 MB CSV): the read worker
 * already gives back the heap and page cache it grew for one (`worker_cursors.ts`), and this gives
 * back the code pages. Measured on the load benchmark's server: 85–92 MB resident between its
 * requests, 62–70 MB once quiet, 55 MB after an export; the next request's time does not move
 * (minor faults only). Each release costs 5–10 ms of the kernel's time to read `/proc/self/smaps`,
 * on a thread of Deno's own, not the one that answers requests.
 *
 * @module
 */

import type { Service } from "../service.ts";
import { unmapCleanFilePages } from "../util/file_pages.ts";

/** How long a server must be quiet before it gives its file pages back. */
export const QUIET_MS = 1_000;

/**
 * Checks every `quietMs` whether `svc` has been quiet since the last check, and if so (once per
 * quiet spell) unmaps its clean file pages; does the same each time heavy work ends. Returns a
 * function that stops the checks; the timer never keeps the process alive.
 */
export function releaseWhenQuiet(
  svc: Service,
  quietMs = QUIET_MS,
  release: () => Promise<unknown> = unmapCleanFilePages,
): () => void {
  const lifecycle = svc.lifecycle;
  let seen = lifecycle.received;
  // Start-up has just given back its own pages (`releaseFilePages`).
  let releasedAt = seen;
  let releasing = false;
  let stopped = false;
  const releaseNow = () => {
    if (releasing || stopped) return;
    releasedAt = lifecycle.received;
    releasing = true;
    release().catch(() => {}).finally(() => releasing = false);
  };
  const timer = setInterval(() => {
    const received = lifecycle.received;
    const quiet = received === seen && lifecycle.inFlight === 0 &&
      svc.readPool().cursors === 0;
    seen = received;
    if (quiet && received !== releasedAt) releaseNow();
  }, quietMs);
  Deno.unrefTimer(timer);
  lifecycle.afterHeavyWork(releaseNow);
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}
