/**
 * Stand-ins for unit tests of the registry and loader: hooks are typed with the real `Service`
 * and `Request`, but these tests only need the few members their fixtures read.
 */
import type { Service } from "../../src/service.ts";
import type { Request } from "../../src/http/request.ts";

/** A `svc` whose `plugin_config()` and `setting()` answer null. */
export const svc = { plugin_config: () => null, setting: () => null } as unknown as Service;

/** A GET request for `path` with `url_vars` and no actor. */
export function stubRequest(path = "/", url_vars: Record<string, string> = {}): Request {
  return { method: "GET", path, url_vars, actor: null, headers: {} } as unknown as Request;
}
