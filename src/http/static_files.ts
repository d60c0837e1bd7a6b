/**
 * Static file serving for `/-/static/`, `/-/static-plugins/<name>/` and `--static` mounts:
 * confined to a root directory, with ETag / Last-Modified revalidation, HEAD and single byte ranges.
 */
import { contentTypeFor } from "./mime.ts";
import { Response } from "./response.ts";
import { byteRange } from "./byte_range.ts";
import { keepCompressedCopies } from "./compressed_copies.ts";

/**
 * Whole files up to this size are kept in memory once served (by path and ETag), and sent again
 * as the same bytes: read once, and compressed once per coding (`compressed_copies.ts`) — a
 * browser's first visit asks for the same scripts as everyone else's, and compressing the SQL
 * editor's 440 KB afresh for each took 6 ms (gzip) to 12 ms (brotli).
 */
const KEEP_MAX_BYTES = 1024 * 1024;
/** Most bytes of files kept, least recently served dropped first. */
const KEPT_BUDGET_BYTES = 8 * 1024 * 1024;
const keptFiles = new Map<string, Uint8Array>();
let keptBytes = 0;

/** The bytes kept for `key`, or those `read` gives (then kept); null when `read` gives null. */
async function keptFile(
  key: string,
  read: () => Promise<Uint8Array | null>,
): Promise<Uint8Array | null> {
  const kept = keptFiles.get(key);
  if (kept) {
    keptFiles.delete(key); // moved to the end: the map's order is least recently served first
    keptFiles.set(key, kept);
    return kept;
  }
  const bytes = await read();
  if (bytes === null) return null;
  keepCompressedCopies(bytes);
  keptFiles.set(key, bytes);
  keptBytes += bytes.length;
  for (const [oldest, old] of keptFiles) {
    if (keptBytes <= KEPT_BUDGET_BYTES) break;
    keptFiles.delete(oldest);
    keptBytes -= old.length;
  }
  return bytes;
}

/** The SHA-256 ETags of byte bodies already served ({@link serveBytes}), by bytes object. */
const digests = new WeakMap<Uint8Array, string>();

/** What serveFile needs from a request (our Request or a web Request). */
export interface StaticRequestLike {
  method: string;
  headers: Record<string, string> | Headers;
}

/** Options of {@link serveFile}. */
export interface ServeFileOptions {
  /** Value of the Cache-Control header, if any. */
  cacheControl?: string | null;
}

/**
 * Serve `relativePath` (the URL path below the mount, still percent-encoded) from `root`. Anything
 * that is not a regular file inside `root` (after resolving symlinks) is a 404.
 */
export async function serveFile(
  root: string,
  relativePath: string,
  request: StaticRequestLike,
  options: ServeFileOptions = {},
): Promise<Response> {
  const file = await locate(root, relativePath);
  if (!file) return notFound();
  const { path, info } = file;
  const etag = `W/"${info.size.toString(16)}-${(info.mtime?.getTime() ?? 0).toString(16)}"`;
  return await answer(request, options, {
    name: path,
    size: info.size,
    etag,
    mtime: info.mtime,
    body: (start, length) => openSlice(path, start, length),
    whole: () =>
      keptFile(`file\u0000${path}\u0000${etag}`, async () => {
        const bytes = await Deno.readFile(path);
        // Changed since it was looked at: streamed as before, not kept under the old tag.
        return bytes.length === info.size ? bytes : null;
      }),
  });
}

/**
 * Serve `bytes` as the file `name` (its extension picks the content type), with the same
 * revalidation, HEAD and range handling as {@link serveFile}; the ETag is a digest of the bytes.
 * For files held in memory, such as the assets embedded in the bundle.
 */
export async function serveBytes(
  bytes: Uint8Array,
  name: string,
  request: StaticRequestLike,
  options: ServeFileOptions = {},
): Promise<Response> {
  let etag = digests.get(bytes);
  if (etag === undefined) {
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as BufferSource));
    const hex = Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
    etag = `W/"${bytes.length.toString(16)}-${hex}"`;
    digests.set(bytes, etag);
  }
  return await answer(request, options, {
    name,
    size: bytes.length,
    etag,
    mtime: null,
    body: (start, length) => Promise.resolve(bytes.slice(start, start + length)),
    whole: () => keptFile(`bytes\u0000${name}\u0000${etag}`, () => Promise.resolve(bytes)),
  });
}

