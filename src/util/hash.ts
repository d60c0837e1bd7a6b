/** A small digest for colours and CSS class suffixes. */
import { createHash } from "node:crypto";

/** Hex MD5 of a UTF-8 string (not for security: colours and class names). */
export function md5Hex(text: string): string {
  return createHash("md5").update(text).digest("hex");
}
