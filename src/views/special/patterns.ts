/**
 * `/-/patterns`, the pattern portfolio: every component of Vitrine's pages on one page, for
 * people writing templates and stylesheets. Each sample is a short template that includes the
 * real partial (whatever `--template-dir` or a plugin put in its place) with sample values, so
 * the page shows what the site's own pages would show with that data, in the site's CSS and
 * scripts, and under each sample the line that includes it.
 *
 * @module
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { buildPageContext } from "../../render/render_page.ts";
import { Markup } from "../../util/markup.ts";
import { patternSections } from "./pattern_samples.ts";

/** GET `/-/patterns` (HTML only, like the reference's; needs `view-instance`). */
export async function patternsView(svc: ViewHost, request: Request): Promise<Response> {
  await svc.ensure_permissions(request.actor, ["view-instance"]);
  // One page context (hooks awaited, flash messages taken once); each sample renders with its
  // own values on top of it, so a sample's `actor` or `messages` never reach the page's own.
  const page = await buildPageContext(svc, request, "patterns.html", {}, {
    view_name: "patterns",
  });
  const sections = patternSections(svc).map((section) => ({
    ...section,
    html: new Markup(svc.templates.renderString(section.source, { ...page, ...section.context })),
  }));
  // HTML only: no JSON twin to point at from the head.
  const context = { ...page, sections, alternate_url_json: null };
  const { html } = svc.templates.render("patterns.html", context);
  return Response.html(html);
}
