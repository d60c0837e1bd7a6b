/**
 * Custom pages: `pages/<path>.html` in a template directory answers GET `/<path>`. The route table
 * ends with this view, so it answers paths no other route claims, and paths whose own view found
 * nothing (`/about` looks like a database URL).
 *
 * @module
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { NotFound } from "../../http/errors.ts";
import { routePath } from "../../http/request_state.ts";
import { findCustomPage, renderCustomPage } from "../../render/custom_page_templates.ts";
import { buildPageContext } from "../../render/render_page.ts";

/** No custom page lives at the requested path (a page's own `raise_404` is a plain NotFound). */
export class NoCustomPage extends NotFound {
  constructor() {
    super("Not found");
  }
}

/** The custom page for this request's path; NoCustomPage when there is none. */
export async function customPageView(svc: ViewHost, request: Request): Promise<Response> {
  const dirs = [
    ...(svc.options.template_dir ? [svc.options.template_dir] : []),
    ...svc.registered.pluginTemplateDirs(),
  ];
  const match = dirs.length ? findCustomPage(routePath(request), dirs) : null;
  if (!match) throw new NoCustomPage();
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
