/**
 * The reference's (1.0a37) permission debugging pages, each as JSON (`.json`) and as a page with
 * a form:
 *
 * - `/-/actions`: every registered action (needs `permissions-debug`);
 * - `/-/rules?action=`: the rules that apply to the current actor for an action, from the
 *   configuration, plugins, a token's restrictions and `--root` (needs `permissions-debug`);
 * - `/-/check?action=&parent=&child=&actor=`: one check explained, step by step (needs
 *   `permissions-debug`; `actor` tries another actor);
 * - `/-/allowed?action=&parent=&child=`: the resources the current actor may act on; anyone may
 *   ask about themselves, the reasons are shown only to holders of `permissions-debug`.
 *
 * Errors answer as the reference does: 400 without `action`, 404 for an unknown action.
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Actor } from "../../http/actor.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { BadRequest, NotFound } from "../../http/errors.ts";
import { checkJsonDepth } from "../../util/json_depth.ts";
import { type Permission, resourceClassOf } from "../../auth/permission_registry.ts";
import { configuredRules } from "../../auth/metadata_rules.ts";
/** A resource as views pass it: none, a database, or a database and a table or query. */
type Resource = string | [string, string] | null;
import { respondWithFormat } from "../../render/output_format.ts";
import { renderPage } from "../../render/render_page.ts";
import { cannedQueries } from "../../config/canned_query_catalog.ts";
import { pathWithReplacedArgs } from "../../render/url_helpers.ts";

const PAGE_SIZE = 50;
const TITLES: Record<string, string> = {
  actions: "Registered actions",
  rules: "Permission rules",
  check: "Check a permission",
  allowed: "Allowed resources",
};
const MAX_PAGE_SIZE = 200;

/** One action as `/-/actions` lists it (the reference's fields). */
function actionFields(permission: Permission) {
  const resource_class = resourceClassOf(permission);
  return {
    name: permission.name,
    abbr: permission.abbr,
    description: permission.description,
    takes_parent: resource_class !== null,
    takes_child: resource_class === "table" || resource_class === "query",
    resource_class,
    also_requires: (permission as { also_requires?: string | null }).also_requires ?? null,
    default: permission.default,
  };
}

function sortedActions(svc: ViewHost) {
  return [...svc.permissionRegistry].map(actionFields).sort((a, b) => a.name.localeCompare(b.name));
}

/** `/-/actions`: `{"actions": [{name, abbr, description, takes_parent, ...}]}`. */
export async function actionsView(svc: ViewHost, request: Request): Promise<Response> {
  await svc.ensure_permissions(request.actor, ["permissions-debug"]);
  const actions = sortedActions(svc);
  return await respondWithFormat(request, {
    json: () => Response.json({ actions }),
    html: () => page(svc, request, "actions", { actions }),
  });
}

/** `/-/rules?action=`: the rules for the current actor and an action, paginated. */
export async function rulesView(svc: ViewHost, request: Request): Promise<Response> {
  await svc.ensure_permissions(request.actor, ["view-instance"]);
  await svc.ensure_permissions(request.actor, ["permissions-debug"]);
  return await formPage(svc, request, "rules", async () => {
    const action = requiredAction(svc, request);
    const actor = request.actor;
    const rules = [
      ...configuredRules(svc.metadata().data, actor, action.name).map((rule) => ({
        ...rule,
        source_plugin: null as string | null,
      })),
      ...(await svc.sqlPermissionRules(actor, action.name)).map((rule) => ({
        parent: rule.parent,
        child: rule.child,
        allow: rule.allow,
        reason: rule.reason,
        source: "plugin",
        source_plugin: rule.source.split(" ")[0],
      })),
    ];
    if (actor?.id === "root" && svc.options.root) {
      rules.push({
        parent: null,
        child: null,
        allow: true,
        reason: "The root actor may do anything no configuration rule denies",
        source: "root",
        source_plugin: null,
      });
    }
    if (actor && "_r" in actor) {
      rules.push({
        parent: null,
        child: null,
        allow: false,
        reason: "The token's restrictions deny anything they do not list",
        source: "token restrictions",
        source_plugin: null,
      });
    }
    const items = rules.map((rule) => ({
      parent: rule.parent,
      child: rule.child,
      resource: resourcePath(rule.parent, rule.child),
      allow: rule.allow ? 1 : 0,
      reason: rule.reason,
      source: rule.source,
      source_plugin: rule.source_plugin,
    }));
    return paginated(request, action.name, items);
  });
}

