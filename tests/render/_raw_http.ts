/**
 * Real HTTP for the export tests: a service served by `Deno.serve` on 127.0.0.1 (port 0), and a
 * raw HTTP/1.1 client on a socket of its own, which sees what curl sees: whether a chunked body
 * ended with its last chunk or was cut.
 */
import { gunzipSync } from "node:zlib";
import zlib from "node:zlib";
import type { Service } from "../../src/service.ts";
import { serve } from "../../src/app/server.ts";

/** `svc` served on a free loopback port until disposed. */
export async function served(
  svc: Service,
): Promise<{ port: number; url: string; [Symbol.asyncDispose](): Promise<void> }> {
  const server = await serve(svc, { host: "127.0.0.1", port: 0 });
  const port = (server.addr as Deno.NetAddr).port;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}

/** A response read to the end of the connection. */
export interface RawResponse {
  status: number;
  headers: Headers;
  /** The body, un-chunked and decoded (gzip, br) as far as it came. */
  body: Uint8Array;
  /** The body's text. */
  text: string;
  /** True when a chunked body ended with its last chunk (or a sized body was whole). */
  complete: boolean;
}

/** GET `path` over a new connection (`Connection: close`), read until the server closes it. */
export async function rawGet(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const lines = [`GET ${path} HTTP/1.1`, "Host: 127.0.0.1", "Connection: close"];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  await conn.write(new TextEncoder().encode(lines.join("\r\n") + "\r\n\r\n"));
  const parts: Uint8Array[] = [];
  const buffer = new Uint8Array(64 * 1024);
  try {
    for (;;) {
      const n = await conn.read(buffer);
      if (n === null) break;
      parts.push(buffer.slice(0, n));
    }
  } catch (error) {
    // A reset connection ends the body as surely as a closed one.
    if (!(error instanceof Deno.errors.ConnectionReset)) throw error;
  } finally {
    try {
      conn.close();
    } catch { /* closed by the server */ }
  }
  return parseResponse(concat(parts));
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function parseResponse(bytes: Uint8Array): RawResponse {
  const latin1 = new TextDecoder("latin1").decode(bytes);
  const end = latin1.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`No response head in ${JSON.stringify(latin1.slice(0, 200))}`);
  const [statusLine, ...headerLines] = latin1.slice(0, end).split("\r\n");
  const headers = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(":");
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  let rest = bytes.subarray(end + 4);
  let raw: Uint8Array;
  let complete: boolean;
  if (/chunked/i.test(headers.get("transfer-encoding") ?? "")) {
    const chunks: Uint8Array[] = [];
    complete = false;
    for (;;) {
      const text = new TextDecoder("latin1").decode(rest.subarray(0, 20));
      const lineEnd = text.indexOf("\r\n");
      if (lineEnd < 0) break;
      const size = parseInt(text.slice(0, lineEnd), 16);
      if (size === 0) {
        complete = true;
        break;
      }
      const start = lineEnd + 2;
      // A chunk cut short counts for what arrived of it.
      chunks.push(rest.subarray(start, Math.min(rest.length, start + size)));
      if (rest.length < start + size + 2) break;
      rest = rest.subarray(start + size + 2);
    }
    raw = concat(chunks);
  } else {
    const length = headers.get("content-length");
    raw = rest;
    complete = length === null || Number(length) === rest.length;
  }
  const body = decode(headers.get("content-encoding"), raw);
  return {
    status: Number(statusLine.split(" ")[1]),
    headers,
    body,
    text: new TextDecoder().decode(body),
    complete,
  };
}

/** What a client decompresses of `raw`, as far as it goes (a cut stream is not an error here). */
function decode(coding: string | null, raw: Uint8Array): Uint8Array {
  if (!coding) return raw;
  const flush = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  const out = coding === "gzip"
    ? gunzipSync(raw, flush)
    : zlib.brotliDecompressSync(raw, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
