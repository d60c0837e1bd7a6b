/** Static files: bundled assets, plugins' `static/` folders and `--static` mounts. */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { NotFound } from "../../http/errors.ts";
import { serveFile } from "../../http/static_files.ts";
import { fileURLToPath } from "node:url";

const BUNDLED_STATIC = fileURLToPath(new URL("../../../static/", import.meta.url));
const STATIC_CACHE = "max-age=3600, public";

/** `/-/static/<path>`: Vitrine's own CSS and JavaScript. */
export async function staticView(_svc: ViewHost, request: Request): Promise<Response> {
  return await found(serveFile(BUNDLED_STATIC, request.url_vars.path, request, {
    cacheControl: STATIC_CACHE,
  }));
}

/**
 * `/favicon.ico`: browsers ask for it on every page without a `<link rel=icon>` (JSON, files):
 * Vitrine's SVG icon, so no console shows a 404.
 */
export async function faviconView(_svc: ViewHost, request: Request): Promise<Response> {
  return await found(serveFile(BUNDLED_STATIC, "favicon.svg", request, {
    cacheControl: STATIC_CACHE,
  }));
}

/** `/-/static-plugins/<plugin>/<path>`: a plugin's bundled `static/` folder. */
export async function pluginStaticView(svc: ViewHost, request: Request): Promise<Response> {
  const name = decodeURIComponent(request.url_vars.plugin);
  const staticDir = svc.registered.pluginStaticDir(name);
  if (!staticDir) throw new NotFound("Plugin static directory not found");
  return await found(serveFile(staticDir, request.url_vars.path, request, {
    cacheControl: STATIC_CACHE,
  }));
}

/** `/<mount>/<path>` for each `--static mount:dir`. */
export async function staticMountView(svc: ViewHost, request: Request): Promise<Response> {
  const mount = request.url_vars.mount;
  const entry = (svc.options.static_mounts ?? []).find(([m]) =>
    m.replace(/^\/+|\/+$/g, "") === mount
  );
  if (!entry) throw new NotFound("Not found");
  return await found(serveFile(entry[1], request.url_vars.path, request));
}

/** A 404 from serveFile becomes the site's 404 page (JSON or HTML) like any other. */
async function found(pending: Promise<Response>): Promise<Response> {
  const response = await pending;
  if (response.status === 404) throw new NotFound("File not found");
  return response;
}
