/**
 * `vitrine serve --get PATH`: one request through `svc.client`, printed, without serving; with
 * `--headers` the status line and headers come first, `--token` sends a bearer token and
 * `--actor JSON` a signed `ds_actor` cookie for that actor.
 */
import type { Service } from "../service.ts";
import { ACTOR_COOKIE, encodeActorCookie } from "../auth/actor_cookie.ts";
import type { Actor } from "../auth/allow.ts";
import { CliExit } from "./exit.ts";

/** What `--get` sends and prints besides the path. */
export interface GetOptions {
  /** `--headers`: print `HTTP/1.1 STATUS`, the headers and a blank line before the body. */
  headers?: boolean;
  /** `--token`: sent as `Authorization: Bearer TOKEN`. */
  token?: string;
  /** `--actor`: a JSON object, sent as the signed cookie of that actor. */
  actor?: string;
}

/**
 * The options that only mean something with `--get`: given without it, they would be silently
 * ignored by a running server (an `--actor` that seems to sign everyone in would be worse).
 */
export function checkGetOnlyOptions(get: string | undefined, options: GetOptions): void {
  if (get !== undefined) return;
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined && value !== false) {
      throw new CliExit(1, `Error: --${name} can only be used with --get`);
    }
  }
}

/** `--actor`'s JSON, checked to be an object with a clear message otherwise. */
export function parseActor(json: string): Actor {
  let actor: unknown;
  try {
    actor = JSON.parse(json);
  } catch (error) {
    throw new CliExit(
      1,
      `Error: --actor must be a JSON object such as '{"id": "root"}': ${
        error instanceof Error ? error.message : error
      }`,
    );
  }
  if (actor === null || typeof actor !== "object" || Array.isArray(actor)) {
    throw new CliExit(1, `Error: --actor must be a JSON object such as '{"id": "root"}'`);
  }
  return actor as Actor;
}

/**
 * Prints the response to `path` and closes `svc`. Fails (exit 1) for anything but a 200, as the
 * reference's `--get` does, so scripts can test the exit code.
 */
export async function printPath(svc: Service, path: string, options: GetOptions): Promise<void> {
  try {
    const actor = options.actor === undefined ? null : parseActor(options.actor);
    const response = await svc.client.get(path, {
      headers: options.token ? { authorization: `Bearer ${options.token}` } : {},
      cookies: actor ? { [ACTOR_COOKIE]: encodeActorCookie(svc.signer, actor) } : {},
    });
    if (options.headers) {
      const lines = [`HTTP/1.1 ${response.status}`];
      for (const [name, value] of response.headers) lines.push(`${name}: ${value}`);
      console.log(lines.join("\n") + (response.text ? "\n" : ""));
    }
    if (!options.headers || response.text) console.log(response.text);
    // A redirect has no body to print: say where it leads.
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      throw new CliExit(1, `${response.status}: ${path} redirects to ${location}`);
    }
    if (response.status !== 200) throw new CliExit(1);
  } finally {
    await svc.close();
  }
}
