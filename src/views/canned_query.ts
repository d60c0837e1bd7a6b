// PLACEHOLDER: replaced by the real view in this session; answers 501 until then.
import type { Service } from "../service.ts";
import type { Request } from "../http/request.ts";
import type { Database } from "../db/database.ts";
import { HttpError } from "../http/errors.ts";
import type { Response } from "../http/response.ts";
import type { CannedQueryDefinition } from "./canned_queries.ts";
/** GET (form / results) and POST (writable queries) for a canned query. */
export function cannedQueryView(
  _svc: Service,
  _request: Request,
  _db: Database,
  _query: CannedQueryDefinition,
): Promise<Response> {
  return Promise.reject(new HttpError(501, "Not implemented yet"));
}
