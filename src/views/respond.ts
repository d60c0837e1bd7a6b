/**
 * Content negotiation for views: the `.json` suffix (or `Accept: application/json`) picks JSON,
 * no suffix picks HTML, and any other suffix goes to a registered output renderer or 404s.
 */
import type { Request } from "../http/request.ts";
import type { Response } from "../http/response.ts";
import { NotFound } from "../http/errors.ts";
import { wantsJson } from "../http/negotiation.ts";

/** How to build each representation a view offers. */
export interface Representations {
  json: () => Response | Promise<Response>;
  html: () => Response | Promise<Response>;
  /** Any other format (csv, plugin renderers); null when the view cannot serve it. */
  other?: (format: string) => Response | Promise<Response> | null;
}

/** Calls the builder for the format the request asks for. */
export async function respondWithFormat(
  request: Request,
  representations: Representations,
): Promise<Response> {
  const format = request.url_vars?.format ?? null;
  if (format === null) {
    return await (wantsJson(request) ? representations.json() : representations.html());
  }
  if (format === "json") return await representations.json();
  const other = representations.other?.(format);
  if (other) return await other;
  throw new NotFound(`Unknown format: ${format}`);
}
