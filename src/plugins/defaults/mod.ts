/**
 * Vitrine's own behaviour written as plugins on its public hooks, registered before any user
 * plugin so that user implementations are called first (see registry.ts for the order).
 */
import type { PluginRegistry } from "../registry.ts";
import * as actorAuth from "./actor_auth.ts";
import * as defaultPermissions from "./default_permissions.ts";
import * as errorPages from "./error_pages.ts";
import * as writeApi from "./write_api.ts";
import * as history from "./history.ts";
import * as editMetadata from "./edit_metadata.ts";
import * as coreEvents from "./core_events.ts";
import * as charts from "./charts.ts";
import * as columnMenus from "./column_menus.ts";
import * as maps from "./maps.ts";
import * as sqlEditor from "./sql_editor.ts";
import * as publishCloudrun from "./publish/cloudrun.ts";
import * as publishDocker from "./publish/docker.ts";
import * as publishFly from "./publish/fly.ts";
import * as publishKubernetes from "./publish/kubernetes.ts";

const DEFAULT_PLUGINS: [string, Record<string, unknown>][] = [
  ["vitrine.actor_auth", actorAuth],
  // The default 403 and 500 pages and the default permission answers, all `trylast`.
  ["vitrine.error_pages", errorPages],
  ["vitrine.default_permissions", defaultPermissions],
  ["vitrine.write_api", writeApi],
  ["vitrine.history", history],
  ["vitrine.edit_metadata", editMetadata],
  ["vitrine.core_events", coreEvents],
  // The built-in visualisations: each adds its scripts through the page hooks and can be switched
  // off with a setting of the same name (docs/configuration.md).
  ["vitrine.column_menus", columnMenus],
  ["vitrine.charts", charts],
  ["vitrine.maps", maps],
  ["vitrine.sql_editor", sqlEditor],
  // Built-in `vitrine publish` providers; a user plugin adding a provider of the same name wins.
  ["vitrine.publish_cloudrun", publishCloudrun],
  ["vitrine.publish_docker", publishDocker],
  ["vitrine.publish_fly", publishFly],
  ["vitrine.publish_kubernetes", publishKubernetes],
];

/** Registers the built-in default plugins on `registry` (once). */
export function registerDefaultPlugins(registry: PluginRegistry): void {
  for (const [name, module] of DEFAULT_PLUGINS) {
    if (!registry.get(name)) registry.register(module, { name, builtin: true });
  }
}
