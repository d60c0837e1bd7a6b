/**
 * What views need from the service, as a typed interface (the pattern of `db/host.ts`): views
 * never import `Service`, so the layer rule holds and a view's dependencies are listed here.
 *
 * @module
 */
import type { MetadataEdits } from "../db/metadata_edits.ts";
import type { DatabaseEngine as Database } from "../db/engine.ts";
import type { WriteHistory } from "../db/history/history.ts";
import type { StoredQueries } from "../db/stored_queries.ts";
import type { ColumnTypeStore } from "../db/column_type_store.ts";
import type { Row } from "../db/results.ts";
import type { ReadPool } from "../db/pool.ts";
import type { Actor } from "../auth/allow.ts";
import type { Permission, PermissionRegistry } from "../auth/permission_registry.ts";
import type { PermissionChecker } from "../auth/permission_checker.ts";
import type { RootToken } from "../auth/root.ts";
import type { ServiceOptions } from "../config/service_options.ts";
import type { PluginListing } from "../plugins/plugin_info.ts";
import type { FacetClass } from "../table/facets.ts";
import type { OutputRenderer } from "../render/renderers.ts";
import type { RenderHost } from "../render/host.ts";
import type { Request } from "../http/request.ts";
import type { MagicParameters } from "./query/magic_parameters.ts";
import type { Event, EventClass } from "../plugins/events.ts";
import type { PluginRule } from "../auth/plugin_rules.ts";
import type { ColumnTypeRegistry } from "../plugins/column_types.ts";
import type { TokenHandler } from "../plugins/hookspecs.ts";

/** A resolved table: the spec's ResolvedTable `(db, table, is_view)`. */
export interface ResolvedTable {
  /** The database. */
  db: Database;
  /** The table's name. */
  table: string;
  /** True for a view. */
  is_view: boolean;
}

/** A resolved row: the spec's ResolvedRow. */
export interface ResolvedRow extends ResolvedTable {
  /** SQL selecting the row. */
  sql: string;
  /** Its parameters. */
  params: Record<string, unknown>;
  /** Primary-key columns. */
  pks: string[];
  /** Primary-key values from the URL. */
  pk_values: string[];
  /** The row. */
  row: Row;
  /** Indexes of the columns whose value was stored as REAL: a whole number there is `12.0`. */
  real_columns?: number[];
}

/** A permission check: an action, or an action with its resource. */
export type PermissionSpec = string | [string, string | [string, string] | null];

/** What plugins registered at start-up that views use. */
export interface Registered {
  /** Output renderers by extension (`json`, `csv` and plugin formats). */
  renderers: ReadonlyMap<string, OutputRenderer>;
  /** Facet classes from `register_facet_classes`. */
  facetClasses: readonly FacetClass[];
  /** Magic parameters from `register_magic_parameters`. */
  magicParameters: MagicParameters;
  /** Template directories bundled by plugins, in load order. */
  pluginTemplateDirs(): string[];
  /** The static directory a plugin bundles, by plugin name. */
  pluginStaticDir(name: string): string | null;
  /** The `/-/plugins` listing (built-in plugins too with `includeBuiltin`). */
  pluginListing(options?: { includeBuiltin?: boolean }): PluginListing[];
}

/** The slice of `svc` that views use. */
export interface ViewHost extends RenderHost {
  /** Flash message types. */
  readonly INFO: number;
  readonly WARNING: number;
  readonly ERROR: number;
  /** How the service was started (`crossdb`, `static_mounts`, `inspect_data`...). */
  readonly options: ServiceOptions;
  /** Attached databases by name. */
  readonly databases: ReadonlyMap<string, Database>;
  /** Permissions registered by core and plugins. */
  readonly permissionRegistry: PermissionRegistry;
  /** The permission engine (its log of recent checks feeds `/-/permissions`). */
  readonly permissionChecker: PermissionChecker;
  /** The one-time `--root` login token, when started with `--root`. */
  readonly rootToken: RootToken | null;
  /** What plugins registered at start-up. */
  readonly registered: Registered;
  get_database(name?: string | null): Database;
  resolve_database(request: Request): Database;
  resolve_table(request: Request): Promise<ResolvedTable>;
  resolve_row(request: Request): Promise<ResolvedRow>;
  render_template(
    template: string | string[] | { render(context: unknown): string },
    context?: Record<string, unknown>,
    request?: Request | null,
  ): Promise<string>;
  add_message(request: Request, message: string, type?: number): void;
  sign(value: unknown, namespace?: string): string;
  unsign(signed: string, namespace?: string): unknown;
  permission_allowed(
    actor: Actor | null,
    action: string,
    resource?: string | [string, string] | null,
    default_?: boolean | null,
  ): Promise<boolean | null>;
  ensure_permissions(actor: Actor | null, permissions: PermissionSpec[]): Promise<void>;
  check_visibility(
    actor: Actor | null,
    options?: {
      action?: string;
      resource?: string | [string, string] | null;
      permissions?: PermissionSpec[];
    },
  ): Promise<[boolean, boolean]>;
  get_permission(name_or_abbr: string): Permission;
  create_token(
    actor_id: string,
    options?: {
      expires_after?: number | null;
      restrict_all?: Iterable<string> | null;
      restrict_database?: Record<string, Iterable<string>> | null;
      restrict_resource?: Record<string, Record<string, Iterable<string>>> | null;
    },
  ): string;
  /** The read-worker pool (for `/-/threads`). */
  readPool(): ReadPool;
  /** The rules `permission_resources_sql` hooks give for an actor and action (`/-/rules`). */
  sqlPermissionRules(actor: Actor | null, action: string): Promise<PluginRule[]>;
  /** Sends an event to the `track_event` hooks. */
  track_event(event: Event): Promise<void>;
  /** Event classes registered with `register_events`. */
  readonly eventClasses: Set<EventClass>;
  /** Column types registered with `register_column_types`. */
  readonly columnTypes: ColumnTypeRegistry;
  /** Token handlers registered with `register_token_handler`. */
  readonly tokenHandlers: TokenHandler[];
  /** Brings the internal catalog up to date after a view changed a schema (the write API). */
  refresh_catalog(): Promise<void>;
  /** The private internal database (`jump_items_sql` fragments run there by default). */
  get_internal_database(): Database;
  /** The queries people saved, kept in the internal database. */
  readonly stored_queries: StoredQueries;
  /** The column types actors set (`/-/set-column-type`), kept in the internal database. */
  readonly column_type_store: ColumnTypeStore;
  /** Metadata edited while serving, kept in the internal database. */
  readonly metadata_edits: MetadataEdits;
  /** The history of writes made through Vitrine (`db/history/`). */
  readonly history: WriteHistory;
}
