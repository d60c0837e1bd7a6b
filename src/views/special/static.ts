/** Static files: bundled assets, plugins' `static/` folders and `--static` mounts. */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { NotFound } from "../../http/errors.ts";
import { safeRelativePath, serveBytes, serveFile } from "../../http/static_files.ts";
import { assetDir, readAsset } from "../../util/assets.ts";

/** Vitrine's own `static/` on disk; null when the files are embedded (the bundle). */
const OWN_STATIC = assetDir("static");
const STATIC_CACHE = "max-age=3600, public";

/** `/-/static/<path>`: Vitrine's own CSS and JavaScript (from disk, or embedded in the bundle). */
export async function staticView(_svc: ViewHost, request: Request): Promise<Response> {
  return await ownStatic(request.url_vars.path, request);
}

/**
 * `/favicon.ico`: browsers ask for it on every page without a `<link rel=icon>` (JSON, files):
 * Vitrine's SVG icon, so no console shows a 404.
 */
export async function faviconView(_svc: ViewHost, request: Request): Promise<Response> {
  return await ownStatic("favicon.svg", request);
}

/** Embedded assets already decoded, by path: the same bytes each time, their tag computed once. */
const embeddedAssets = new Map<string, Uint8Array>();

/** One of Vitrine's own static files, by its (URL-encoded) path below `static/`. */
async function ownStatic(path: string, request: Request): Promise<Response> {
  const options = { cacheControl: STATIC_CACHE };
  if (OWN_STATIC !== null) return await found(serveFile(OWN_STATIC, path, request, options));
  const relative = safeRelativePath(path);
  if (relative === null) throw new NotFound("File not found");
  // Only assets that exist are remembered: a finite set, whatever paths are asked for.
  const bytes = embeddedAssets.get(relative) ?? readAsset("static", relative);
  if (bytes === null) throw new NotFound("File not found");
  embeddedAssets.set(relative, bytes);
  return await found(serveBytes(bytes, relative, request, options));
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
