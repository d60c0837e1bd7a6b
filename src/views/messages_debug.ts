// PLACEHOLDER: replaced by the real view in this session; answers 501 until then.
import type { Service } from "../service.ts";
import type { Request } from "../http/request.ts";
import { HttpError } from "../http/errors.ts";
import type { Response } from "../http/response.ts";
export function messagesDebugView(_svc: Service, _request: Request): Promise<Response> {
  return Promise.reject(new HttpError(501, "Not implemented yet"));
}
