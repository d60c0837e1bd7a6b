/** `vitrine serve FILES…` (the default command): options → Service → Deno.serve. */
import { unmatchedConfigNames } from "./config_names.ts";
import type { Command } from "commander";
import { fileURLToPath } from "node:url";
import { Service, type ServiceOptions } from "../service.ts";
import { isConfigDir } from "../config/config_dir.ts";
import { collect } from "./argv.ts";
import { CliExit } from "./exit.ts";
import { QUERY_FORMATS, runQueryCommand } from "./query.ts";
import { dropDefaultMemory, importDataFiles, isDataFile } from "./data_files.ts";
import { Library } from "./library.ts";
import { checkGetOnlyOptions, printPath } from "./get_request.ts";
import { runWithReload } from "./reload.ts";
import {
  METRICS_DIR_ENV,
  PROCESS_ENV,
  processCount,
  supervise,
  SUPERVISOR_ENV,
} from "./processes.ts";
import { isDirectory } from "../util/files.ts";
import { isPostgresUrl } from "../db/postgres_url.ts";
import { returnFreedMemoryNow, returnFreedMemorySooner } from "../util/malloc_tuning.ts";
import { shrinkHeap } from "../util/young_garbage.ts";
import { staticVersion } from "../render/static_version.ts";
import { checkPort, type ServeFlags, serviceOptionsFrom } from "./serve_options.ts";
import { checkPostgres, listen } from "./serve_listen.ts";
import { stopOnSignals, stopWithSupervisor } from "./serve_stop.ts";
import { warmReadWorkers } from "./warm_workers.ts";

export { distinctFiles, type ServeFlags, serviceOptionsFrom } from "./serve_options.ts";

/**
 * Adds the default `serve` command to `program`; `args` are the command line's own arguments
 * (`--processes` starts copies of the command with them).
 */
