/**
 * Writes on a LiteFS replica (docs/scaling.md, notes: LiteFS's mount contract). LiteFS puts a
 * `.primary` file in the mount of every replica, holding the primary's host name; the primary
 * has none. On every request that may write (any method but GET, HEAD and OPTIONS), the folders
 * of the mutable database files are checked for that file — each time, so a switch-over needs no
 * restart and a node that just became a replica never writes — and when one names a primary, the
 * request goes there:
 *
 * - on Fly.io (`FLY_APP_NAME` set), by answering with `fly-replay: instance=<primary>`, which
 *   Fly's proxy replays on the primary;
 * - elsewhere, by sending it on to `litefs_primary_url` (`{primary}` replaced by the host name)
 *   and passing the primary's answer back; without that setting, with a 503 saying so.
 *
 * Reads stay local, except for read-your-writes: a client whose write went to the primary gets
 * the `vitrine_wrote` cookie for `litefs_read_primary_s` seconds, and its reads on a replica go
 * to the primary too while it lasts (the replica may not have the write yet). A request already
 * sent on by another Vitrine is answered here (a loop would otherwise be possible while two
 * nodes disagree about who is primary).
 *
 * @module
 */

import type { AppHost } from "./host.ts";
import { pathExists } from "../util/file_exists.ts";

/** Marks a request one Vitrine sent on to another. */
export const FORWARDED_HEADER = "x-vitrine-forwarded";
/** Set after a write made on the primary for a replica's client; its reads follow the write. */
export const WROTE_COOKIE = "vitrine_wrote";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const READS = new Set(["GET", "HEAD"]);

/**
 * Longest wait for the primary's answer to a read. A write has none: the primary makes it
 * whatever this server does, so giving up on its answer would only tell the client it failed
 * while it may be made (a big upload part or alter takes its time there as it would here).
 */
const PRIMARY_TIMEOUT_MS = 30_000;

// Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are not passed on.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "content-length",
]);

/** The folders of the served mutable database files (where LiteFS would put `.primary`). */
function databaseFolders(svc: AppHost): string[] {
  const folders = new Set<string>();
  for (const db of svc.databases.values()) {
    if (!db.is_mutable || db.is_memory || db.path === null) continue;
    const slash = db.path.lastIndexOf("/");
    folders.add(slash < 0 ? "." : slash === 0 ? "/" : db.path.slice(0, slash));
  }
  return [...folders];
}

/**
 * The host named by `<folder>/.primary`, or null when there is none (this node may write).
 * Read synchronously: it is a few bytes (or, most often, no file at all), and an asynchronous
 * read would let concurrent writes overtake one another on their way to the write queue.
 *
 * Not cached: the state could be kept for a short while, but then a node that just became a
 * replica would write (LiteFS would refuse it, a 503; a plain folder would not), and one that
 * just became primary would send its writes to a replica. Watching the folder (`Deno.watchFs`)
 * would most likely miss it: inotify reports changes made through the kernel, and LiteFS makes
 * `.primary` up in its FUSE process when the file is looked up. Asked with
 * `access(2)` first instead, the usual answer, no file, costs about 1 µs, not the 8 µs of a
 * read that throws.
 */
export function primaryOf(folder: string): string | null {
  const path = `${folder}/.primary`;
  if (!pathExists(path)) return null;
  try {
    const host = Deno.readTextFileSync(path).trim();
    return host || null;
  } catch {
    return null;
  }
}

/** True when the request carries the read-your-writes cookie. */
function wroteRecently(raw: Request): boolean {
  const cookie = raw.headers.get("cookie");
  return cookie !== null && WROTE_COOKIE_PATTERN.test(cookie);
}

const WROTE_COOKIE_PATTERN = new RegExp(`(?:^|;\\s*)${WROTE_COOKIE}=`);

/**
 * The primary that `raw` must go to, or null to answer it here: a write (any method but GET,
 * HEAD and OPTIONS), or a read right after this client's write, on a replica.
 */
export function writeGoesToPrimary(svc: AppHost, raw: Request): string | null {
  // Asked of every request: a plain read is told apart before any header is looked at.
  if (SAFE_METHODS.has(raw.method) && !(READS.has(raw.method) && wroteRecently(raw))) return null;
  if (raw.headers.has(FORWARDED_HEADER)) return null;
  for (const folder of databaseFolders(svc)) {
    const primary = primaryOf(folder);
    if (primary) return primary;
  }
  return null;
}

