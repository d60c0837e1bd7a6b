/**
 * Example plugin: keep search engines out, as the well-known `datasette-block-robots` does.
 *
 * Serves `/robots.txt` disallowing the whole site, or only what the configuration lists:
 *
 * ```json
 * { "plugins": { "block_robots": { "disallow": ["/private", "/shop/orders"] } } }
 * ```
 *
 * With `"allow_only_index": true` crawlers may read the home page and the database pages, but no
 * table, row or query. A `literal` string replaces the whole file. Every response also carries
 * `X-Robots-Tag: noindex` (an `asgi_wrapper`), so pages reached another way are not indexed.
 *
 * Run: `vitrine serve data.db --plugin examples/plugins/block_robots.ts`
 */
import {
  type FetchHandler,
  type HookArgs,
  Response,
  type RouteView,
  type Service,
} from "../../mod.ts";

export const version = "0.1.0";

interface Config {
  disallow?: string[];
  allow_only_index?: boolean;
  literal?: string;
}

/** The text of `/robots.txt` for this configuration. */
export function robotsText(svc: Service): string {
  const config = svc.plugin_config<Config>("block_robots") ?? {};
  if (typeof config.literal === "string") return config.literal.trimEnd() + "\n";
  const lines = ["User-agent: *"];
  if (config.allow_only_index) {
    // Everything below a database page: its tables, rows, queries and downloads.
    for (const name of svc.databases.keys()) {
      if (name === "_internal") continue;
      const path = String(svc.urls.database(name));
      lines.push(`Disallow: ${path}/`, `Disallow: ${path}.db`, `Disallow: ${path}.json`);
    }
  } else {
    for (const path of config.disallow ?? ["/"]) lines.push(`Disallow: ${path}`);
  }
  return lines.join("\n") + "\n";
}

const robots: RouteView = ({ svc }) =>
  new Response(robotsText(svc), { content_type: "text/plain; charset=utf-8" });

export function register_routes(_: HookArgs<"register_routes">): [RegExp, RouteView][] {
  return [[/^\/robots\.txt$/, robots]];
}

/** Every response says `X-Robots-Tag: noindex` too, so pages reached another way stay unindexed. */
export function asgi_wrapper(_: HookArgs<"asgi_wrapper">) {
  return (handler: FetchHandler): FetchHandler => async (request) => {
    const response = await handler(request);
    const headers = new Headers(response.headers);
    headers.set("x-robots-tag", "noindex");
    return new globalThis.Response(response.body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}
