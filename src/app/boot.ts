/**
 * The service's one-time start-up sequence, run on the first request or `invoke_startup()`:
 *
 * 1. Register the built-in default plugins, then load user plugins (`--plugins-dir`,
 *    `--plugin`, `VITRINE_PLUGINS`, metadata `plugins`), so user hooks run first.
 * 2. Register permissions: core's, then `register_permissions` (the write API's come from its
 *    default plugin), then `register_actions`; the event classes of `register_events`, the
 *    column types of `register_column_types`, the token handlers of `register_token_handler`.
 * 3. Template environment: plugin `templates/` dirs (in call order, so the plugin whose hooks
 *    run first also wins a template name two plugins bundle), `prepare_jinja2_environment`.
 * 4. Routes: `register_routes` before the built-in table.
 * 5. Output renderers, facet classes and magic parameters from their hooks.
 * 6. `asgi_wrapper` hooks: the handler wraps itself in them on the first request.
 * 7. `startup` hooks; a failure rejects `ready()` (and `invoke_startup()`) with a PluginError
 *    naming the plugin (`Plugin "x" failed in startup: ...`, the hook's error as `cause`), which
 *    stops `vitrine serve` with exit code 1 and answers any request with a 500.
 *
 * Plugins are loaded here, not in the constructor: code that queries databases directly without
 * a request should `await svc.invoke_startup()` first, so connections see plugin SQL functions.
 */
import type { AppHost } from "./host.ts";
import type { PluginRegistry } from "../plugins/registry.ts";
import type { Registered } from "../views/host.ts";
import type { FacetClass } from "../table/facets.ts";
import { type LoadedPlugin, loadPlugins } from "../plugins/loader.ts";
import { PluginError, type PluginInfo } from "../plugins/plugin_info.ts";
import { registerDefaultPlugins } from "../plugins/defaults/mod.ts";
import { CORE_PERMISSIONS } from "../auth/permission_registry.ts";
import type { FetchHandler } from "./host.ts";
import { Router } from "../http/router.ts";
import { addBuiltinRoutes, addPluginRoutes } from "./routes.ts";
import { collectRenderers, type OutputRenderer } from "../render/renderers.ts";
import { collectMagicParameters, type MagicParameters } from "../views/query/magic_parameters.ts";

/** What boot() computes once and the request pipeline reads. */
export interface BootState {
  plugins: LoadedPlugin[];
  pluginModuleUrls: string[];
  router: Router;
  renderers: Map<string, OutputRenderer>;
  facetClasses: FacetClass[];
  magicParameters: MagicParameters;
  wrappers: ((app: FetchHandler) => FetchHandler)[];
}

/** The views' read-only window on what boot registered (filled in when boot runs). */
export function registeredFrom(state: BootState, pm: PluginRegistry): Registered {
  return {
    get renderers() {
      return state.renderers ?? new Map();
    },
    get facetClasses() {
      return state.facetClasses ?? [];
    },
    get magicParameters() {
      return state.magicParameters;
    },
    pluginTemplateDirs: () =>
      (state.plugins ?? []).flatMap((plugin) => plugin.templatesDir ? [plugin.templatesDir] : []),
    pluginStaticDir: (name) => pm.get(name)?.staticDir ?? null,
    pluginListing: (options) => pm.plugins(options),
  };
}

/** Runs the start-up sequence for `svc` (see the module comment). */
export async function boot(svc: AppHost): Promise<void> {
  const state = svc.state;
  registerDefaultPlugins(svc.pm);
  // A `plugins` *list* in metadata names plugins to load; a `plugins` *object* is their config.
  const metadataPlugins = svc.metadata().instance().plugins;
  state.plugins = await loadPlugins({
    pluginsDir: svc.options.plugins_dir ?? null,
    specifiers: svc.options.plugins ?? [],
    metadataPlugins: Array.isArray(metadataPlugins) ? metadataPlugins : [],
  }, svc.pm);
  state.pluginModuleUrls = state.plugins.map((plugin) => plugin.url);

  for (const permission of CORE_PERMISSIONS) svc.permissionRegistry.register(permission);
  for (const list of await svc.hooks.call("register_permissions", {})) {
    for (const permission of list) svc.permissionRegistry.register(permission);
  }
  for (const list of await svc.hooks.call("register_actions", {})) {
    for (const action of list) svc.permissionRegistry.register(action);
  }
  for (const list of await svc.hooks.call("register_events", {})) {
    for (const eventClass of list) svc.eventClasses.add(eventClass);
  }
  for (const list of await svc.hooks.call("register_column_types", {})) {
    for (const type of list) svc.columnTypes.register(type);
  }
  for (const answer of await svc.hooks.call("register_token_handler", {})) {
    svc.tokenHandlers.push(...(Array.isArray(answer) ? answer : [answer]));
  }

  for (const dir of svc.pm.templateDirs()) svc.templates.addPluginTemplateDir(dir);
  await svc.hooks.call("prepare_jinja2_environment", { env: svc.templates.env });

  state.router = new Router();
  addBuiltinRoutes(state.router, svc);
  const pluginRoutes = await svc.hooks.call("register_routes", {});
  addPluginRoutes(state.router, pluginRoutes.flat());

  state.renderers = collectRenderers(await svc.hooks.call("register_output_renderer", {}));
  state.facetClasses = (await svc.hooks.call("register_facet_classes", {})).flat();
  state.magicParameters = collectMagicParameters(
    await svc.hooks.call("register_magic_parameters", {}),
  );
  state.wrappers = await svc.hooks.call("asgi_wrapper", {});

  // The registry resolves each answer, so a rejected promise is caught with its plugin's name.
  await svc.hooks.call("startup", {}, { onError: startupFailed });
}

/** A `startup` failure as an error whose message names the plugin (a bare Error rarely does). */
function startupFailed(error: unknown, plugin: PluginInfo): never {
  const message = error instanceof Error ? error.message : String(error);
  throw new PluginError(plugin.name, `Plugin "${plugin.name}" failed in startup: ${message}`, {
    cause: error,
  });
}
