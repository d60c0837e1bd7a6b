/**
 * The console access log of `vitrine serve`: one line per request once its body has been sent —
 * client, time, method and path, status, bytes sent and milliseconds taken:
 *
 * ```
 * 127.0.0.1 [2026-11-23T21:50:01Z] "GET /demo/trees?_sort=height_m" 200 48213 12.4ms
 * ```
 *
 * Streamed bodies (CSV exports of every row) are counted as they go, so the line tells how much
 * really left and how long it took; a client that hung up early is marked `(aborted)`.
 *
 * @module
 */

import { heldBodyLength } from "../http/response.ts";

/** A fetch-style handler with Deno's connection info. */
export type Handler = (request: Request, info: Deno.ServeHandlerInfo) => Promise<Response>;

/** Statuses that never have a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/** Wraps `handler` so each finished request writes one line to `write`. */
export function withAccessLog(handler: Handler, write: (line: string) => void): Handler {
  return async (request, info) => {
    const started = performance.now();
    const target = requestTarget(request.url);
    // Read once: each read of `remoteAddr` asks Deno for the address again.
    const address = info.remoteAddr;
    const client = "hostname" in address ? address.hostname : "-";
    const line = (status: number | string, bytes: number, note = "") =>
      `${client} [${secondStamp()}] ` +
      `"${request.method} ${target}" ${status} ${bytes} ` +
      `${(performance.now() - started).toFixed(1)}ms${note}`;
    let response: Response;
    try {
      response = await handler(request, info);
    } catch (error) {
      write(line(500, 0, " (error)"));
      throw error;
    }
    // A body of known length (held in memory) is not counted through a stream: its line is
    // written when Deno reports the response sent (or the client gone). Checked before
    // `response.body` is read: reading it turns bytes into a stream, which Deno then sends
    // through its slower streaming path. Vitrine's own responses tell their length without
    // `response.headers`, which would cost Deno its fast path for sending them too.
    const length = heldBodyLength(response) ?? response.headers.get("content-length");
    const completed = (info as { completed?: Promise<void> }).completed;
    if (
      length !== null && request.method !== "HEAD" && completed && !NULL_BODY.has(response.status)
    ) {
      completed.then(
        () => write(line(response.status, Number(length))),
        () => write(line(response.status, 0, " (aborted)")),
      );
      return response;
    }
    if (!response.body) {
      write(line(response.status, 0));
      return response;
    }
    return new Response(
      counted(response.body, (bytes, aborted) => {
        write(line(response.status, bytes, aborted ? " (aborted)" : ""));
      }),
      response,
    );
  };
}

let stampSecond = -1;
let stamp = "";

/**
 * The current time to the second, `2026-11-23T21:50:01Z`. Written once per second rather than
 * once per line: formatting the date for every line stood out in profiles of cached pages.
 */
function secondStamp(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== stampSecond) {
    stampSecond = second;
    stamp = new Date(second * 1000).toISOString().replace(/\.\d+Z$/, "Z");
  }
  return stamp;
}

/**
 * The path and query of a request URL, cut from the text: `new URL()` would throw on the URL
 * Deno builds from a malformed Host header (`http://[::1/x`), which the handler answers with a
 * 400 — the log line must not turn that into a 500.
 */
function requestTarget(url: string): string {
  const authority = url.indexOf("://");
  if (authority < 0) return url || "/";
  const path = url.indexOf("/", authority + 3);
  return path < 0 ? "/" : url.slice(path);
}

/** `body`, passed through chunk by chunk, calling `done` once with the bytes that went out. */
function counted(
  body: ReadableStream<Uint8Array>,
  done: (bytes: number, aborted: boolean) => void,
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let bytes = 0;
  let finished = false;
  const finish = (aborted: boolean) => {
    if (!finished) {
      finished = true;
      done(bytes, aborted);
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          controller.close();
          finish(false);
          return;
        }
        bytes += value.byteLength;
        controller.enqueue(value);
      } catch (error) {
        finish(true);
        controller.error(error);
      }
    },
    cancel(reason) {
      finish(true);
      return reader.cancel(reason);
    },
  });
}

const encoder = new TextEncoder();

/**
 * Writes `text` and a newline to standard output as they are. `console.log` would first look
 * through the text for format directives (`%s`) character by character, and a batch of lines is
 * up to 64 KB: that scan was the largest single cost of the log. A closed output loses the lines
 * but does not stop the server.
 */
export function printText(text: string): void {
  const bytes = encoder.encode(text + "\n");
  try {
    for (let written = 0; written < bytes.length;) {
      written += Deno.stdout.writeSync(bytes.subarray(written));
    }
  } catch {
    // Nowhere left to write the log to.
  }
}

/**
 * A `write` for {@link withAccessLog} that prints lines in batches (one write per 50 ms or 64 KB)
 * instead of one console write per request.
 */
export function batchedLines(output: (text: string) => void): (line: string) => void {
  let pending: string[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    if (!pending.length) return;
    const text = pending.join("\n");
    pending = [];
    size = 0;
    output(text);
  };
  globalThis.addEventListener("unload", flush);
  return (line) => {
    pending.push(line);
    size += line.length;
    if (size >= 64 * 1024) return flush();
    if (timer === null) {
      timer = setTimeout(flush, 50);
      Deno.unrefTimer(timer);
    }
  };
}
