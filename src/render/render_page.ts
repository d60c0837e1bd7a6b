/**
 * Renders an HTML page: awaits the page hooks (`extra_template_vars`, `extra_css_urls`,
 * `extra_js_urls`, `extra_body_script`, `menu_links`), takes the flash messages, gives templates a
 * `csrftoken()` that issues the cookie, then renders synchronously with nunjucks.
 */
import type { RenderHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { baseContext } from "./page_context.ts";
import { decodeMessages, MESSAGES_COOKIE } from "../auth/messages.ts";
import { requestState } from "../http/request_state.ts";
import { csrfTokenFor } from "./csrf_token.ts";
import { allowCspSource, cspNonce } from "../http/csp.ts";
import { alternateJsonUrl } from "./output_format.ts";

/** Which page is rendering, for the hooks' parameters. */
export interface PageOptions {
  view_name: string;
  database?: string | null;
  table?: string | null;
  columns?: string[] | null;
  status?: number;
  headers?: Record<string, string>;
}

/** Renders `templates` (first existing wins) into an HTML Response. */
export async function renderPage(
  svc: RenderHost,
  request: Request | null,
  templates: string | string[],
  context: Record<string, unknown>,
  options: PageOptions,
): Promise<Response> {
  if (request && svc.setting("template_debug") && isOn(request.args.get("_context"))) {
    return await contextResponse(svc, request, templates, context, options);
  }
  const html = await renderHtml(svc, request, templates, context, options);
  return Response.html(html, { status: options.status ?? 200, headers: options.headers ?? {} });
}

function isOn(value: unknown): boolean {
  return ["1", "on", "true"].includes(String(value ?? "").toLowerCase());
}

/**
 * `?_context=1` with the `template_debug` setting: the page's template context as JSON, for
 * people writing templates (functions are listed by name; the request is left out).
 */
async function contextResponse(
  svc: RenderHost,
  request: Request,
  templates: string | string[],
  context: Record<string, unknown>,
  options: PageOptions,
): Promise<Response> {
  const template = svc.templates.select(templates) ?? [templates].flat()[0];
  const full = await buildPageContext(svc, request, template, context, options);
  const { request: _request, ...rest } = full;
  const plain = JSON.parse(JSON.stringify(rest, (_key, value) => {
    if (typeof value === "function") return `<function ${value.name || "anonymous"}>`;
    if (typeof value === "bigint") return value.toString();
    if (value instanceof String) return String(value);
    return value;
  }));
  return Response.json({ template, templates: [templates].flat(), context: plain }, {
    status: options.status ?? 200,
  });
}

/** The rendered HTML of a page (see renderPage). */
async function renderHtml(
  svc: RenderHost,
  request: Request | null,
  templates: string | string[],
  context: Record<string, unknown>,
  options: PageOptions,
): Promise<string> {
  const template = svc.templates.select(templates) ?? [templates].flat()[0];
  const merged = await buildPageContext(svc, request, template, context, options);
  // A plugin may render this request with another environment (other template folders for
  // another host name, say); the first that answers wins.
  const env = request && svc.hooks.has("jinja2_environment_from_request")
    ? await svc.hooks.first("jinja2_environment_from_request", {
      request,
      env: svc.templates.env,
    })
    : null;
  return svc.templates.render(templates, merged, env ?? undefined).html;
}

/**
 * The full context of a page: base.html's needs, the view's `context`, then whatever
 * `extra_template_vars` hooks add (they win, so plugins can override).
 */
export async function buildPageContext(
  svc: RenderHost,
  request: Request | null,
  template: string,
  context: Record<string, unknown>,
  options: PageOptions,
): Promise<Record<string, unknown>> {
  const { view_name, database = null, table = null, columns = null } = options;
  const args = { template, database, table, columns, view_name, request };
  const actor = (request?.actor as Record<string, unknown> | null) ?? null;
  const [extraVars, css, js, scripts, menuLinks] = await Promise.all([
    svc.hooks.call("extra_template_vars", args),
    svc.hooks.call("extra_css_urls", args),
    svc.hooks.call("extra_js_urls", args),
    svc.hooks.call("extra_body_script", args),
    svc.hooks.call("menu_links", { actor, request }),
  ]);
  const base = baseContext({
    metadata: svc.metadata(),
    database,
    table,
    urls: svc.urls,
    csrftoken: request ? () => csrfTokenFor(svc, request) : null,
    actor,
    base_url: String(svc.setting("base_url")),
    extra_css_urls: css,
    extra_js_urls: js,
    extra_body_scripts: scripts,
    page: view_name,
    messages: request ? takeMessages(svc, request) : [],
    menu_links: [
      ...((context.menu_links as { href: string; label: string }[] | undefined) ?? []),
      ...(menuLinks as { href: string; label: string }[][]).flat(),
    ],
  });
  if (request) allowAssetOrigins(request, base);
  // A page's JSON twin, linked from its head as from its `Link` header (`app/handler.ts`).
  if (request && (options.status ?? 200) === 200) {
    base.alternate_url_json = alternateJsonUrl(svc, request);
  }
  const merged: Record<string, unknown> = { ...base, request, settings: svc.settings.toJSON() };
  Object.assign(merged, context);
  for (const vars of extraVars) Object.assign(merged, vars);
  return merged;
}

/**
 * Every page carries its request's script nonce (`csp_nonce`, on each `<script>` of the
 * templates), and the Content-Security-Policy allows the origins of the page's extra
 * stylesheets and scripts.
 */
function allowAssetOrigins(request: Request, base: Record<string, unknown>): void {
  base.csp_nonce = cspNonce(request);
  for (const asset of base.extra_css_urls as { url: string }[]) {
    allowCspSource(request, "style-src", asset.url);
  }
  for (const asset of base.extra_js_urls as { url: string }[]) {
    allowCspSource(request, "script-src", asset.url);
  }
}

/** Messages from the cookie plus any added during this request; each is shown once. */
function takeMessages(svc: RenderHost, request: Request): [string, number][] {
  const state = requestState(request);
  const incoming = decodeMessages(svc.signer, request.cookies[MESSAGES_COOKIE]);
  const messages = [...incoming, ...state.messagesToSet];
  if (incoming.length) state.messagesShown = true;
  state.messagesToSet = [];
  return messages;
}

/** `svc.render_template()`: any template, the page hooks, an optional request. */
export async function renderTemplateForService(
  svc: RenderHost,
  template: string | string[] | { render(context: unknown): string },
  context: Record<string, unknown>,
  request: Request | null,
): Promise<string> {
  if (typeof template === "object" && !Array.isArray(template)) {
    // A compiled template gets the same context as a named one: urls, csrftoken() for the
    // request, the page hooks' variables.
    const name = String((template as { path?: unknown }).path ?? "template");
    const merged = await buildPageContext(svc, request, name, context, { view_name: "custom" });
    return template.render(merged);
  }
  return await renderHtml(svc, request, template, context, { view_name: "custom" });
}
