/**
 * The `svc` façade: the spec's "Service instance operations". It is the composition root: it
 * builds the settings, metadata, plugin registry, templates, signer, permission engine, databases
 * and the request pipeline (`src/app/`), and delegates every operation to one of them.
 *
 * Layers below never import this class: each declares the slice of `svc` it uses as an
 * interface (`db/host.ts`, `render/host.ts`, `views/host.ts`, `app/host.ts`) and `Service`
 * implements them all.
 *
 * @module
 */
import { Settings } from "./config/settings.ts";
import { Metadata } from "./config/metadata.ts";
import { ServedMetadata } from "./config/served_metadata.ts";
import type { MetadataEdits } from "./db/metadata_edits.ts";
import type { WriteHistory } from "./db/history/history.ts";
import type { HistoryMode } from "./db/history/store.ts";
import { Database } from "./db/database.ts";
import type { DatabaseEngine } from "./db/engine.ts";
import { QueryCache } from "./db/query_cache.ts";
import { PageCache } from "./app/page_cache.ts";
import { ReadPool } from "./db/pool.ts";
import { InternalStores } from "./db/internal_stores.ts";
import type { StoredQueries } from "./db/stored_queries.ts";
import type { ColumnTypeStore } from "./db/column_type_store.ts";
import { attachInitialDatabases, checkDatabaseFiles } from "./app/initial_databases.ts";
import type { Connection } from "./sqlite/mod.ts";
import { setHardHeapLimit } from "./sqlite/guard.ts";
import { PluginRegistry } from "./plugins/registry.ts";
import { Event, type EventClass } from "./plugins/events.ts";
import { ColumnTypeRegistry } from "./plugins/column_types.ts";
import type { TokenHandler } from "./plugins/hookspecs.ts";
import { HookCaller } from "./plugins/hooks.ts";
import { TemplateEnvironment } from "./render/environment.ts";
import { instanceSecret, Signer } from "./auth/signer.ts";
import { RootToken } from "./auth/root.ts";
import type { Actor } from "./auth/allow.ts";
import { type Permission, PermissionRegistry } from "./auth/permission_registry.ts";
import { PermissionChecker } from "./auth/permission_checker.ts";
import { AnonymousAnswersKey } from "./auth/answers_key.ts";
import { pluginRules, sqlRules } from "./app/plugin_rules.ts";
import type { PluginRule } from "./auth/plugin_rules.ts";
import { createToken } from "./auth/tokens.ts";
import { ERROR, INFO, WARNING } from "./auth/messages.ts";
import { renderTemplateForService } from "./render/render_page.ts";
import { Urls } from "./http/urls.ts";
import { Client } from "./http/client.ts";
import type { Request } from "./http/request.ts";
import { databaseForRoute, resolveDatabase, resolveRow, resolveTable } from "./app/resolve.ts";
import { requestState } from "./http/request_state.ts";
import { createHandler, type FetchHandler } from "./app/handler.ts";
import { keyError } from "./util/key_error.ts";
import { boot, type BootState, registeredFrom } from "./app/boot.ts";
import type { Registered, ResolvedRow, ResolvedTable } from "./views/host.ts";
import { cannedQueryFor } from "./config/canned_query_catalog.ts";
import type { ServiceOptions } from "./config/service_options.ts";
import { Lifecycle } from "./app/lifecycle.ts";
import { returnFreedMemoryNow } from "./util/malloc_tuning.ts";
import { ServiceMetrics } from "./app/metrics.ts";

export type { Actor, ResolvedRow, ResolvedTable, ServiceOptions };

/** The service instance that views, hooks and plugins receive as `svc`. */
// It is the `DatabaseHost` of its databases and the `AppHost` of its pipeline; both are checked
// where it passes itself (`new Database(this, ...)`, `createHandler(this)`), not with an
// `implements` clause, which would put those internal interfaces into the public API.
export class Service {
  /** Flash message type for `add_message`: information. */
  readonly INFO: number = INFO;
  /** Flash message type for `add_message`: a warning. */
  readonly WARNING: number = WARNING;
  /** Flash message type for `add_message`: an error. */
  readonly ERROR: number = ERROR;

