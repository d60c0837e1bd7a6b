/**
 * The one place an error becomes a response. A 403 asks the `forbidden` hooks and anything
 * unexpected (a 500) the `handle_exception` hooks; core's own answers to both are `trylast`
 * implementations (`src/plugins/defaults/error_pages.ts`), so a plugin's Response replaces them.
 * Every other status is answered with the default error page (`views/special/error_page.ts`):
 * the error's status, title and headers, JSON for JSON requests, a page otherwise, never a stack
 * trace or a server file path.
 */
import type { AppHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { errorPage, messageOf, statusOf } from "../views/special/error_page.ts";

/** Converts any thrown value into the response the client should see. */
export async function handleError(
  svc: AppHost,
  request: Request,
  error: unknown,
): Promise<Response> {
  const status = statusOf(error);
  let replaced: Response | null | undefined = null;
  if (status === 500) console.error(error);
  try {
    if (status === 403) {
      replaced = await svc.hooks.first("forbidden", {
        request,
        message: messageOf(error),
        exception: error,
      });
    } else if (status === 500) {
      replaced = await svc.hooks.first("handle_exception", { request, exception: error });
    }
  } catch (hookError) {
    // A plugin that fails while answering an error must not hide it: the default page does.
    console.error(hookError);
  }
  // Core's trylast implementations always answer; without them (a registry built by hand) the
  // default page still does.
  return replaced instanceof Response ? replaced : await errorPage(svc, request, error);
}
