/**
 * `Vary`: the request headers a response was chosen by, so that caches keep one copy per value.
 *
 * @module
 */
import type { Response } from "./response.ts";

/** Adds `field` to the response's `Vary` header, once, whatever case the header was set in. */
export function appendVary(response: Response, field: string): void {
  const key = Object.keys(response.headers).find((name) => name.toLowerCase() === "vary") ?? "vary";
  const current = response.headers[key];
  if (current?.split(",").some((item) => item.trim().toLowerCase() === field.toLowerCase())) return;
  response.headers[key] = current ? `${current}, ${field}` : field;
}
