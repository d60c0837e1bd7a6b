/**
 * "Edit metadata" in the database and table menus, for actors holding `edit-metadata` there
 * (the pages are built-in routes: views/database/edit_metadata.ts).
 */
import type { HookArgs } from "../hookspecs.ts";
import { editMetadataUrl } from "../../views/database/edit_metadata.ts";
import { allowed } from "../../views/write/target.ts";

/** The table's (or SQL view's) edit page. */
export async function table_actions({ svc, actor, database, table }: HookArgs<"table_actions">) {
  if (!(await allowed(svc, actor, "edit-metadata", database, table))) return [];
  return [{ href: editMetadataUrl(svc, database, table), label: "Edit metadata" }];
}

/** The database's edit page. */
export async function database_actions({ svc, actor, database }: HookArgs<"database_actions">) {
  if (!(await allowed(svc, actor, "edit-metadata", database, null))) return [];
  return [{ href: editMetadataUrl(svc, database, null), label: "Edit metadata" }];
}