/** Answers `raw` by way of `primary` (see the module comment). */
export async function sendToPrimary(
  svc: AppHost,
  raw: Request,
  primary: string,
): Promise<Response> {
  if (Deno.env.get("FLY_APP_NAME")) {
    return replicaError(
      `This server is a read replica; Fly.io replays writes on the primary (${primary}).`,
      { "fly-replay": `instance=${primary}` },
    );
  }
  const write = !SAFE_METHODS.has(raw.method);
  const template = String(svc.setting("litefs_primary_url"));
  if (!template) {
    return replicaError(
      `This server is a read replica; writes go to the primary (${primary}). Set the ` +
        "litefs_primary_url setting (e.g. http://{primary}:8001) to have Vitrine send them there.",
    );
  }
  let incoming: URL;
  let target: URL;
  try {
    incoming = new URL(raw.url);
    target = new URL(template.replaceAll("{primary}", primary).replace(/\/+$/, ""));
    target = new URL(target.href.replace(/\/$/, "") + incoming.pathname + incoming.search);
  } catch {
    return replicaError(
      `The litefs_primary_url setting does not make a URL for the primary ${primary}.`,
    );
  }
  try {
    const upstream = await fetch(target, {
      method: raw.method,
      headers: forwardedHeaders(raw, incoming),
      body: raw.body,
      redirect: "manual",
      signal: write
        ? raw.signal
        : AbortSignal.any([raw.signal, AbortSignal.timeout(PRIMARY_TIMEOUT_MS)]),
    });
    const headers = new Headers();
    for (const [name, value] of upstream.headers) {
      if (!HOP_BY_HOP.has(name)) headers.append(name, value);
    }
    if (write && upstream.status < 400) rememberWrite(svc, headers);
    return new Response(upstream.body, {
      status: upstream.status,
      statusText: upstream.statusText,
      headers,
    });
  } catch (error) {
    const cause = (error as { cause?: unknown })?.cause;
    console.error(
      `Could not send a request to the primary at ${target.origin}: ${error}` +
        (cause ? ` (${cause})` : ""),
    );
    if (write && !neverSent(error)) {
      // The primary may have the write already: "try again" could make it twice.
      return new Response(
        JSON.stringify({
          ok: false,
          error: `This server is a read replica: it sent the write to the primary (${primary}), ` +
            "whose answer did not come back. The write may have been made there: check before " +
            "sending it again.",
          status: 502,
        }),
        {
          status: 502,
          headers: {
            "content-type": "application/json; charset=utf-8",
            "cache-control": "no-store",
          },
        },
      );
    }
    return replicaError(
      `This server is a read replica and the primary (${primary}) could not be reached. ` +
        "Try again.",
    );
  }
}

/**
 * Read-your-writes: this client's reads go to the primary for `litefs_read_primary_s` seconds
 * (no cookie when 0). On Fly, the primary sets it on writes Fly replayed (`fly-replay-src`).
 */
export function rememberWrite(svc: AppHost, headers: Headers): void {
  const seconds = Number(svc.setting("litefs_read_primary_s"));
  if (seconds <= 0) return;
  headers.append(
    "set-cookie",
    `${WROTE_COOKIE}=1; Max-Age=${seconds}; Path=/; HttpOnly; SameSite=Lax`,
  );
}

/** On the primary: a write Fly replayed from a replica gets the read-your-writes cookie. */
export function markReplayedWrite(svc: AppHost, raw: Request, response: Response): void {
  if (SAFE_METHODS.has(raw.method) || !raw.headers.has("fly-replay-src")) return;
  if (response.status >= 400) return;
  try {
    rememberWrite(svc, response.headers);
  } catch { /* immutable headers (a plugin's response): no cookie */ }
}

/** The client's headers for the primary, with where the request came from. */
function forwardedHeaders(raw: Request, incoming: URL): Headers {
  const headers = new Headers();
  for (const [name, value] of raw.headers) {
    if (!HOP_BY_HOP.has(name) && name !== "accept-encoding") headers.append(name, value);
  }
  // The body is passed back as it comes: no compression to undo on the way.
  headers.set("accept-encoding", "identity");
  headers.set(FORWARDED_HEADER, "1");
  if (!headers.has("x-forwarded-host")) headers.set("x-forwarded-host", incoming.host);
  if (!headers.has("x-forwarded-proto")) {
    headers.set("x-forwarded-proto", incoming.protocol.replace(":", ""));
  }
  return headers;
}

/** A 503 the client may retry, as JSON (writes are mostly API calls or form posts). */
/**
 * True when `error` (of `fetch`) says the request never left: no connection was made (refused,
 * no such host, a port fetch refuses). Any other failure may come after the primary got it.
 */
function neverSent(error: unknown): boolean {
  const cause = (error as { cause?: unknown })?.cause;
  return /client error \(Connect\)|are blocked/.test(`${error} ${cause ?? ""}`);
}

function replicaError(message: string, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ ok: false, error: message, status: 503 }), {
    status: 503,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "retry-after": "1",
      "cache-control": "no-store",
      ...extra,
    },
  });
}
