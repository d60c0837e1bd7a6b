/**
 * What `vitrine serve`'s flags, configuration files and metadata make of the service's options
 * (`serviceOptionsFrom`), with the checks of each flag; `serve.ts` runs the service.
 *
 * @module
 */

import type { ServiceOptions } from "../service.ts";
import { loadConfiguration } from "../config/config_file.ts";
import { isConfigDir, loadConfigDir } from "../config/config_dir.ts";
import { parseSettings, parseSettingValue } from "../config/settings.ts";
import { Connection } from "../sqlite/connection.ts";
import { isDirectory, isFile } from "../util/files.ts";
import { isPostgresUrl, parsePgTarget } from "../db/postgres_url.ts";
import { splitJoined } from "./argv.ts";
import { CliExit } from "./exit.ts";
import { looksLikeSqlite } from "./sqlite_file.ts";
import { createMissingDatabases } from "./listen_options.ts";
import { installedSpecifiers } from "./plugins_file.ts";

/** The options commander parses for `serve`. */
export interface ServeFlags {
  immutable: string[];
  /** `--postgres [NAME=]URL`, repeatable (also given as positional URLs). */
  postgres?: string[];
  /** `--schema NAME[,NAME…]`, repeatable: PostgreSQL schemas to serve. */
  schema?: string[];
  host: string;
  port: string;
  /** `-m` files, merged in order (a later file wins). */
  metadata?: string[];
  /** `-c` files, merged in order after the `-m` files (config_file.ts). */
  config?: string[];
  templateDir?: string;
  pluginsDir?: string;
  plugin: string[];
  static: string[];
  memory?: boolean;
  crossdb?: boolean;
  internal?: string;
  setting: string[];
  secret?: string;
  root?: boolean;
  defaultDeny?: boolean;
  cors?: boolean;
  trustProxy?: boolean;
  nolock?: boolean;
  loadExtension: string[];
  inspectFile?: string;
  get?: string;
  /** `--query SQL`: print its result and exit (cli/query.ts), with `--format` and `--param`s. */
  query?: string;
  format?: string;
  param?: string[];
  versionNote?: string;
  /** False with `--no-access-log` (commander's default is true). */
  accessLog?: boolean;
  /** `--processes N`: N servers on one port (processes.ts). */
  processes?: string;
  /** `--reuse-port`: share the port with other processes (SO_REUSEPORT). */
  reusePort?: boolean;
  /** `--into NAME|FILE.db`: where served CSV/JSON files are imported (data_files.ts). */
  into?: string;
  /** `--library DIR`: a folder watched for databases and data files (library.ts). */
  library?: string;
  /** `--uds PATH`: listen on a Unix socket instead of host and port (listen_options.ts). */
  uds?: string;
  /** `--ssl-keyfile`/`--ssl-certfile`: serve HTTPS with this PEM key and certificate. */
  sslKeyfile?: string;
  sslCertfile?: string;
  /** `--reload`: restart when metadata, templates, plugins or immutable files change. */
  reload?: boolean;
  /** `--create`: create database files that do not exist. */
  create?: boolean;
  /** `--headers`, `--token`, `--actor`: what `--get` prints and sends (get_request.ts). */
  headers?: boolean;
  token?: string;
  actor?: string;
}

/**
 * Each file once. Given twice it would be served twice (`data` and `data_2`); given plain and
 * with `-i`, once writable and once as immutable, whose caches trust the file never to change,
 * so writes through the one would leave the other's pages stale. A file named both ways is
 * served as immutable, with a warning.
 */
export function distinctFiles(
  files: string[],
  immutables: string[],
): { files: string[]; immutables: string[] } {
  const keyOf = (file: string) => {
    try {
      return Deno.realPathSync(file);
    } catch {
      return file;
    }
  };
  const immutableKeys = new Set(immutables.map(keyOf));
  const seen = new Set<string>();
  const once = (list: string[]) =>
    list.filter((file) => {
      const key = keyOf(file);
      if (!seen.has(key)) {
        seen.add(key);
        return true;
      }
      const how = immutableKeys.has(key) ? "as immutable" : "writable";
      console.error(`Warning: ${file} is given more than once; it is served once, ${how}`);
      return false;
    });
  const kept = once(immutables);
  return { files: once(files), immutables: kept };
}

