/**
 * Vitrine's own behaviour written as plugins on its public hooks, registered before any user
 * plugin so that user implementations are called first (see registry.ts for the order).
 */
import type { PluginRegistry } from "../registry.ts";
import * as actorAuth from "./actor_auth.ts";
import * as publishCloudrun from "./publish/cloudrun.ts";
import * as publishDocker from "./publish/docker.ts";
import * as publishFly from "./publish/fly.ts";
import * as publishKubernetes from "./publish/kubernetes.ts";

const DEFAULT_PLUGINS: [string, Record<string, unknown>][] = [
  ["vitrine.actor_auth", actorAuth],
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