/** `/-/check?action=&parent=&child=`: one check explained. */
export async function checkView(svc: ViewHost, request: Request): Promise<Response> {
  await svc.ensure_permissions(request.actor, ["permissions-debug"]);
  return await formPage(svc, request, "check", async () => {
    const action = requiredAction(svc, request);
    const [parent, child] = parentAndChild(request);
    const actor = actorParam(svc, request);
    const resource: Resource = child !== null
      ? [parent!, child]
      : parent !== null && action.takes_database
      ? parent
      : null;
    const explanation = await svc.permissionChecker.explain(actor, action.name, resource);
    const body: Record<string, unknown> = {
      ok: true,
      action: action.name,
      allowed: explanation.allowed,
      actor,
      resource: { parent, child, path: resourcePath(parent, child) },
      explanation,
    };
    if (actor && "id" in actor) body.actor_id = actor.id;
    return body;
  });
}

/** `/-/allowed?action=`: the resources the current actor may act on. */
export async function allowedView(svc: ViewHost, request: Request): Promise<Response> {
  const debug = Boolean(await svc.permission_allowed(request.actor, "permissions-debug"));
  return await formPage(svc, request, "allowed", async () => {
    const action = requiredAction(svc, request);
    const [parent, child] = parentAndChild(request);
    const items: Record<string, unknown>[] = [];
    for (const resource of await candidates(svc, request.actor, action, parent)) {
      const [itemParent, itemChild] = Array.isArray(resource)
        ? resource
        : [resource as string | null, null];
      if (child !== null && itemChild !== child) continue;
      if (!(await allowedOn(svc, request.actor, action.name, resource))) continue;
      const item: Record<string, unknown> = {
        parent: itemParent,
        child: itemChild,
        resource: resourcePath(itemParent, itemChild),
      };
      if (debug) {
        const explanation = await svc.permissionChecker.explain(
          request.actor,
          action.name,
          resource,
        );
        item.reason = explanation.steps.filter((step) => step.answer !== "no opinion")
          .map((step) => `${step.step}: ${step.reason}`);
      }
      items.push(item);
    }
    return paginated(request, action.name, items);
  }, { has_debug_permission: debug });
}

/** Viewing actions need every level above them, as pages do; others are checked alone. */
async function allowedOn(
  svc: ViewHost,
  actor: Actor | null,
  action: string,
  resource: Resource,
): Promise<boolean> {
  if (action.startsWith("view-")) {
    const [visible] = await svc.check_visibility(actor, { action, resource });
    return visible;
  }
  return Boolean(await svc.permission_allowed(actor, action, resource));
}

/** Every resource an action could apply to: the instance, databases, tables or queries. */
async function candidates(
  svc: ViewHost,
  actor: Actor | null,
  action: Permission,
  parent: string | null,
): Promise<Resource[]> {
  const kind = resourceClassOf(action);
  if (kind === null) return [null];
  const out: Resource[] = [];
  for (const db of svc.databases.values()) {
    if (db.name === "_internal" || (parent !== null && db.name !== parent)) continue;
    if (kind === "database") out.push(db.name);
    else if (kind === "table") {
      for (const name of [...await db.table_names(), ...await db.view_names()]) {
        out.push([db.name, name]);
      }
    } else {
      for (const [name] of await cannedQueries(svc, db.name, actor)) out.push([db.name, name]);
    }
  }
  return out;
}

/** The `action` argument: 400 when missing, 404 when no such action is registered. */
function requiredAction(svc: ViewHost, request: Request): Permission {
  const name = String(request.args.get("action") ?? "").trim();
  if (!name) throw new BadRequest("action parameter is required");
  const action = svc.permissionRegistry.find(name);
  if (!action) throw new NotFound(`Unknown action: ${name}`);
  return action;
}

