/**
 * Core's `permission_allowed` answer, asked after every plugin (`trylast`): with the
 * `default_allow_sql` setting off, running custom SQL is denied unless something earlier granted
 * it (a metadata `allow_sql` block, `--root`, or a plugin).
 *
 * Token restrictions, metadata `allow`/`permissions` blocks and the root actor are not hooks:
 * they outrank every plugin (an operator's configuration is the last word), so the permission
 * checker applies them before any hook is asked (`src/auth/permission_checker.ts`).
 */
import type { ViewHost } from "../../views/host.ts";
import { hookimpl } from "../hookimpl.ts";

/** False for `execute-sql` while `default_allow_sql` is off; no opinion otherwise. */
export const permission_allowed = hookimpl(
  ({ svc, action }: { svc: ViewHost; action: string }): boolean | null =>
    action === "execute-sql" && !svc.setting("default_allow_sql") ? false : null,
  { trylast: true },
);
