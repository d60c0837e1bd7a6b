/**
 * The page hooks that add to a page's heading: the actions menus (`homepage_actions`,
 * `database_actions`, `table_actions`, `view_actions`, `row_actions`, `query_actions`) and the
 * HTML placed at the top of a page (`top_homepage`, `top_database`, `top_table`, `top_row`,
 * `top_query`, `top_canned_query` with its newer name `top_stored_query`).
 *
 * @module
 */

import type { ViewHost } from "./host.ts";
import type { HookCallArgs } from "../plugins/hooks.ts";
import { Markup } from "../util/markup.ts";
import { awaitMeMaybe } from "../util/await_me_maybe.ts";

type ActionsHook =
  | "homepage_actions"
  | "database_actions"
  | "table_actions"
  | "view_actions"
  | "row_actions"
  | "query_actions";

type TopHook =
  | "top_homepage"
  | "top_database"
  | "top_table"
  | "top_row"
  | "top_query"
  | "top_canned_query"
  | "top_stored_query";

/** A menu entry an actions hook answered. */
export interface ActionLink {
  href: string;
  label: string;
  description?: string;
}

/** Every `{href, label}` the actions hook `name` answered, in call order. */
export async function actionLinks<N extends ActionsHook>(
  svc: ViewHost,
  name: N,
  args: HookCallArgs<N>,
): Promise<ActionLink[]> {
  if (!svc.hooks.has(name)) return [];
  const links: ActionLink[] = [];
  for (const answer of await svc.hooks.call(name, args as never)) {
    const list = await awaitMeMaybe<unknown>(answer);
    if (Array.isArray(list)) links.push(...list as ActionLink[]);
  }
  return links;
}

/**
 * The HTML the top hook `name` answered, joined; plugins answer HTML they made safe themselves,
 * as the reference's hooks do. `top_canned_query` also asks `top_stored_query`.
 */
export async function topHtml<N extends TopHook>(
  svc: ViewHost,
  name: N,
  args: HookCallArgs<N>,
): Promise<Markup> {
  const names: TopHook[] = name === "top_canned_query" ? [name, "top_stored_query"] : [name];
  const pieces: string[] = [];
  for (const hook of names) {
    if (!svc.hooks.has(hook)) continue;
    for (const answer of await svc.hooks.call(hook, args as never)) pieces.push(String(answer));
  }
  return new Markup(pieces.join("\n"));
}