/** Turns CLI flags into the Service's options, validating as it goes. */
export async function serviceOptionsFrom(
  files: string[],
  flags: ServeFlags,
): Promise<ServiceOptions> {
  let options: ServiceOptions = {};
  if (files.length === 1 && await isConfigDir(files[0])) {
    const dir = await loadConfigDir(files[0]);
    options = {
      ...dir,
      metadata: dir.metadata ?? undefined,
      static_mounts: dir.static_mounts.map(({ mount, dir }) => [mount, dir]),
    };
    files = [];
  }
  const metadata = flags.metadata?.length || flags.config?.length
    ? (await loadConfiguration(flags.metadata ?? [], flags.config ?? []))!
    : options.metadata;
  // Settings: a configuration directory's settings.json, then a `settings:` block of the
  // metadata (where Datasette 1.0's datasette.yaml keeps them), then `-s`, each over the last.
  const settings: Record<string, unknown> = { ...(options.settings ?? {}) };
  Object.assign(settings, metadataSettings(metadata?.settings));
  // `-s` first among the checks below: `-s NAME` missing its value swallows the next argument,
  // and the clearest message names the setting rather than a "file" that is an option's value.
  for (const joined of flags.setting) {
    const [name, value] = splitJoined(joined);
    if (value === undefined || /^--[a-z]/.test(value)) {
      throw new CliExit(1, `Error: --setting ${name} needs a value, e.g. --setting ${name} VALUE`);
    }
    try {
      settings[name] = parseSettingValue(name, value);
    } catch (error) {
      throw new CliExit(1, `Error: ${error instanceof Error ? error.message : error}`);
    }
  }
  const postgres = [...files.filter(isPostgresUrl), ...(flags.postgres ?? [])];
  files = files.filter((file) => !isPostgresUrl(file));
  for (const url of postgres) {
    try {
      parsePgTarget(url);
    } catch (error) {
      throw new CliExit(1, `Error: ${error instanceof Error ? error.message : error}`);
    }
  }
  if (flags.create) createMissingDatabases(files);
  for (const file of [...files, ...flags.immutable]) {
    if (!isFile(file)) {
      // `vitrine foo` with no file foo is often a command that is not installed.
      const hint = /^[\w-]+$/.test(file) && !file.includes(".")
        ? ` (nor is there a command "${file}": plugin commands need the plugin installed ` +
          "through VITRINE_PLUGINS, --plugin or the metadata plugins list)"
        : "";
      throw new CliExit(1, `Error: database file not found: ${file}${hint}`);
    }
    if (!looksLikeSqlite(file)) {
      // A CSV or spreadsheet would otherwise start a server that fails on every page.
      throw new CliExit(
        1,
        `Error: ${file} is not a SQLite database (it does not start with the SQLite file ` +
          "header). CSV, TSV, JSON and NDJSON files are served when their names end in .csv, " +
          `.tsv, .json or .ndjson; or import one with: vitrine insert data.db mytable ${file}`,
      );
    }
  }
  const folders = { "--template-dir": flags.templateDir, "--plugins-dir": flags.pluginsDir };
  for (const [flag, dir] of Object.entries(folders)) {
    if (dir !== undefined && !isDirectory(dir)) {
      throw new CliExit(1, `Error: ${flag} directory not found: ${dir}`);
    }
  }
  const static_mounts = (options.static_mounts ?? []).concat(flags.static.map(parseMount));
  const databases = distinctFiles(
    [...(options.files ?? []), ...files],
    [...(options.immutables ?? []), ...flags.immutable],
  );
  return {
    ...options,
    ...databases,
    postgres,
    postgres_schemas: (flags.schema ?? []).flatMap((s) => s.split(",")).map((s) => s.trim())
      .filter(Boolean),
    metadata,
    template_dir: flags.templateDir ?? options.template_dir ?? null,
    plugins_dir: flags.pluginsDir ?? options.plugins_dir ?? null,
    plugins: [...(options.plugins ?? []), ...flags.plugin, ...installedSpecifiers()],
    static_mounts,
    memory: flags.memory,
    crossdb: flags.crossdb,
    internal: flags.internal ?? null,
    settings,
    secret: flags.secret,
    root: flags.root,
    default_deny: flags.defaultDeny,
    cors: flags.cors,
    trust_proxy: flags.trustProxy,
    nolock: flags.nolock,
    load_extensions: checkExtensions(
      flags.loadExtension.length
        ? flags.loadExtension
        : (Deno.env.get("VITRINE_LOAD_EXTENSION")?.split(",").filter(Boolean) ?? []),
    ),
    inspect_data: flags.inspectFile
      ? await readInspectFile(flags.inspectFile)
      : options.inspect_data ?? null,
    version_note: flags.versionNote ?? null,
  };
}