export function addServeCommand(program: Command, args: readonly string[]): void {
  program.command("serve", { isDefault: true })
    .description("Serve SQLite database files (the default command)")
    .argument(
      "[files...]",
      "database files, CSV/TSV/JSON/NDJSON files to serve (or one configuration directory)",
    )
    .option("-i, --immutable <file>", "database file to serve as immutable", collect, [])
    .option(
      "--postgres <[name=]url>",
      "a PostgreSQL database to serve (postgres://user@host:port/db)",
      collect,
      [],
    )
    .option("--schema <names>", "PostgreSQL schemas to serve (default public)", collect, [])
    .option("-h, --host <host>", "host to listen on (0.0.0.0 for every interface)", "127.0.0.1")
    .option("-p, --port <port>", "port to listen on (0 picks a free one)", "8001")
    .option(
      "-m, --metadata <file>",
      "metadata file: titles, descriptions, licences (JSON or YAML); repeatable, later wins",
      collect,
      [],
    )
    .option(
      "-c, --config <file>",
      "configuration file: settings, permissions, queries, plugins (JSON/YAML); repeatable",
      collect,
      [],
    )
    .option("--template-dir <dir>", "directory of templates that override the defaults")
    .option("--plugins-dir <dir>", "directory of plugin modules (.ts/.js/.mjs)")
    .option(
      "--plugin <specifier>",
      "plugin module or folder: path, http(s) URL, npm: or jsr: spec",
      collect,
      [],
    )
    .option("--static <mount:dir>", "serve a directory of static files at /mount/", collect, [])
    .option("--memory", "attach an in-memory database named _memory")
    .option("--crossdb", "allow cross-database queries from /_memory")
    .option("--internal <file>", "keep the internal database in this file")
    .option("-s, --setting <name value>", "a setting, e.g. -s default_page_size 50", collect, [])
    .option("--secret <secret>", "secret for signed cookies and tokens (or VITRINE_SECRET)")
    .option("--root", "print a one-time URL that signs you in as the root actor")
    .option(
      "--default-deny",
      "deny everything to everyone until configuration, plugins or --root grant it",
    )
    .option("--cors", "send CORS headers so other sites can read the JSON API")
    .option(
      "--trust-proxy",
      "behind a reverse proxy: take scheme and host from X-Forwarded-Proto/X-Forwarded-Host",
    )
    .option("--nolock", "open read-only files with nolock=1")
    .option("--load-extension <path>", "SQLite extension to load (path[:entrypoint])", collect, [])
    .option("--inspect-file <file>", "counts from `vitrine inspect`, for immutable files")
    .option("--get <path>", "print the response to this path and exit, without serving")
    .option("--headers", "--get prints the status line and the response headers too")
    .option("--token <token>", "API token sent with the --get request (Bearer)")
    .option("--actor <json>", "actor the --get request is made as, a JSON object")
    .option("--query <sql>", "print the result of this query and exit, without serving")
    .option("--format <format>", `--query output: ${QUERY_FORMATS.join(", ")}`)
    .option("--param <name=value>", "a --query parameter (also -p name=value)", collect, [])
    .option("--version-note <note>", "note shown next to the version on /-/versions")
    .option("--no-access-log", "do not print a line for each request")
    .option(
      "--processes <n>",
      'serve from N processes on one port, e.g. one per core ("auto"); Linux',
    )
    .option("--reuse-port", "share the port with other processes listening so (Linux)")
    .option("--into <name>", "import CSV/JSON files into one database NAME, or a file NAME.db")
    .option("--library <dir>", "serve a folder's databases and data files, following its changes")
    .option("--uds <path>", "listen on this Unix domain socket instead of host and port")
    .option("--ssl-keyfile <file>", "PEM private key: serve HTTPS (with --ssl-certfile)")
    .option("--ssl-certfile <file>", "PEM certificate: serve HTTPS (with --ssl-keyfile)")
    .option("--create", "create database files that do not exist yet")
    .option(
      "--reload",
      "development: restart on changes to metadata, templates, plugins and immutable files",
    )
    .action(async (files: string[], flags: ServeFlags) => {
      checkPort(flags.port);
      checkGetOnlyOptions(flags.get, {
        headers: flags.headers,
        token: flags.token,
        actor: flags.actor,
      });
      // A configuration directory is a data library: its data files are the library's to serve.
      const configDir = files.length === 1 && await isConfigDir(files[0]) ? files[0] : null;
      const libraryDir = flags.library ?? configDir;
      if (libraryDir !== null && !isDirectory(libraryDir)) {
        throw new CliExit(1, `Error: --library directory not found: ${libraryDir}`);
      }
      const dataFiles = configDir ? [] : files.filter((f) => isDataFile(f) && !isPostgresUrl(f));
      const options = await serviceOptionsFrom(files.filter((f) => !isDataFile(f)), flags);
      const processes = processCount(flags.processes);
      if (flags.query !== undefined) return await queryAndExit(options, flags);
      if (processes > 1 && flags.uds !== undefined) {
        throw new CliExit(1, "Error: --processes shares a TCP port; it cannot serve on --uds");
      }
      if (flags.reload && !flags.get) {
        if (processes > 1) {
          throw new CliExit(1, "Error: --reload runs one process, not --processes");
        }
        const watch = reloadWatchList(options, flags, [
          ...dataFiles,
          ...(configDir ? [configDir] : []),
        ]);
        const code = await runWithReload({
          args,
          watch,
          host: flags.host,
          port: Number(flags.port),
          uds: flags.uds,
        });
        if (code !== 0) throw new CliExit(code);
        return;
      }
      if (processes > 1 && !flags.get) {
        const code = await supervise({
          args,
          count: processes,
          host: flags.host,
          port: Number(flags.port),
        });
        if (code !== 0) throw new CliExit(code);
        return;
      }
      const imported = await importDataFiles(dataFiles, flags.into);
      options.immutables = [...(options.immutables ?? []), ...imported.immutables];
      // Before the read workers start, so that their threads follow the same rules.
      if (!flags.get) returnFreedMemorySooner();
      const svc = new Service(options);
      const keepMemory = Boolean(flags.memory || flags.crossdb);
      await imported.attach(svc, keepMemory);
      const library = libraryDir === null ? null : new Library(svc, libraryDir, {
        // A configuration directory with inspect-data.json serves its files as immutable.
        immutable: configDir !== null && Boolean(options.inspect_data),
      });
      if (library) {
        if (!keepMemory) dropDefaultMemory(svc);
        try {
          await library.scan();
        } catch (error) {
          await svc.close();
          throw new CliExit(1, `Error: ${error instanceof Error ? error.message : error}`);
        }
      }
      await checkPostgres(svc);
      if (flags.get) {
        try {
          await svc.invoke_startup();
        } catch (error) {
          await svc.close();
          throw new CliExit(1, `Error: ${error instanceof Error ? error.message : error}`);
        }
        return await printPath(svc, flags.get, flags);
      }
      // Each immutable file's SHA-256 keys its pages' tags and cached answers: computed before
      // serving, not in the first request that needs one, which it held for as long as reading
      // the whole file takes (5 s for 625 MB from the disk), past its time limit: it failed.
      // `--inspect-file` gives hashes without reading the files.
      for (const db of svc.databases.values()) void db.hash;
      // The read workers too, ready before the first request: each takes the main thread for
      // 45–90 ms to create, and longer to boot (db/pool.ts). After the plugins are loaded: the
      // workers import them (their `prepare_connection` functions), and a pool made before would
      // have none. A boot that fails is left to answer each request, as it would without this.
      await svc.ready().then(() => svc.readPool().prestart(), () => {});
      await warmReadWorkers(svc);
      // And the page templates: compiled by the first page of each kind, they held it too. The
      // pages a visitor meets first are also run once, and the static files' version stamp
      // (a hash of every file, 2–6 ms) made: the first page no longer pays for either.
      svc.templates.precompile(PAGE_TEMPLATES);
      svc.templates.warm(["table.html", "database.html", "index.html", "row.html", "query.html"]);
      staticVersion();
      // A data library's databases come and go: a name it lacks now may be there soon.
      if (!library) { for (const line of await unmatchedConfigNames(svc)) console.error(line); }
      const server = await listen(svc, flags);
      library?.watch();
      // First, as "serving on" is printed: a Ctrl+C from now on must drain, not kill.
      const stop = stopOnSignals(svc, server);
      // What starting took and freed goes back to the system. V8's heap first: loading and
      // compiling the program leaves garbage that V8 would keep committed for the server's whole
      // life (from source, 87–91 MB before the load benchmark's exports instead of 94).
      shrinkHeap();
      // Then glibc's: the first run of a file Deno has not seen parses all of it to list its
      // imports, and a new 2.5 MB bundle then kept 25 MB more for the server's whole life
      // (131–133 MB after its first pages instead of 107–109).
      returnFreedMemoryNow();
      // One copy of several (--processes): /-/metrics answers for every copy.
      const [copy, count] = (Deno.env.get(PROCESS_ENV) ?? "").split("/").map(Number);
      const metricsDir = Deno.env.get(METRICS_DIR_ENV);
      const supervisor = Number(Deno.env.get(SUPERVISOR_ENV));
      if (supervisor > 0) stopWithSupervisor(supervisor, stop, metricsDir ?? null);
      if (copy > 0 && count >= copy && metricsDir) svc.metrics.shareWith(metricsDir, copy, count);
      await server.finished;
    });
}

