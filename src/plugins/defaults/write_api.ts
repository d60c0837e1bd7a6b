/**
 * The JSON write API and row editing in the browser, as a default plugin on the public hooks:
 * its endpoints through `register_routes`, its six actions (`insert-row`, `delete-row`,
 * `update-row`, `create-table`, `alter-table`, `drop-table`, all denied unless granted) through
 * `register_permissions`, its menu entries through `table_actions` / `database_actions`, and the
 * editing forms of table and row pages through `extra_template_vars`.
 */
import type { HookArgs } from "../hookspecs.ts";
import { WRITE_PERMISSIONS } from "../../auth/permission_registry.ts";
import { WRITE_ROUTES } from "../../views/write/routes.ts";
import { databaseActions, editorVars, tableActions } from "../../views/write/editor.ts";
import { uploadVars } from "../../views/write/upload_ui.ts";

/** The write endpoints and the create-table page. */
export function register_routes(): typeof WRITE_ROUTES {
  return WRITE_ROUTES;
}

/** The write actions, with their abbreviations for restricted tokens. */
export function register_permissions(): typeof WRITE_PERMISSIONS {
  return WRITE_PERMISSIONS;
}

/** "Insert row" and "Drop table" for actors who may. */
export function table_actions({ svc, actor, database, table }: HookArgs<"table_actions">) {
  return tableActions(svc, actor, database, table);
}

/** "Create table" for actors who may. */
export function database_actions({ svc, actor, database }: HookArgs<"database_actions">) {
  return databaseActions(svc, actor, database);
}

/**
 * `write_ui` (and `row_actions`) for table and row pages where the actor may write, and
 * `upload_ui` where the actor may upload a CSV file (a new table, or rows for this one).
 */
export function extra_template_vars(
  { svc, request, view_name, database, table }: HookArgs<"extra_template_vars">,
) {
  return Promise.all([
    editorVars(svc, request, view_name, database, table),
    uploadVars(svc, request, view_name, database, table),
  ]).then(([editor, upload]) => editor || upload ? { ...editor, ...upload } : null);
}
