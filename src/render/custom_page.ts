/** Custom pages: `pages/<path>.html` in a template directory answers GET `/<path>`. */
import type { Service } from "../service.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { NotFound } from "../http/errors.ts";
import { routePath } from "../http/request_state.ts";
import { findCustomPage, renderCustomPage } from "./custom_pages.ts";
import { buildPageContext } from "./render_page.ts";

/** The custom page for this request's path, or null when there is none. */
export async function customPageOrNull(svc: Service, request: Request): Promise<Response | null> {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  const dirs = [
    ...(svc.options.template_dir ? [svc.options.template_dir] : []),
    ...svc.state.plugins.flatMap((plugin) => plugin.templatesDir ? [plugin.templatesDir] : []),
  ];
  if (dirs.length === 0) return null;
  const match = findCustomPage(routePath(request), dirs);
  if (!match) return null;
  // Custom pages belong to the instance: a locked instance keeps them locked too.
  await svc.ensure_permissions(request.actor, ["view-instance"]);
  const context = await buildPageContext(svc, request, match.template, {}, {
    view_name: "page",
  });
  const page = renderCustomPage(svc.templates, match, context);
  if ("notFound" in page) throw new NotFound(page.notFound);
  return new Response(page.html, {
    status: page.status,
    headers: page.headers,
    content_type: "text/html; charset=utf-8",
  });
}
