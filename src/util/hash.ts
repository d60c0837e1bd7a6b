/** Small digests used for colours, CSS class suffixes and ETags. */
import { createHash } from "node:crypto";

/** Hex MD5 of a UTF-8 string (not for security: colours and class names). */
export function md5Hex(text: string): string {
  return createHash("md5").update(text).digest("hex");
}

/** Hex SHA-256 of bytes or a UTF-8 string. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}
