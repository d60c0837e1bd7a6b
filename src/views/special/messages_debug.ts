/**
 * `/-/messages`: a debug page for flash messages. GET shows a form; POST queues a message of the
 * chosen type (or one of each) and redirects back, where base.html shows it once.
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest } from "../../http/errors.ts";
import { renderPage } from "../../render/render_page.ts";

/** GET and POST `/-/messages`. */
export async function messagesDebugView(svc: ViewHost, request: Request): Promise<Response> {
  await svc.ensure_permissions(request.actor, ["view-instance"]);
  if (request.method !== "POST") {
    return await renderPage(svc, request, "messages_debug.html", {}, { view_name: "messages" });
  }
  const form = await request.post_vars();
  const message = form.message ?? "";
  // The form marks the field required; a client that skips it would queue an empty banner.
  if (!message.trim()) throw new BadRequest("message must not be empty");
  const choice = form.message_type || "INFO";
  const types: Record<string, number[]> = {
    INFO: [svc.INFO],
    WARNING: [svc.WARNING],
    ERROR: [svc.ERROR],
    all: [svc.INFO, svc.WARNING, svc.ERROR],
  };
  if (!Object.hasOwn(types, choice)) {
    throw new BadRequest(`message_type must be one of ${Object.keys(types).join(", ")}`);
  }
  for (const type of types[choice]) svc.add_message(request, message, type);
  return Response.redirect(String(svc.urls.path("-/messages")));
}
