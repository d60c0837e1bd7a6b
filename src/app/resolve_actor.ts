/**
 * Step 5 of the lifecycle: the actor is the first non-null answer of the `actor_from_request`
 * hooks. The signed `ds_actor` cookie and `dstok_` bearer tokens are default plugins on the same
 * hook, registered first so that user plugins are asked before them.
 */
import type { AppHost } from "./host.ts";
import type { Request } from "../http/request.ts";

/** The actor for `request`, or null for anonymous. */
export async function resolveActor(
  svc: AppHost,
  request: Request,
): Promise<Record<string, unknown> | null> {
  const actor = await svc.hooks.first("actor_from_request", { request });
  return (actor as Record<string, unknown> | null) ?? null;
}
