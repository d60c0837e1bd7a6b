/**
 * Shared by the built-in visualisation plugins: the URL of one of Vitrine's own static files with
 * the cache-busting version stamp, and safe embedding of JSON in a page script.
 *
 * @module
 */
import type { ViewHost } from "../../views/host.ts";
import { staticVersion } from "../../render/static_version.ts";

/** `/-/static/<path>?<version>` (base_url included). */
export function staticAsset(svc: ViewHost, path: string): string {
  return `${svc.urls.static(path)}?${staticVersion()}`;
}

/**
 * JSON that is safe inside a `<script>` element: `<`, `>`, `&` and the two JavaScript line
 * separators are escaped, so no value can close the element or break the statement.
 */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
