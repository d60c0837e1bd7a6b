/**
 * Example plugin: a custom page through `register_routes`.
 *
 * `GET /-/hello/<name>` answers `{"greeting": "Hello, <name>!", "actor": ...}` as JSON.
 * Named groups of the pattern arrive in `request.url_vars`.
 *
 * Run: `vitrine serve --plugin examples/plugins/hello_route.ts`
 */
// A published plugin imports Response from the vitrine package (mod.ts) instead.
import { Response } from "../../src/http/response.ts";
import type { HookArgs, Request, RouteView } from "../../src/plugins/hookspecs.ts";

export const version = "0.1.0";

/** The view: gets one object of named values and destructures what it needs. */
function hello({ request }: { request: Request }): Response {
  const name = decodeURIComponent(request.url_vars.name);
  return Response.json({ greeting: `Hello, ${name}!`, actor: request.actor });
}

/** One route; plugin routes are matched before the built-in ones. */
export function register_routes(_: HookArgs<"register_routes">): [RegExp, RouteView][] {
  return [[/^\/-\/hello\/(?<name>[^/]+)$/, hello]];
}
