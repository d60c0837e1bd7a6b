/**
 * The key under which the anonymous actor's permission answers are kept across requests
 * (`PermissionCheckerOptions.anonymousAnswersKey`). Apart from `Service`, which only wires it to
 * the checker: this file says when those answers cannot change.
 *
 * @module
 */

import type { PluginRegistry } from "../plugins/registry.ts";
import type { Settings } from "../config/settings.ts";
import type { PermissionRegistry } from "./permission_registry.ts";

/**
 * The anonymous actor's permission answers depend on metadata, settings, the registered
 * permissions and the `permission_allowed` and `canned_queries` hooks. While no plugin but
 * Vitrine's own answers those hooks or supplies metadata, they are fixed until a setting, a
 * permission or a plugin changes, which the key follows.
 */
export class AnonymousAnswersKey {
  readonly #pm: PluginRegistry;
  readonly #permissions: PermissionRegistry;
  readonly #settings: Settings;
  /** The last key made, and the generations it was made from. */
  #kept = { plugins: -1, permissions: -1, settings: -1, key: "" };

  /** A key following the generations of these registries and settings. */
  constructor(pm: PluginRegistry, permissions: PermissionRegistry, settings: Settings) {
    this.#pm = pm;
    this.#permissions = permissions;
    this.#settings = settings;
  }

  /** The key now, or null while a plugin may answer differently from one call to the next. */
  key(): string | null {
    const pm = this.#pm;
    if (pm.hasImpl("get_metadata") || pm.hasImpl("canned_queries")) return null;
    if (!pm.onlyBuiltin("permission_allowed")) return null;
    if (!pm.onlyBuiltin("permission_resources_sql")) return null;
    const plugins = pm.generation;
    const permissions = this.#permissions.generation;
    const settings = this.#settings.generation;
    let kept = this.#kept;
    if (
      kept.plugins !== plugins || kept.permissions !== permissions || kept.settings !== settings
    ) {
      const key = `${plugins}:${permissions}:${settings}`;
      kept = this.#kept = { plugins, permissions, settings, key };
    }
    return kept.key;
  }
}