  /** The options the service was constructed with. */
  readonly options: ServiceOptions;
  /** The configuration directory it was started from (`vitrine serve DIR/`), or null. */
  readonly config_dir: string | null;
  /** @internal The settings table; read one with `setting(key)`. */
  readonly settings: Settings;
  /** @internal The plugin registry (which modules implement which hooks); call hooks through `hooks`. */
  readonly pm: PluginRegistry = new PluginRegistry();
  /** Calls plugin hooks, typed, with `svc` supplied: `svc.hooks.call("startup", {})`. */
  readonly hooks: HookCaller = new HookCaller(this.pm, () => this);
  /** URL builders: `svc.urls.table(database, table, { format })`, `row`, `query`, `path`... */
  readonly urls: Urls;
  /** Calls the service in-process: `await svc.client.get("/db/table.json")`. */
  readonly client: Client;
  /** @internal The template environment (loader, filters); render with `render_template`. */
  readonly templates: TemplateEnvironment;
  /** @internal Signs and checks cookies and tokens; use `sign()` / `unsign()`. */
  readonly signer: Signer;
  /** Event classes registered with `register_events`, core's included. */
  readonly eventClasses: Set<EventClass> = new Set();
  /** @internal Column types registered with `register_column_types`, core's included. */
  readonly columnTypes: ColumnTypeRegistry = new ColumnTypeRegistry();
  /** Token handlers registered with `register_token_handler`, in call order. */
  readonly tokenHandlers: TokenHandler[] = [];
  /** @internal Registered permissions. */
  readonly permissionRegistry: PermissionRegistry = new PermissionRegistry();
  /** @internal Answers permission checks; use `permission_allowed()`. */
  readonly permissionChecker: PermissionChecker;
  /** @internal The `--root` login token, when started with `--root`. */
  readonly rootToken: RootToken | null;
  /** Ordered mapping of database name to Database, regardless of permissions. */
  readonly databases: Map<string, DatabaseEngine> = new Map();
  /** @internal State filled in by the boot sequence (plugins, routes, renderers...). */
  readonly state: BootState;
  /** @internal What plugins registered at start-up, as views read it. */
  readonly registered: Registered;
  /** @internal Starting, ready or draining; requests in flight (`/-/health`). */
  readonly lifecycle: Lifecycle = new Lifecycle();
  /** @internal The counters and histograms of `/-/metrics`. */
  readonly metrics: ServiceMetrics = new ServiceMetrics(this);
  #metadata: ServedMetadata;
  #internal: InternalStores;
  #pool: ReadPool | null = null;
  #queryCache: QueryCache | null | undefined;
  #pageCache: PageCache | null | undefined;
  #booting: Promise<void> | null = null;
  #handler: FetchHandler | null = null;