/** The `settings:` block of a metadata file, each value checked like `-s` checks its own. */
function metadataSettings(block: unknown): Record<string, unknown> {
  if (block === undefined || block === null) return {};
  if (typeof block !== "object" || Array.isArray(block)) {
    throw new CliExit(1, 'Error: "settings" in the metadata must be a mapping of setting names');
  }
  try {
    return parseSettings(block as Record<string, unknown>, "metadata settings");
  } catch (error) {
    throw new CliExit(1, `Error: ${error instanceof Error ? error.message : error}`);
  }
}

/** `--port` must be a port number: "abc" would otherwise reach the listener as NaN. */
export function checkPort(port: string): void {
  if (!/^\d+$/.test(port) || Number(port) > 65535) {
    throw new CliExit(1, `Error: --port takes a number from 0 to 65535, not "${port}"`);
  }
}

/**
 * Loads each `path[:entrypoint]` into a scratch connection first: an extension that cannot load
 * would otherwise start a server that fails every page with the same error.
 */
function checkExtensions(extensions: string[]): string[] {
  for (const extension of extensions) {
    const [file, entry] = extension.split(":");
    // SQLite also tries the name with the platform's suffix (`x` → `x.so`) and reports only
    // that second attempt, so a missing file is named here instead.
    const suffix = Deno.build.os === "windows"
      ? ".dll"
      : Deno.build.os === "darwin"
      ? ".dylib"
      : ".so";
    if (!isFile(file) && !isFile(file + suffix)) {
      throw new CliExit(1, `Error: SQLite extension not found: ${file}`);
    }
    const conn = Connection.open(":memory:");
    try {
      conn.loadExtension(file, entry);
    } catch (error) {
      throw new CliExit(1, `Error: ${error instanceof Error ? error.message : error}`);
    } finally {
      conn.close();
    }
  }
  return extensions;
}

/** The counts and hashes written by `vitrine inspect`; a clear error when unreadable. */
async function readInspectFile(path: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    const reason = error instanceof Deno.errors.NotFound ? "file not found" : String(error);
    throw new CliExit(1, `Error: cannot read --inspect-file ${path}: ${reason}`);
  }
  try {
    const data = JSON.parse(text);
    if (data && typeof data === "object" && !Array.isArray(data)) return data;
  } catch {
    // reported below
  }
  throw new CliExit(
    1,
    `Error: --inspect-file ${path} is not the JSON object that \`vitrine inspect\` writes`,
  );
}

function parseMount(value: string): [string, string] {
  const colon = value.indexOf(":");
  if (colon < 1) throw new CliExit(1, `Error: --static expects mount:directory, got "${value}"`);
  const [mount, dir] = [value.slice(0, colon), value.slice(colon + 1)];
  if (!isDirectory(dir)) throw new CliExit(1, `Error: --static directory not found: ${dir}`);
  return [mount, dir];
}
