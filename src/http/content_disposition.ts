/**
 * `Content-Disposition: attachment` for a download named after a table, query or database. A
 * header value must be Latin-1 (a web `Headers` object throws on anything else, which answered
 * `_dl=1` on `𝐜𝐢𝐭𝐢𝐞𝐬` with a 500), and names may hold any character, quotes and line breaks
 * included. So the quoted `filename` is an ASCII stand-in, and a name it cannot spell exactly is
 * given whole as RFC 6266's `filename*=UTF-8''…` too, which every current browser prefers.
 *
 * @module
 */

/** `attachment; filename="…"`, plus `filename*=UTF-8''…` when the name is not plain ASCII. */
export function attachment(filename: string): string {
  const fallback = asciiFilename(filename);
  const plain = `attachment; filename="${fallback}"`;
  return fallback === filename ? plain : `${plain}; filename*=UTF-8''${extValue(filename)}`;
}

/**
 * `name` in printable ASCII: letters with marks or in styled forms lose them (`é` → `e`,
 * `𝐜` → `c`, by compatibility decomposition), what is left outside ASCII, a quote, a backslash
 * or a control character becomes `_`.
 */
export function asciiFilename(name: string): string {
  return name.normalize("NFKD").replace(/\p{M}/gu, "").replace(/[^\x20-\x7e]|["\\]/gu, "_");
}

/** RFC 8187's value-chars: UTF-8 bytes percent-encoded except the attr-chars. */
function extValue(name: string): string {
  return encodeURIComponent(name).replace(
    /['()*]/g,
    (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase(),
  );
}