/** The templates of the pages a visitor meets first, with what they extend and include. */
const PAGE_TEMPLATES = [
  "base.html",
  "index.html",
  "database.html",
  "table.html",
  "row.html",
  "query.html",
  "error.html",
  ...[
    "action_menu",
    "crumbs",
    "database_contents",
    "database_sql_form",
    "database_summary",
    "definitions",
    "description_source_license",
    "error_message",
    "export_menu",
    "facets",
    "filters",
    "footer",
    "foreign_key_tables",
    "format_links",
    "hidden_columns",
    "messages",
    "nav_menu",
    "pagination",
    "private_badge",
    "query_error",
    "query_results",
    "rows_toolbar",
    "sql_form",
    "table",
    "table_summary",
  ].map((name) => `_${name}.html`),
];

/** `--query`: runs it on a service that is started but not serving, prints it, closes. */
async function queryAndExit(options: ServiceOptions, flags: ServeFlags): Promise<void> {
  const svc = new Service(options);
  try {
    await svc.invoke_startup();
    await runQueryCommand(svc, {
      sql: flags.query!,
      format: flags.format,
      params: flags.param ?? [],
    });
  } catch (error) {
    if (error instanceof CliExit) throw error;
    throw new CliExit(1, `Error: ${error instanceof Error ? error.message : error}`);
  } finally {
    await svc.close();
  }
}

/**
 * What `--reload` watches: metadata files, templates, plugins given as local paths, immutable
 * files and `extra` (data files, the configuration directory).
 */
function reloadWatchList(options: ServiceOptions, flags: ServeFlags, extra: string[]): string[] {
  const localPlugins = (options.plugins ?? []).flatMap((spec) => {
    if (spec.startsWith("file:")) return [fileURLToPath(spec)];
    return /^[a-z][a-z0-9+.-]*:/i.test(spec) ? [] : [spec];
  });
  return [
    ...(flags.metadata ?? []),
    ...(flags.config ?? []),
    ...(options.template_dir ? [options.template_dir] : []),
    ...(options.plugins_dir ? [options.plugins_dir] : []),
    ...localPlugins,
    ...(options.immutables ?? []),
    ...extra,
  ];
}
