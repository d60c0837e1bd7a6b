/**
 * Core's answers to the `forbidden` and `handle_exception` hooks: the default 403 and 500 pages.
 * Both are `trylast`, so any plugin's implementation is asked first and replaces them by returning
 * a Response; one that only records the error (returns nothing) leaves the page to these.
 *
 * `forbidden` is called with the spec's `message` and, as a Vitrine extension, the `exception`
 * being answered, whose title and headers the default page keeps.
 */
import type { ViewHost } from "../../views/host.ts";
import type { Request } from "../../http/request.ts";
import type { Response } from "../../http/response.ts";
import { Forbidden } from "../../http/errors.ts";
import { hookimpl } from "../hookimpl.ts";
import { errorPage } from "../../views/special/error_page.ts";

/** The default 403: the `403.html` (or `error.html`) page, or a JSON body for JSON requests. */
export const forbidden = hookimpl(
  (
    { svc, request, message, exception }: {
      svc: ViewHost;
      request: Request;
      message: string;
      exception?: unknown;
    },
  ): Promise<Response> =>
    errorPage(svc, request, exception instanceof Forbidden ? exception : new Forbidden(message)),
  { trylast: true },
);

/** The default 500: the `500.html` (or `error.html`) page without stack trace or file paths. */
export const handle_exception = hookimpl(
  ({ svc, request, exception }: { svc: ViewHost; request: Request; exception: unknown }) =>
    errorPage(svc, request, exception),
  { trylast: true },
);