function parentAndChild(request: Request): [string | null, string | null] {
  const parent = String(request.args.get("parent") ?? "").trim() || null;
  const child = String(request.args.get("child") ?? "").trim() || null;
  if (child !== null && parent === null) {
    throw new BadRequest("parent is required when child is provided");
  }
  return [parent, child];
}

/** `?actor=` as JSON (`null` for anonymous), else the signed-in actor. */
function actorParam(svc: ViewHost, request: Request): Actor | null {
  const text = request.args.get("actor");
  if (text === null || text === undefined || String(text).trim() === "") return request.actor;
  let actor: unknown;
  try {
    checkJsonDepth(String(text), Number(svc.setting("max_json_depth")));
    actor = JSON.parse(String(text));
  } catch (error) {
    throw new BadRequest(`Invalid actor JSON: ${(error as Error).message}`);
  }
  if (actor !== null && (typeof actor !== "object" || Array.isArray(actor))) {
    throw new BadRequest("actor must be a JSON object or null");
  }
  return actor as Actor | null;
}

function resourcePath(parent: string | null, child: string | null): string {
  return parent === null ? "/" : child === null ? `/${parent}` : `/${parent}/${child}`;
}

/** The reference's pagination (`_page`, `_size` up to 200 or `max`). */
function paginated(request: Request, action: string, all: Record<string, unknown>[]) {
  const page = Number(request.args.get("_page") ?? "1");
  if (!Number.isInteger(page) || page < 1) throw new BadRequest("_page must be a positive integer");
  const sizeArg = String(request.args.get("_size") ?? "");
  const size = sizeArg === "max" ? MAX_PAGE_SIZE : sizeArg ? Number(sizeArg) : PAGE_SIZE;
  if (!Number.isInteger(size) || size < 1) throw new BadRequest("_size must be a positive integer");
  if (size > MAX_PAGE_SIZE) throw new BadRequest(`_size must be <= ${MAX_PAGE_SIZE}`);
  const offset = (page - 1) * size;
  const actor = request.actor;
  const body: Record<string, unknown> = {
    ok: true,
    action,
    actor_id: actor?.id ?? null,
    page,
    page_size: size,
    total: all.length,
    items: all.slice(offset, offset + size),
  };
  const at = (n: number) =>
    pathWithReplacedArgs(request, { _page: String(n), _size: String(size) });
  if (all.length > offset + size) body.next_url = at(page + 1);
  if (page > 1) body.previous_url = at(page - 1);
  return body;
}

/**
 * A tool page: `.json` answers `data()`; the HTML page shows the form, and the same data once an
 * action was chosen (its error, if any, shown on the page).
 */
async function formPage(
  svc: ViewHost,
  request: Request,
  tool: string,
  data: () => Promise<Record<string, unknown>>,
  extra: Record<string, unknown> = {},
): Promise<Response> {
  return await respondWithFormat(request, {
    json: async () => Response.json(await data()),
    html: async () => {
      let result: Record<string, unknown> | null = null;
      let error: string | null = null;
      if (request.args.get("action")) {
        try {
          result = await data();
        } catch (caught) {
          if (!(caught instanceof BadRequest || caught instanceof NotFound)) throw caught;
          error = caught.message;
        }
      }
      return await page(svc, request, tool, { ...extra, result, error });
    },
  });
}

function page(svc: ViewHost, request: Request, tool: string, context: Record<string, unknown>) {
  return renderPage(svc, request, "permission_tools.html", {
    tool,
    page_title: TITLES[tool],
    actions: sortedActions(svc),
    form: {
      action: String(request.args.get("action") ?? ""),
      parent: String(request.args.get("parent") ?? ""),
      child: String(request.args.get("child") ?? ""),
      actor: String(request.args.get("actor") ?? ""),
    },
    result_json: context.result ? JSON.stringify(context.result, null, 2) : null,
    ...context,
  }, { view_name: `permission_${tool}` });
}