  /** A service over `options.files` and the rest of {@link ServiceOptions}; nothing is read until the first request or `invoke_startup()`. */
  constructor(options: ServiceOptions = {}) {
    this.options = options;
    this.config_dir = options.config_dir ?? null;
    this.settings = new Settings(options.settings ?? {});
    // Process-wide: SQLite's heap is shared by every connection and worker of the process.
    setHardHeapLimit(Number(this.setting("sqlite_heap_limit_mb")) * 1024 * 1024);
    // A plugin whose hook never answers fails its page with a 500 instead of hanging it.
    this.pm.timeLimitMs = Number(this.setting("hook_time_limit_ms"));
    this.#internal = new InternalStores(
      this,
      options.internal ?? null,
      (database) => (this.metadata().database(database).history as HistoryMode | undefined) ?? null,
    );
    this.#metadata = new ServedMetadata(
      new Metadata(options.metadata ?? {}),
      this.hooks,
      () => this.#internal.openedMetadataEdits(),
    );
    this.signer = new Signer(instanceSecret(options.secret));
    this.rootToken = options.root ? new RootToken(this.signer) : null;
    this.urls = new Urls(() => String(this.setting("base_url")), {
      databaseRoute: (name) => this.databases.get(name)?.route ?? name,
    });
    this.templates = new TemplateEnvironment({
      templateDirs: options.template_dir ? [options.template_dir] : [],
    });
    const answersKey = new AnonymousAnswersKey(this.pm, this.permissionRegistry, this.settings);
    this.permissionChecker = new PermissionChecker({
      registry: this.permissionRegistry,
      metadata: () => this.metadata().data,
      pluginRules: (check) => pluginRules(this, check),
      defaultDeny: () => Boolean(this.options.default_deny),
      anonymousAnswersKey: () => answersKey.key(),
      rootEnabled: () => Boolean(this.options.root),
      // `allow` on canned queries supplied by the canned_queries hook counts like metadata's.
      cannedQuery: (database: string, name: string, actor: Actor | null) =>
        cannedQueryFor(this, database, name, actor),
    });
    this.state = {} as BootState;
    this.registered = registeredFrom(this.state, this.pm);
    this.client = new Client((req) => this.handler()(req), {
      baseUrl: () => String(this.setting("base_url")),
    });
    attachInitialDatabases(this, options);
  }

  // -- boot ------------------------------------------------------------------------------

  /** Loads plugins and runs start-up hooks once; every request awaits it. */
  ready(): Promise<void> {
    this.#booting ??= Promise.resolve()
      .then(() =>
        checkDatabaseFiles(this.databases.values(), {
          nolock: this.options.nolock,
          quickCheckMaxMb: Number(this.setting("startup_check_max_mb")),
        })
      )
      .then(() => boot(this))
      // After the plugins: a `get_metadata` hook may name a database's `history` too.
      .then(() => {
        for (const db of this.databases.values()) this.history.check(db);
      })
      .then(() => this.refresh_catalog())
      .then(() => this.lifecycle.markReady());
    return this.#booting;
  }

  /**
   * Brings the internal database's `catalog_*` tables up to date with the attached databases
   * (cheap when nothing changed: each database's schema version is compared first).
   */
  async refresh_catalog(): Promise<void> {
    // The catalog holds SQLite's schema (pragma rows); other engines are not listed in it.
    const databases = [...this.databases.values()].filter((db) => db instanceof Database);
    await this.#internal.refreshCatalog(databases);
  }

  /** Runs the `startup` hooks (for tests that send no requests). */
  async invoke_startup(): Promise<void> {
    await this.ready();
  }

  /** The fetch-style handler (wrapped by `asgi_wrapper` hooks once booted). */
  handler(): FetchHandler {
    this.#handler ??= createHandler(this);
    return this.#handler;
  }

  /** Closes every database connection and the read-worker pool. */
  async close(): Promise<void> {
    this.metrics.stopSharing();
    await this.#internal.settled();
    for (const db of [...this.databases.values(), ...this.#removed]) db.close();
    this.#internal.opened()?.close();
    await this.#pool?.close();
    this.#pool = null;
  }

  /** `await using svc = new Service(…)` closes the service when the block ends. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  // -- DatabaseHost ----------------------------------------------------------------------

  /** Configured setting value (string, boolean or integer). */
  setting(key: string): unknown {
    return this.settings.get(key);
  }

  /** @internal The read-worker pool every database of this service shares. */
  readPool(): ReadPool {
    this.#pool ??= new ReadPool({
      size: Number(this.setting("num_sql_threads")),
      spare: Number(this.setting("spare_sql_threads")),
      pluginModules: this.pluginModules(),
      extensions: this.options.load_extensions ?? [],
      cacheSizeKb: Number(this.setting("cache_size_kb")),
      workerUrl: new URL("./app/read_worker.ts", import.meta.url),
      onIdle: () => this.#releaseMemory(),
    });
    return this.#pool;
  }

  /**
   * The read pool has been idle a while and its last worker gave back its memory: the main
   * thread's connections do the same, then glibc returns every arena's freed blocks.
   */
  #releaseMemory(): void {
    for (const db of this.databases.values()) db.releaseMemory();
    this.#internal.opened()?.releaseMemory();
    returnFreedMemoryNow();
  }

  /** @internal The query cache of immutable databases (`query_cache_mb`; null when 0). */
  queryCache(): QueryCache | null {
    if (this.#queryCache === undefined) {
      const mb = Number(this.setting("query_cache_mb"));
      this.#queryCache = mb > 0 ? new QueryCache(mb * 1024 * 1024) : null;
    }
    return this.#queryCache;
  }

  /**
   * @internal Finished pages kept by ETag (`page_cache_mb`); null when 0, and while plugins
   * other than Vitrine's own are loaded (app/page_cache.ts says why).
   */
  pageCache(): PageCache | null {
    if (this.#pageCache === undefined) {
      const mb = Number(this.setting("page_cache_mb"));
      this.#pageCache = mb > 0 ? new PageCache(mb * 1024 * 1024) : null;
    }
    return this.pm.hasOthers ? null : this.#pageCache;
  }

  /** @internal Records a read query's or write task's time for `/-/metrics`. */
  observeSql(database: string, kind: "read" | "write", seconds: number): void {
    this.metrics.observeSql(database, kind, seconds);
  }

  /** @internal Records a write's wait for another process's lock, for `/-/metrics`. */
  observeLockWait(database: string, seconds: number): void {
    this.metrics.observeLockWait(database, seconds);
  }

  /** @internal Resolves once every database's queued and running writes are done. */
  async drainWrites(): Promise<void> {
    const databases = [...this.databases.values()];
    const internal = this.#internal.opened();
    if (internal) databases.push(internal);
    await Promise.all(databases.map((db) => db.drainWrites()));
  }

  /** @internal Extensions and `prepare_connection` hooks on a new main-thread connection. */
  prepareConnection(conn: Connection, database: string): void {
    for (const path of this.options.load_extensions ?? []) {
      const [file, entry] = path.split(":");
      conn.loadExtension(file, entry);
    }
    this.hooks.callSync("prepare_connection", { conn, database });
  }

  /** @internal A table's metadata (`label_column`, `hidden`, ...), `{}` when there is none. */
  tableConfig(database: string, table: string): Record<string, unknown> {
    return this.metadata().table(database, table) ?? {};
  }

  /** @internal Module URLs of the loaded plugins, which read workers import. */
  pluginModules(): string[] {
    return this.state.pluginModuleUrls ?? [];
  }

  // -- metadata and configuration --------------------------------------------------------

  /** Metadata merged from `get_metadata` hooks, with the local metadata winning. */
  metadata(): Metadata {
    return this.#metadata.current();
  }

  /** Plugin configuration from metadata; `null` when not configured. */
  plugin_config<T = Record<string, unknown>>(
    plugin_name: string,
    { database = null, table = null }: { database?: string | null; table?: string | null } = {},
  ): T | null {
    return this.metadata().plugin_config(plugin_name, { database, table }) as T | null;
  }

  // -- databases -------------------------------------------------------------------------

  /** The named database, or the first one; KeyError when missing. */
  get_database(name?: string | null): DatabaseEngine {
    if (name === undefined || name === null) {
      for (const db of this.databases.values()) {
        if (db.name !== "_internal") return db;
      }
      throw keyError("No databases attached");
    }
    const db = this.databases.get(name);
    if (!db) throw keyError(`Database not found: ${name}`);
    return db;
  }

  /** The private internal database (not exposed over HTTP). */
  get_internal_database(): Database {
    return this.#internal.database();
  }

  /** @internal The queries people saved (kept in the internal database). */
  get stored_queries(): StoredQueries {
    return this.#internal.storedQueries();
  }

  /** @internal The column types actors set (kept in the internal database). */
  get column_type_store(): ColumnTypeStore {
    return this.#internal.columnTypeStore();
  }

  /** @internal The history of writes made through Vitrine (`db/history/`). */
  get history(): WriteHistory {
    return this.#internal.history();
  }

  /** @internal Metadata edited while serving (kept in the internal database). */
  get metadata_edits(): MetadataEdits {
    return this.#internal.metadataEdits();
  }

  /** Attaches a database; the name defaults from the file or memory name. */
  add_database<D extends DatabaseEngine>(
    db: D,
    { name = null, route = null }: { name?: string | null; route?: string | null } = {},
  ): D {
    let chosen = name ?? db.name;
    if (!name) {
      let suffix = 2;
      while (this.databases.has(chosen)) chosen = `${db.name}_${suffix++}`;
    }
    db.name = chosen;
    db.route = route ?? chosen;
    this.databases.set(chosen, db);
    if (this.#booting) this.refresh_catalog();
    return db;
  }

  /** Adds a named shared in-memory database served at `/<name>`. */
  add_memory_database(name: string): Database {
    return this.add_database(new Database(this, { memory_name: name }), { name });
  }

  /**
   * Detaches a previously added database. New requests no longer find it; the requests already
   * in flight finish with it, and then its connections (and its workers') close.
   */
  remove_database(name: string): void {
    const db = this.databases.get(name);
    if (!db) throw keyError(`Database not found: ${name}`);
    this.databases.delete(name);
    this.#removed.add(db);
    void this.lifecycle.whenEarlierRequestsEnd().then(() => {
      this.#removed.delete(db);
      db.close();
    });
    if (this.#booting) this.refresh_catalog();
  }

  /** Databases removed whose in-flight requests have not all finished (closed by close()). */
  #removed = new Set<DatabaseEngine>();

  /** The database for a route (its URL name). */
  databaseForRoute(route: string): DatabaseEngine | null {
    return databaseForRoute(this.databases, route);
  }

  /** Database named by the `database` group of the route; DatabaseNotFound otherwise. */
  resolve_database(request: Request): DatabaseEngine {
    return resolveDatabase(this.databases, request);
  }

  /** `{db, table, is_view}` for the `database` and `table` route groups. */
  resolve_table(request: Request): Promise<ResolvedTable> {
    return resolveTable(this.databases, request);
  }

  /** The row named by the `pks` route group; RowNotFound when there is none. */
  resolve_row(request: Request): Promise<ResolvedRow> {
    return resolveRow(this.databases, request);
  }

  // -- templates -------------------------------------------------------------------------

  /** Renders a template (name, list of names or template object) with an optional request. */
  async render_template(
    template: string | string[] | { render(context: unknown): string },
    context: Record<string, unknown> = {},
    request: Request | null = null,
  ): Promise<string> {
    await this.ready();
    return await renderTemplateForService(this, template, context, request);
  }

  // -- signing, messages, URLs -----------------------------------------------------------

  /** Signs any JSON-serialisable value. */
  sign(value: unknown, namespace = "default"): string {
    return this.signer.sign(value, namespace);
  }

  /** The original value of a signed string; throws BadSignature when tampered. */
  unsign(signed: string, namespace = "default"): unknown {
    return this.signer.unsign(signed, namespace);
  }

  /** Queues a flash message shown on the next page (cookie `ds_messages`). */
  add_message(request: Request, message: string, type: number = INFO): void {
    requestState(request).messagesToSet.push([message, type]);
  }

  /**
   * Absolute URL for a path: the `public_url` setting's origin, else the request's scheme and
   * host (from a trusted proxy, or the validated Host header — then the response is marked
   * uncacheable by shared caches; see src/app/origin.ts).
   */
  absolute_url(request: Request, path: string): string {
    const state = requestState(request);
    if (state.hostFromHeader) state.embedsHost = true;
    const scheme = this.setting("force_https_urls") ? "https" : request.scheme;
    return `${scheme}://${request.host}${path}`;
  }

  // -- actors, permissions, tokens -------------------------------------------------------

  /** Mapping of permission name to Permission object. */
  get permissions(): Record<string, unknown> {
    return this.permissionRegistry.toObject();
  }

  /** Permission by name or abbreviation; KeyError if unknown. */
  get_permission(name_or_abbr: string): Permission {
    return this.permissionRegistry.get(name_or_abbr);
  }

  /** Mapping of id to actor: the first `actors_from_ids` hook that answers, else `{id}`. */
  async actors_from_ids(actor_ids: (string | number)[]): Promise<Record<string, Actor>> {
    await this.ready();
    const found = await this.hooks.first("actors_from_ids", { actor_ids });
    if (found) return found;
    return Object.fromEntries(actor_ids.map((id) => [String(id), { id }]));
  }

  /** True, false or the default: see PermissionChecker for the order of rules. */
  async permission_allowed(
    actor: Actor | null,
    action: string,
    resource: string | [string, string] | null = null,
    default_?: boolean | null,
  ): Promise<boolean | null> {
    if (!this.lifecycle.started) await this.ready();
    return await this.permissionChecker.permission_allowed(actor, action, resource, default_);
  }

  /** Throws Forbidden when a check is denied before one is explicitly granted. */
  async ensure_permissions(
    actor: Actor | null,
    permissions: (string | [string, string | [string, string] | null])[],
  ): Promise<void> {
    if (!this.lifecycle.started) await this.ready();
    await this.permissionChecker.ensure_permissions(actor, permissions);
  }

  /** `[visible, private]` for an actor and a resource. */
  check_visibility(
    actor: Actor | null,
    options: {
      action?: string;
      resource?: string | [string, string] | null;
      permissions?: (string | [string, string | [string, string] | null])[];
    } = {},
  ): Promise<[boolean, boolean]> {
    // Pages ask this several times each: once booted, no promise of our own in between.
    if (this.lifecycle.started) return this.permissionChecker.check_visibility(actor, options);
    return this.ready().then(() => this.permissionChecker.check_visibility(actor, options));
  }

  /** @internal The rules `permission_resources_sql` hooks give (`/-/rules`). */
  sqlPermissionRules(actor: Actor | null, action: string): Promise<PluginRule[]> {
    return sqlRules(this, { actor, action });
  }

  // -- events ----------------------------------------------------------------------------

  /**
   * Sends `event` to every `track_event` hook. Vitrine sends its own (`login`, `insert-rows`...)
   * where they happen; plugins send theirs. A hook that fails is logged, never fails the caller:
   * the thing the event reports has already happened.
   */
  async track_event(event: Event): Promise<void> {
    if (!(event instanceof Event)) throw new TypeError("track_event needs an Event object");
    if (!this.lifecycle.started) await this.ready();
    if (!this.pm.hasImpl("track_event")) return;
    await this.hooks.call("track_event", { event }, {
      onError: (error, plugin) => {
        console.error(`Plugin "${plugin.name}" failed in track_event (${event.name}):`, error);
        return undefined as never;
      },
    }).catch(() => {});
  }

  /** A signed `dstok_` token for an actor id, optionally expiring and restricted. */
  create_token(
    actor_id: string,
    options: {
      expires_after?: number | null;
      restrict_all?: Iterable<string> | null;
      restrict_database?: Record<string, Iterable<string>> | null;
      restrict_resource?: Record<string, Record<string, Iterable<string>>> | null;
    } = {},
  ): string {
    return createToken(this.signer, actor_id, options, this.permissionRegistry);
  }
}
