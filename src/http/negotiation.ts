/** Which representation a request asks for. */
import type { Request } from "./request.ts";

/** True for `.json` URLs and for `Accept: application/json` requests. */
export function wantsJson(request: Request): boolean {
  if (request.url_vars?.format === "json") return true;
  if (request.path.endsWith(".json")) return true;
  const accept = request.headers["accept"] ?? "";
  return accept.split(",").some((part) => part.trim().split(";")[0] === "application/json");
}

/** True when the request body is JSON: its errors should be JSON too (API-DETAILS §7). */
export function sendsJson(request: Request): boolean {
  const contentType = request.headers["content-type"] ?? "";
  return contentType.split(";")[0].trim().toLowerCase() === "application/json";
}
