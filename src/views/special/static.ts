/** Static files: bundled assets, plugins' `static/` folders and `--static` mounts. */
import type { Service } from "../../service.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { NotFound } from "../../http/errors.ts";
import { safeRelativePath, serveBytes, serveFile } from "../../http/static_files.ts";
import { assetDir, readAsset } from "../../util/assets.ts";

/** Vitrine's own `static/` on disk; null when the files are embedded (the bundle). */
const OWN_STATIC = assetDir("static");
const STATIC_CACHE = "max-age=3600, public";

/** `/-/static/<path>`: Vitrine's own CSS and JavaScript (from disk, or embedded in the bundle). */
export async function staticView(_svc: Service, request: Request): Promise<Response> {
  const options = { cacheControl: STATIC_CACHE };
  if (OWN_STATIC !== null) {
    return await found(serveFile(OWN_STATIC, request.url_vars.path, request, options));
  }
  const relative = safeRelativePath(request.url_vars.path);
  const bytes = relative === null ? null : readAsset("static", relative);
  if (bytes === null || relative === null) throw new NotFound("File not found");
  return await found(serveBytes(bytes, relative, request, options));
}

/** `/-/static-plugins/<plugin>/<path>`: a plugin's bundled `static/` folder. */
export async function pluginStaticView(svc: Service, request: Request): Promise<Response> {
  const name = decodeURIComponent(request.url_vars.plugin);
  const plugin = svc.state.plugins.find((p) => p.name === name && p.staticDir);
  if (!plugin?.staticDir) throw new NotFound("Plugin static directory not found");
  return await found(serveFile(plugin.staticDir, request.url_vars.path, request, {
    cacheControl: STATIC_CACHE,
  }));
}

/** `/<mount>/<path>` for each `--static mount:dir`. */
export async function staticMountView(svc: Service, request: Request): Promise<Response> {
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