/** What {@link answer} needs to know about the file being served. */
interface Served {
  name: string;
  size: number;
  etag: string;
  mtime: Date | null;
  body: (start: number, length: number) => Promise<ReadableStream<Uint8Array> | Uint8Array>;
  /** The whole file as bytes kept for later requests (small files), or null to stream it. */
  whole: () => Promise<Uint8Array | null>;
}

async function answer(
  request: StaticRequestLike,
  options: ServeFileOptions,
  file: Served,
): Promise<Response> {
  const { size, etag, mtime } = file;
  const headers: Record<string, string> = { "ETag": etag, "Accept-Ranges": "bytes" };
  if (mtime) headers["Last-Modified"] = mtime.toUTCString();
  if (options.cacheControl) headers["Cache-Control"] = options.cacheControl;
  const contentType = contentTypeFor(file.name);

  if (notModified(request, etag, mtime)) {
    return new Response(null, { status: 304, headers, content_type: null });
  }
  const range = byteRange(header(request, "range"), size, header(request, "if-range"), etag);
  if (range === "unsatisfiable") {
    headers["Content-Range"] = `bytes */${size}`;
    return new Response("", { status: 416, headers });
  }
  const [start, end] = range ?? [0, size - 1];
  const length = Math.max(0, end - start + 1);
  headers["Content-Length"] = String(length);
  if (range) headers["Content-Range"] = `bytes ${start}-${end}/${size}`;
  const status = range ? 206 : 200;
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status, headers, content_type: contentType });
  }
  const kept = !range && size <= KEEP_MAX_BYTES ? await file.whole() : null;
  return new Response(kept ?? await file.body(start, length), {
    status,
    headers,
    content_type: contentType,
  });
}

async function locate(root: string, relativePath: string) {
  const relative = safeRelativePath(relativePath);
  if (relative === null) return null;
  try {
    const realRoot = await Deno.realPath(root);
    const realFile = await Deno.realPath(`${realRoot}/${relative}`);
    if (!realFile.startsWith(realRoot.endsWith("/") ? realRoot : realRoot + "/")) return null;
    const info = await Deno.stat(realFile);
    return info.isFile ? { path: realFile, info } : null;
  } catch {
    return null;
  }
}

/**
 * Decode the URL path once and refuse anything that could leave the root: `..` or `.` segments
 * (also when percent-encoded), absolute paths, backslashes, NUL and empty segments.
 */
export function safeRelativePath(urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (!decoded || decoded.startsWith("/") || /[\\\0]/.test(decoded)) return null;
  const segments = decoded.split("/");
  if (segments.some((s) => s === "" || s === "." || s === "..")) return null;
  return segments.join("/");
}

function header(request: StaticRequestLike, name: string): string | null {
  const headers = request.headers;
  if (headers instanceof Headers) return headers.get(name);
  return headers[name] ?? null;
}

function notModified(request: StaticRequestLike, etag: string, mtime: Date | null): boolean {
  const ifNoneMatch = header(request, "if-none-match");
  if (ifNoneMatch !== null) {
    const weak = (tag: string) => tag.trim().replace(/^W\//, "");
    return ifNoneMatch.trim() === "*" ||
      ifNoneMatch.split(",").some((tag) => weak(tag) === weak(etag));
  }
  const ifModifiedSince = header(request, "if-modified-since");
  if (ifModifiedSince && mtime) {
    const since = Date.parse(ifModifiedSince);
    // HTTP dates have whole seconds; compare at that precision.
    return !Number.isNaN(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
  }
  return false;
}

/** A stream of `length` bytes of the file from `start`, closing the file when done or cancelled. */
async function openSlice(
  path: string,
  start: number,
  length: number,
): Promise<ReadableStream<Uint8Array>> {
  const file = await Deno.open(path, { read: true });
  if (start > 0) await file.seek(start, Deno.SeekMode.Start);
  let remaining = length;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const buffer = new Uint8Array(Math.min(64 * 1024, remaining));
      const read = remaining > 0 ? await file.read(buffer) : null;
      if (read === null || read === 0) {
        file.close();
        controller.close();
        return;
      }
      remaining -= read;
      controller.enqueue(buffer.subarray(0, read));
    },
    cancel() {
      file.close();
    },
  });
}

function notFound(): Response {
  return new Response("Not found", { status: 404 });
}
