/**
 * Example plugin: a custom page through `register_routes`.
 *
 * `GET /-/hello/<name>` answers `{"greeting": "Hello, <name>!", "actor": ...}` as JSON.
 * Named groups of the pattern arrive in `request.url_vars`.
 *
 * Run: `vitrine serve --plugin examples/plugins/hello_route.ts`
 */
// Published plugins import the same names from the vitrine package instead of a path.
import { type HookArgs, type Request, Response, type RouteView } from "../../mod.ts";

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
