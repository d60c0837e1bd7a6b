/** Content types for static assets, by lowercase file extension. */
const TYPES: Record<string, string> = {
  css: "text/css; charset=utf-8",
  js: "text/javascript; charset=utf-8",
  mjs: "text/javascript; charset=utf-8",
  json: "application/json; charset=utf-8",
  map: "application/json; charset=utf-8",
  html: "text/html; charset=utf-8",
  htm: "text/html; charset=utf-8",
  txt: "text/plain; charset=utf-8",
  md: "text/markdown; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  xml: "application/xml; charset=utf-8",
  svg: "image/svg+xml",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  ico: "image/x-icon",
  woff: "font/woff",
  woff2: "font/woff2",
  wasm: "application/wasm",
  pdf: "application/pdf",
};

/** The default for unknown extensions: browsers will download rather than sniff. */
const DEFAULT_CONTENT_TYPE = "application/octet-stream";

/** The content type for a file name or path, from its extension. */
export function contentTypeFor(fileName: string): string {
  const base = fileName.slice(fileName.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (dot === -1) return DEFAULT_CONTENT_TYPE;
  return TYPES[base.slice(dot + 1).toLowerCase()] ?? DEFAULT_CONTENT_TYPE;
}
