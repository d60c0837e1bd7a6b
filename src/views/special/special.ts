/**
 * Introspection pages under `/-/`: versions, plugins, settings, config, threads, databases,
 * metadata and actor — each as JSON or as a small HTML page showing the same data.
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import { compileOptions, sqliteVersion } from "../../db/values.ts";
import { VERSION } from "../../version.ts";
import { respondWithFormat } from "../../render/output_format.ts";
import { renderPage } from "../../render/render_page.ts";
import { visibleDatabases } from "../visible_databases.ts";
import { visibleMetadata } from "../../auth/visible_metadata.ts";
import { configurationOf, redactSecrets } from "../../config/config_file.ts";

type View = (svc: ViewHost, request: Request) => Promise<Response>;

/**
 * A view that shows `data` as JSON or on the `show_json.html` page. An object's JSON leads with
 * `"ok": true`, as 1.0's does (a list, such as `/-/plugins.json`, stays a bare list).
 */
function jsonPage(
  title: string,
  data: (svc: ViewHost, request: Request) => unknown | Promise<unknown>,
  // Every page of the instance needs `view-instance`, these included.
  permission: string | null = "view-instance",
): View {
  return async (svc, request) => {
    if (permission) await svc.ensure_permissions(request.actor, [permission]);
    const value = await data(svc, request);
    return await respondWithFormat(request, {
      json: () => Response.json(isPlainObject(value) ? { ok: true, ...value } : value),
      html: () =>
        renderPage(svc, request, "show_json.html", {
          filename: title,
          data: value,
          data_json: JSON.stringify(value, replacer, 4),
        }, { view_name: "show_json" }),
    });
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function replacer(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? Number(value) : value;
}

/** `/-/versions`: Vitrine, Deno, V8, TypeScript and SQLite versions. */
export const versionsView = jsonPage("versions", (svc) => versionsData(svc));

/** The data of `/-/versions.json`. */
function versionsData(svc: ViewHost): Record<string, unknown> {
  const options = compileOptions();
  const fts = ["FTS5", "FTS4", "FTS3"].filter((name) =>
    options.includes(`ENABLE_${name}`) || (name === "FTS4" && options.includes("ENABLE_FTS3"))
  );
  const vitrine: Record<string, unknown> = { version: VERSION };
  if (svc.options.version_note) vitrine.note = svc.options.version_note;
  return {
    deno: { version: Deno.version.deno, v8: Deno.version.v8, typescript: Deno.version.typescript },
    vitrine,
    sqlite: {
      version: sqliteVersion(),
      fts_versions: fts,
      extensions: { json1: true },
      compile_options: options,
    },
  };
}

/** `/-/plugins`: installed plugins (`?all=1` adds the built-in defaults). */
export const pluginsView = jsonPage("plugins", (svc, request) => {
  const all = ["1", "on", "true"].includes(String(request.args.get("all") ?? ""));
  return svc.registered.pluginListing({ includeBuiltin: all });
});

/** `/-/settings`: every setting and its current value. */
export const settingsView = jsonPage("settings", (svc) => svc.settings.toJSON());

/**
 * `/-/config`: the configuration in effect, secrets redacted: every setting's value, then what
 * the `-c`/`-m` files configure (permissions, plugins, canned queries, table options), without
 * the describing metadata, which `/-/metadata` shows.
 */
export const configView = jsonPage("config", async (svc, request) => {
  const visible = await visibleMetadata(svc, request.actor, svc.metadata().data);
  // The files' `settings:` block gives way to the values in effect (`-s` included).
  return redactSecrets({ ...configurationOf(visible), settings: svc.settings.toJSON() });
});

/** `/-/metadata`: the merged metadata. */
export const metadataView = jsonPage(
  "metadata",
  async (svc, request) =>
    redactSecrets(await visibleMetadata(svc, request.actor, svc.metadata().data)),
);

/** `/-/threads`: the read workers and how busy they are (needs `permissions-debug`). */
export const threadsView = jsonPage("threads", (svc) => {
  const threads = svc.readPool().threads();
  return { num_threads: threads.length, threads };
}, "permissions-debug");

/**
 * `/-/databases`: every attached database the actor may see, as 1.0's `{"databases": [...]}`
 * (a bare list before 1.0).
 */
export const databasesView = jsonPage("databases", async (svc, request) => {
  const list = [];
  for (const { db } of await visibleDatabases(svc, request.actor)) {
    list.push({
      name: db.name,
      route: db.route,
      path: db.path,
      size: db.size,
      is_mutable: db.is_mutable,
      is_memory: db.is_memory,
      hash: db.hash,
    });
  }
  return { databases: list };
});

/** `/-/actor`: the current actor, or null. */
// Exempt from view-instance: who you are signed in as is yours to see, and helps debug a 403.
export const actorView = jsonPage(
  "actor",
  (_svc, request) => ({ actor: request.actor ?? null }),
  null,
);
