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

/** Resolves the cookie actor or the bearer-token actor. */
export function actor_from_request(
  { svc, request }: { svc: ViewHost; request: Request },
): Record<string, unknown> | null {
  const authorization = request.headers["authorization"] ?? "";
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization)?.[1];
  if (bearer?.startsWith("dstok_")) {
    try {
      return actorFromToken(svc.signer, bearer, {
        allow_signed_tokens: Boolean(svc.setting("allow_signed_tokens")),
        max_signed_tokens_ttl: Number(svc.setting("max_signed_tokens_ttl")),
      });
    } catch (error) {
      if (!(error instanceof InvalidToken)) throw error;
      const unauthorized = new HttpError(401, error.message);
      Object.assign(unauthorized, {
        headers: { "www-authenticate": 'Bearer error="invalid_token"' },
      });
      throw unauthorized;
    }
  }
  return decodeActorCookie(svc.signer, request.cookies[ACTOR_COOKIE]);
}
