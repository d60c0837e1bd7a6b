/**
 * Permission debugging pages: `/-/permissions` (recent checks and a form that runs one check,
 * needs `permissions-debug`) and `/-/allow-debug` (does an actor match an allow block?).
 */
import type { ViewHost } from "../host.ts";
import type { Actor } from "../../http/actor.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest } from "../../http/errors.ts";
import { checkJsonDepth } from "../../util/json_depth.ts";
import { actor_matches_allow, type AllowBlock } from "../../auth/allow.ts";
import { respondWithFormat } from "../../render/output_format.ts";
import { renderPage } from "../../render/render_page.ts";

/**
 * `/-/permissions` and `/-/permissions.json`. GET lists the recent checks, newest first:
 * `{"checks": [{when, actor, action, resource, result, used_default}], "permissions": [...]}`.
 * POST (`actor` JSON, `permission`, `resource_1`, `resource_2`) runs one check and answers
 * `{"actor", "permission", "resource", "result", "default"}` as JSON, or the page with the result.
 */
export async function permissionsDebugView(svc: ViewHost, request: Request): Promise<Response> {
  await svc.ensure_permissions(request.actor, ["permissions-debug"]);
  const context: Record<string, unknown> = {};
  let tested: Record<string, unknown> | null = null;
  if (request.method === "POST") {
    tested = await runCheck(svc, await request.post_vars());
    Object.assign(context, {
      test_actor: JSON.stringify(tested.actor, null, 2),
      test_permission: tested.permission,
      test_resource_1: Array.isArray(tested.resource) ? tested.resource[0] : tested.resource,
      test_resource_2: Array.isArray(tested.resource) ? tested.resource[1] : null,
      test_result: tested.result,
    });
  }
  // Read after the test check so the page lists it too.
  const checks = svc.permissionChecker.recentChecks();
  const permissions = [...svc.permissionRegistry].map((permission) => permission.toJSON());
  return await respondWithFormat(request, {
    json: () => Response.json(tested ?? { checks, permissions }),
    html: () =>
      renderPage(svc, request, "permissions_debug.html", {
        ...context,
        permissions,
        permission_checks: checks,
      }, { view_name: "permissions_debug" }),
  });
}

async function runCheck(svc: ViewHost, form: Record<string, string>) {
  const actor = parseJson(form.actor ?? "null", "Actor", Number(svc.setting("max_json_depth")));
  if (actor !== null && (typeof actor !== "object" || Array.isArray(actor))) {
    throw new BadRequest("Actor must be a JSON object or null");
  }
  const name = (form.permission ?? "").trim();
  const permission = svc.permissionRegistry.find(name);
  if (!permission) throw new BadRequest(`Unknown permission: ${name || "(none)"}`);
  const parts = [form.resource_1, form.resource_2].map((part) => (part ?? "").trim())
    .filter(Boolean);
  const resource: string | [string, string] | null = parts.length === 2
    ? [parts[0], parts[1]]
    : parts.length === 1
    ? parts[0]
    : null;
  const result = await svc.permission_allowed(actor as Actor | null, permission.name, resource);
  return { actor, permission: permission.name, resource, result, default: permission.default };
}

/**
 * `/-/allow-debug?actor=…&allow=…`: evaluates the allow block against the actor with the same
 * matching rules as the metadata. JSON errors are shown on the page (or in `errors` as JSON).
 */
export async function allowDebugView(svc: ViewHost, request: Request): Promise<Response> {
  // A locked-down instance shows nothing to those who may not view it, tools included.
  await svc.ensure_permissions(request.actor, ["view-instance"]);
  const errors: string[] = [];
  const read = (name: string, fallback: string, label: string) => {
    const text = String(request.args.get(name) ?? "").trim() || fallback;
    try {
      checkJsonDepth(text, request.max_json_depth);
      const value = JSON.parse(text);
      return { value, input: JSON.stringify(value, null, 4) };
    } catch (error) {
      errors.push(`${label} JSON error: ${(error as Error).message}`);
      return { value: undefined, input: text };
    }
  };
  const actor = read("actor", '{"id": "root"}', "Actor");
  const allow = read("allow", '{"id": "*"}', "Allow");
  if (
    !errors.length && actor.value !== null &&
    (typeof actor.value !== "object" || Array.isArray(actor.value))
  ) {
    errors.push("Actor must be a JSON object or null");
  }
  const result = errors.length
    ? null
    : actor_matches_allow(actor.value as Actor | null, allow.value as AllowBlock);
  return await respondWithFormat(request, {
    json: () =>
      Response.json(
        { ok: !errors.length, result, actor: actor.value, allow: allow.value, errors },
        {
          status: errors.length ? 400 : 200,
        },
      ),
    html: () =>
      renderPage(svc, request, "allow_debug.html", {
        actor_input: actor.input,
        allow_input: allow.input,
        result,
        error: errors.join("\n\n"),
      }, { view_name: "allow_debug" }),
  });
}

function parseJson(text: string, label: string, maxDepth: number): unknown {
  try {
    checkJsonDepth(text, maxDepth);
    return JSON.parse(text);
  } catch (error) {
    throw new BadRequest(`${label} JSON error: ${(error as Error).message}`);
  }
}
