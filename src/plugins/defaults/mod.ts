/**
 * Vitrine's own behaviour written as plugins on its public hooks, registered before any user
 * plugin so that user implementations are called first (see registry.ts for the order).
 */
import type { PluginRegistry } from "../registry.ts";
import * as actorAuth from "./actor_auth.ts";
import * as writeApi from "./write_api.ts";

const DEFAULT_PLUGINS: [string, Record<string, unknown>][] = [
  ["vitrine.actor_auth", actorAuth],
  ["vitrine.write_api", writeApi],
];

/** Registers the built-in default plugins on `registry` (once). */
export function registerDefaultPlugins(registry: PluginRegistry): void {
  for (const [name, module] of DEFAULT_PLUGINS) {
    if (!registry.get(name)) registry.register(module, { name, builtin: true });
  }
}
