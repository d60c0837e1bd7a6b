/**
 * Entry of the service's read workers: the data layer's worker loop, with plugin modules loaded
 * through the same registry as the main thread, so `hookimpl` options (`specname`, `tryfirst`,
 * `trylast`) and the call order of `prepare_connection` hold in every worker.
 *
 * @module
 */
import { serveReads } from "../db/worker.ts";
import { PluginRegistry } from "../plugins/registry.ts";
import { registerPluginUrls } from "../plugins/loader.ts";

serveReads(async (urls) => {
  const registry = new PluginRegistry();
  await registerPluginUrls(urls, registry);
  // `svc` lives on the main thread; worker-side implementations receive null.
  return (conn, database) => registry.callSync("prepare_connection", { conn, database, svc: null });
});
