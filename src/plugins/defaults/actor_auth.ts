/**
 * Default `actor_from_request`: the signed `ds_actor` cookie, and `Authorization: Bearer dstok_…`
 * API tokens. An invalid or expired token is a 401 with `WWW-Authenticate`, never anonymous:
 * a client that sent credentials should learn they failed.
 */
import type { ViewHost } from "../../views/host.ts";
import type { Request } from "../../http/request.ts";
import { HttpError } from "../../http/errors.ts";
import { ACTOR_COOKIE, decodeActorCookie } from "../../auth/actor_cookie.ts";
import { actorFromToken, InvalidToken } from "../../auth/tokens.ts";

/**
 * Resolves the cookie actor or the bearer-token actor: `dstok_` tokens here, any other bearer
 * token by the `register_token_handler` handlers in turn (the first actor wins).
 */
export function actor_from_request(
  { svc, request }: { svc: ViewHost; request: Request },
): Record<string, unknown> | null | Promise<Record<string, unknown> | null> {
  const authorization = request.headers["authorization"] ?? "";
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  if (bearer?.startsWith("dstok_")) {
    try {
      return actorFromToken(svc.signer, bearer, {
        allow_signed_tokens: Boolean(svc.setting("allow_signed_tokens")),
        max_signed_tokens_ttl: Number(svc.setting("max_signed_tokens_ttl")),
      });
    } catch (error) {
      throw unauthorized(error);
    }
  }
  if (bearer && svc.tokenHandlers.length) return handlerActor(svc, request, bearer);
  return decodeActorCookie(svc.signer, request.cookies[ACTOR_COOKIE]);
}

/** The actor a plugin's token handler finds for `token`, else the cookie's. */
async function handlerActor(svc: ViewHost, request: Request, token: string) {
  for (const handler of svc.tokenHandlers) {
    try {
      const actor = await handler.verify_token({ svc: svc as never, token });
      if (actor) return actor;
    } catch (error) {
      throw unauthorized(error);
    }
  }
  return decodeActorCookie(svc.signer, request.cookies[ACTOR_COOKIE]);
}

/**
 * A token refused (`InvalidToken`, or an error a handler names `TokenInvalid`) as a 401 with
 * `WWW-Authenticate`; any other error is a bug and goes on as it is.
 */
function unauthorized(error: unknown): unknown {
  const refused = error instanceof InvalidToken ||
    (error instanceof Error && error.name === "TokenInvalid");
  if (!refused) return error;
  const answer = new HttpError(401, error.message);
  Object.assign(answer, { headers: { "www-authenticate": 'Bearer error="invalid_token"' } });
  return answer;
}
