/**
 * Parse a `Range: bytes=...` header against a file size. Only a single range is honoured; several
 * ranges (or anything unparsable) serve the whole file, which RFC 9110 allows.
 *
 * @returns `[start, end]` inclusive, null for "serve everything", or "unsatisfiable" (416).
 */
export function byteRange(
  rangeHeader: string | null,
  size: number,
  ifRange: string | null = null,
  etag: string | null = null,
): [number, number] | null | "unsatisfiable" {
  if (!rangeHeader) return null;
  // A stale If-Range means the client's partial copy is outdated: send the whole file.
  if (ifRange !== null && ifRange !== etag) return null;
  const match = /^bytes=\s*(\d*)\s*-\s*(\d*)\s*$/.exec(rangeHeader.trim());
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || start > end) return "unsatisfiable";
  return [start, end];
}
