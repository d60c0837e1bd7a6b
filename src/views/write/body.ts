/**
 * Reading a write request's JSON body, with the reference's messages for bodies it cannot use.
 * Numbers keep what they were written as (util/exact_json.ts): big integers stay exact and `1.0`
 * stays a REAL.
 *
 * @module
 */

import type { Request } from "../../http/request.ts";
import { BadRequest } from "../../http/errors.ts";
import { parseExactJson } from "../../util/exact_json.ts";
import { checkJsonDepth, JsonTooDeep } from "../../util/json_depth.ts";

/** A JSON object from a request body. */
export type JsonObject = Record<string, unknown>;

/** True for a JSON object (not null, not a list). */
export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype;
}

/** The body parsed as JSON; 400 unless it was sent as `application/json` and parses. */
export async function jsonBody(request: Request): Promise<unknown> {
  const contentType = (request.headers["content-type"] ?? "").trim().toLowerCase();
  if (!contentType.startsWith("application/json")) {
    throw new BadRequest("Invalid content-type, must be application/json");
  }
  return parseBody(await request.post_body(), request.max_json_depth);
}

/** Like {@link jsonBody}, for endpoints whose body is optional: null when it is empty or not JSON. */
export async function optionalJsonBody(request: Request): Promise<unknown> {
  const body = await request.post_body();
  if (body.length === 0) return null;
  try {
    return parseBody(body, request.max_json_depth);
  } catch {
    return null;
  }
}

/** The body as an object; 400 with `message` when it is some other JSON value. */
export async function jsonObjectBody(
  request: Request,
  message = "JSON must be a dictionary",
): Promise<JsonObject> {
  const data = await jsonBody(request);
  if (!isObject(data)) throw new BadRequest(message);
  return data;
}

function parseBody(body: Uint8Array, maxDepth: number): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw new BadRequest("Invalid JSON: the body is not UTF-8 text");
  }
  try {
    checkJsonDepth(text, maxDepth);
    return parseExactJson(text);
  } catch (error) {
    const reason = error instanceof JsonTooDeep ? "" : "Invalid JSON: ";
    throw new BadRequest(`${reason}${(error as Error).message}`);
  }
}

/** A 400 listing every problem found: `error` joins them, `errors` keeps the list. */
export function badRequest(errors: string[]): BadRequest {
  return new BadRequest(errors.join("; "), { extra: { errors } });
}

/** 400 `Invalid keys: a, b` when `data` has keys outside `valid`. */
export function rejectUnknownKeys(data: JsonObject, valid: readonly string[]): void {
  const unknown = Object.keys(data).filter((key) => !valid.includes(key));
  if (unknown.length) throw new BadRequest(`Invalid keys: ${unknown.join(", ")}`);
}
