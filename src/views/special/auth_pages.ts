/**
 * Sign-in and token pages: the one-time `--root` login (`/-/auth-token`), `/-/logout`, and
 * `/-/create-token` (API-DETAILS §13 and §14).
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import type { CookieOptions } from "../../http/cookies.ts";
import { Forbidden } from "../../http/errors.ts";
import { ACTOR_COOKIE, encodeActorCookie } from "../../auth/actor_cookie.ts";
import { TOKEN_PREFIX } from "../../auth/tokens.ts";
import { parseTokenForm } from "../../auth/token_form.ts";
import { UNIMPLEMENTED_ACTIONS } from "../../auth/permission_registry.ts";
import { tilde_encode } from "../../util/tilde.ts";
import { renderPage } from "../../render/render_page.ts";
import { visibleDatabases } from "../visible_databases.ts";
import { resourceClassOf } from "../../auth/permission_registry.ts";
import { cannedQueries } from "../../config/canned_query_catalog.ts";
import { CreateTokenEvent, LoginEvent, LogoutEvent } from "../../plugins/events.ts";

/**
 * GET `/-/auth-token?token=…`: exchanges the `--root` token for a signed `ds_actor` cookie of
 * `{"id": "root"}` and redirects home. The token works once; reuse or a wrong token is a 403.
 */
export async function authTokenView(svc: ViewHost, request: Request): Promise<Response> {
  // Without --root there is no token to match; answer as the reference system does.
  const outcome = svc.rootToken?.consume(String(request.args.get("token") ?? "")) ??
    "Root token has already been used";
  if (outcome !== "ok") throw new Forbidden(outcome);
  await svc.track_event(new LoginEvent({ actor: { id: "root" } }));
  const response = Response.redirect(String(svc.urls.instance()));
  response.set_cookie(
    ACTOR_COOKIE,
    encodeActorCookie(svc.signer, { id: "root" }),
    actorCookieOptions(svc, request),
  );
  return response;
}

/**
 * Attributes of the `ds_actor` cookie: never readable by scripts, not sent on cross-site
 * subrequests (SameSite=Lax, the serializer's default), and HTTPS-only when the site is served
 * over HTTPS — directly, or behind a TLS proxy that `force_https_urls` declares.
 */
function actorCookieOptions(svc: ViewHost, request: Request): CookieOptions {
  const secure = request.scheme === "https" || Boolean(svc.setting("force_https_urls"));
  return { httponly: true, samesite: "lax", secure };
}

/**
 * `/-/logout`: GET shows a CSRF-protected form; POST clears the `ds_actor` cookie, flashes
 * "You are now logged out" and redirects home.
 */
export async function logoutView(svc: ViewHost, request: Request): Promise<Response> {
  if (request.method === "POST") {
    const response = Response.redirect(String(svc.urls.instance()));
    response.set_cookie(ACTOR_COOKIE, "", {
      ...actorCookieOptions(svc, request),
      max_age: 0,
      expires: new Date(0),
    });
    svc.add_message(request, "You are now logged out", svc.WARNING);
    await svc.track_event(new LogoutEvent({ actor: request.actor }));
    return response;
  }
  return await renderPage(svc, request, "logout.html", { actor: request.actor }, {
    view_name: "logout",
  });
}

/**
 * `/-/create-token`: a form (GET) that mints a signed `dstok_` token (POST) for the signed-in
 * actor, with an optional expiry and restrictions. Tokens cannot mint tokens: an actor that came
 * from a token is refused, as is anonymous, and everybody when `allow_signed_tokens` is off.
 */
export async function createTokenView(svc: ViewHost, request: Request): Promise<Response> {
  const actor = request.actor;
  if (!svc.setting("allow_signed_tokens")) {
    throw new Forbidden("Signed tokens are not enabled for this Vitrine instance");
  }
  if (!actor || actor.id === undefined || actor.id === null) {
    throw new Forbidden("You must be logged in to create a token");
  }
  if ("token" in actor) {
    throw new Forbidden("Token authentication cannot be used to create additional tokens");
  }
  // Only actions something performs: a token allowed to `create-view` could do nothing.
  const permissions = [...svc.permissionRegistry].filter((p) => !UNIMPLEMENTED_ACTIONS.has(p.name));
  const context: Record<string, unknown> = {
    actor,
    permissions,
    // Each table or view offers the actions on tables, each canned query those on queries.
    table_permissions: permissions.filter((p) =>
      p.takes_resource && resourceClassOf(p) === "table"
    ),
    query_permissions: permissions.filter((p) =>
      p.takes_resource && resourceClassOf(p) === "query"
    ),
    database_with_tables: await databasesWithTables(svc, request),
    errors: [],
    token: null,
  };
  if (request.method !== "POST") {
    return await renderPage(svc, request, "create_token.html", context, {
      view_name: "create_token",
    });
  }
  const wanted = parseTokenForm(await request.post_vars(), svc.permissionRegistry);
  if (wanted.errors.length) {
    context.errors = wanted.errors;
    return await renderPage(svc, request, "create_token.html", context, {
      view_name: "create_token",
      status: 400,
    });
  }
  const { errors: _errors, ...options } = wanted;
  const ttl = Number(svc.setting("max_signed_tokens_ttl"));
  // The TTL caps every token when it is checked; writing the cap into the token keeps the
  // displayed expiry truthful.
  if (ttl > 0 && (options.expires_after === null || options.expires_after > ttl)) {
    options.expires_after = ttl;
    svc.add_message(
      request,
      `Tokens on this instance expire after at most ${ttl} seconds`,
      svc.WARNING,
    );
  }
  const token = svc.create_token(String(actor.id), options);
  await svc.track_event(
    new CreateTokenEvent({
      actor,
      expires_after: options.expires_after ?? null,
      restrict_all: [...options.restrict_all ?? []],
      restrict_database: lists(options.restrict_database ?? {}),
      restrict_resource: Object.fromEntries(
        Object.entries(options.restrict_resource ?? {}).map(([db, tables]) => [db, lists(tables)]),
      ),
    }),
  );
  context.token = token;
  context.token_bits = svc.unsign(token.slice(TOKEN_PREFIX.length), "token");
  return await renderPage(svc, request, "create_token.html", context, {
    view_name: "create_token",
  });
}

/** `{key: iterable}` as `{key: array}`. */
function lists(map: Record<string, Iterable<string>>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(map).map(([key, values]) => [key, [...values]]));
}

/** The databases, tables and canned queries the actor may see, for the restriction checkboxes. */
async function databasesWithTables(svc: ViewHost, request: Request) {
  const list = [];
  for (const { db } of await visibleDatabases(svc, request.actor)) {
    const hidden = new Set(await db.hidden_table_names());
    const names = [...await db.table_names(), ...await db.view_names()]
      .filter((name) => !hidden.has(name));
    const tables = [];
    for (const name of names) {
      const [tableVisible] = await svc.check_visibility(request.actor, {
        action: "view-table",
        resource: [db.name, name],
      });
      if (tableVisible) tables.push({ name, encoded: tilde_encode(name) });
    }
    const queries = [];
    for (const [name] of await cannedQueries(svc, db.name, request.actor)) {
      const [queryVisible] = await svc.check_visibility(request.actor, {
        action: "view-query",
        resource: [db.name, name],
      });
      if (queryVisible) queries.push({ name, encoded: tilde_encode(name) });
    }
    list.push({ name: db.name, encoded: tilde_encode(db.name), tables, queries });
  }
  return list;
}
