/**
 * Response compression by `Accept-Encoding`: brotli (quality 4) when the client takes it, else
 * gzip (level 4), for text types (HTML, JSON, CSV, TSV, NDJSON, JavaScript, CSS, SVG, XML).
 * Bodies under 1 KB, types that are compressed already (images, fonts, archives, database
 * files), `HEAD`, and responses with a `Content-Encoding` or `Cache-Control: no-transform` are
 * sent as they are. Streamed bodies (CSV exports of every row) are compressed as they stream,
 * chunk by chunk, keeping the stream's backpressure.
 *
 * Levels: docs/internals.md "Compression" has the measurements. In short, on this project's
 * 2-core machine brotli 4 shrinks a CSV export to 13% at about the cost of gzip 4 (27%), and
 * both cost several times less CPU than the default levels (gzip 6 through `CompressionStream`,
 * the only one it offers, took about five times gzip 4's time).
 *
 * @module
 */

import zlib from "node:zlib";
import type { Request } from "../http/request.ts";
import type { Response } from "../http/response.ts";
import { compressedCopiesOf } from "../http/compressed_copies.ts";
import { appendVary } from "../http/vary.ts";

/** Bodies smaller than this gain less than the header costs. */
const MIN_BYTES = 1024;
/** Larger in-memory bodies are compressed as a stream, so the event loop is never held long. */
const SYNC_MAX_BYTES = 1024 * 1024;

const COMPRESSIBLE =
  /^(text\/|application\/(json|[\w.+-]+\+json|x-ndjson|javascript|xml|[\w.+-]+\+xml)|image\/svg\+xml)/i;

/** The content codings offered. */
export type Coding = "br" | "gzip";

/** The coding the client prefers among those offered here, or null (`q=0` refuses one). */
export function chooseCoding(acceptEncoding: string | undefined): Coding | null {
  if (!acceptEncoding) return null;
  const q = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const weight = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    q.set(name, weight ? Number(weight.slice(2)) || 0 : 1);
  }
  const weightOf = (coding: string) => q.get(coding) ?? (q.get("*") ?? 0);
  const br = weightOf("br");
  const gzip = weightOf("gzip");
  if (br > 0 && br >= gzip) return "br";
  if (gzip > 0) return "gzip";
  return null;
}

function header(response: Response, name: string): string | undefined {
  const key = Object.keys(response.headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : response.headers[key];
}

function compressor(coding: Coding): zlib.BrotliCompress | zlib.Gzip {
  return coding === "br"
    ? zlib.createBrotliCompress({
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
      },
    })
    : zlib.createGzip({ level: 4 });
}

/** Compresses an in-memory body at once, at the levels used for every response. */
export function compressSync(coding: Coding, bytes: Uint8Array): Uint8Array {
  const out = coding === "br"
    ? zlib.brotliCompressSync(bytes, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: 4,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
      },
    })
    : zlib.gzipSync(bytes, { level: 4 });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}

/** A web stream through a zlib compressor; the next chunk is pulled once the last is through. */
export function compressStream(
  body: ReadableStream<Uint8Array>,
  coding: Coding,
): ReadableStream<Uint8Array> {
  const z = compressor(coding);
  const reader = body.getReader();
  const output: Uint8Array[] = [];
  let ended = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  z.on("data", (chunk: Uint8Array) => {
    output.push(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    notify();
  });
  z.on("end", () => {
    ended = true;
    notify();
  });
  z.on("error", (error: unknown) => {
    failure = error;
    notify();
  });
  // One input chunk at a time goes in, and only while no output waits to be taken: the
  // source is read no faster than the client reads.
  let inputDone = false;
  const feed = async (): Promise<void> => {
    const { value, done } = await reader.read();
    if (done) {
      inputDone = true;
      z.end();
      return;
    }
    await new Promise<void>((resolve, reject) => {
      z.write(value, (error) => error ? reject(error) : resolve());
    });
  };
  let feeding: Promise<void> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        while (!output.length && !ended && !failure) {
          const waiting = new Promise<void>((resolve) => wake = resolve);
          // Once the input is over, only zlib's last output and its end are awaited.
          if (!inputDone) feeding ??= feed().finally(() => feeding = null);
          await (feeding ? Promise.race([feeding, waiting]) : waiting);
        }
      } catch (error) {
        // The body failed (an export aborted after its status): so does the compressed one,
        // without zlib's closing bytes, and the client sees an incomplete download.
        failure = error;
        z.destroy();
      }
      if (failure) return controller.error(failure);
      if (output.length) {
        const parts = output.splice(0);
        const size = parts.reduce((sum, part) => sum + part.length, 0);
        const joined = new Uint8Array(size);
        let at = 0;
        for (const part of parts) {
          joined.set(part, at);
          at += part.length;
        }
        controller.enqueue(joined);
      } else if (ended) controller.close();
    },
    async cancel(reason) {
      z.destroy();
      await reader.cancel(reason);
    },
  }, { highWaterMark: 1 });
}

/**
 * Compresses `response`'s body in place when the request accepts a coding and the body is worth
 * it; adds `Vary: Accept-Encoding` to every response whose type could be compressed.
 */
export function compressResponse(request: Request, response: Response): void {
  if (request.method === "HEAD" || response.status < 200 || response.status === 204) return;
  if (response.status === 304 || response.body === null || response.body === undefined) return;
  const type = header(response, "content-type") ?? response.content_type ?? "";
  if (!COMPRESSIBLE.test(type)) return;
  if (header(response, "content-encoding") !== undefined) return;
  if (/no-transform/i.test(header(response, "cache-control") ?? "")) return;
  const body = response.body;
  const size = typeof body === "string"
    ? body.length // characters: a lower bound of the UTF-8 size, enough for the threshold
    : body instanceof Uint8Array
    ? body.length
    : Infinity;
  if (size < MIN_BYTES) return;
  appendVary(response, "Accept-Encoding");
  const coding = chooseCoding(request.headers["accept-encoding"]);
  if (!coding) return;
  if (body instanceof ReadableStream) {
    response.body = compressStream(body, coding);
  } else {
    const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body as Uint8Array;
    response.body = bytes.length > SYNC_MAX_BYTES
      ? compressStream(new Blob([bytes as BlobPart]).stream(), coding)
      : compressOnce(coding, bytes);
  }
  for (const key of Object.keys(response.headers)) {
    if (key.toLowerCase() === "content-length") delete response.headers[key];
  }
  response.headers["content-encoding"] = coding;
}

/** `bytes` compressed; made once per coding for a body sent again unchanged (`compressed_copies.ts`). */
function compressOnce(coding: Coding, bytes: Uint8Array): Uint8Array {
  const copies = compressedCopiesOf(bytes);
  if (!copies) return compressSync(coding, bytes);
  let copy = copies.get(coding);
  if (!copy) {
    copy = compressSync(coding, bytes);
    copies.set(coding, copy);
  }
  return copy;
}
