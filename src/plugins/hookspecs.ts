/**
 * Every plugin hook, typed, in the order of SPEC "Events".
 *
 * A hook implementation is a named export of a plugin module. It receives **one object** holding
 * all the hook's parameters and destructures the subset it needs:
 *
 * ```ts
 * export function render_cell({ value, column }: HookArgs<"render_cell">) {
 *   return column === "url" ? new Markup(`<a href="${value}">link</a>`) : null;
 * }
 * ```
 *
 * Parameters are typed with the real classes (`Service`, `Request`, `Response`, `Connection`,
 * commander's `Command`) through type-only imports, so at run time this module loads only the
 * name lists of hook_names.ts and no import cycle can start here.
 *
 * A plugin can have the compiler check a hook's return value too by typing the export as the
 * hook: `export const extra_css_urls: Hooks["extra_css_urls"] = () => ["/x.css"];`.
 *
 * @module
 */

import type { Command as CommanderCommand } from "commander";
import type { Service } from "../service.ts";
import type { Request, Scope } from "../http/request.ts";
import type { Response } from "../http/response.ts";
import type { Connection } from "../sqlite/connection.ts";
import type { EngineConnection } from "../db/engine.ts";
import type { SqlValue } from "../sqlite/values.ts";
import type { NunjucksEnvironment } from "../render/template_filters.ts";
import type { Action, Permission } from "../auth/permission_registry.ts";
import type { Event, EventClass } from "./events.ts";
import type { ColumnTypeClass } from "./column_types.ts";
import type { Actor } from "../auth/allow.ts";
import type { FilterArgumentsLike } from "../table/filter_arguments.ts";
import type { FacetClass } from "../table/facets.ts";
import type { FetchHandler } from "../app/host.ts";

/** A hook may return a value, a promise, or a function returning either (resolved recursively). */
export type Lazy<T> = T | Promise<T> | (() => T | Promise<T>);

// The classes and types hook parameters use, re-exported under their own names (one symbol each,
// so documentation links them to the classes `mod.ts` exports).
export type {
  Action,
  Actor,
  ColumnTypeClass,
  Connection,
  Event,
  EventClass,
  FacetClass,
  FetchHandler,
  FilterArgumentsLike,
  Request,
  Response,
  Scope,
  Service,
  SqlValue,
};

/** A permission resource: a database name, a `[database, table]` pair, or none. */
export type Resource = string | [string, string] | null;

/** The nunjucks Environment `prepare_jinja2_environment` receives (`addFilter`, `addGlobal`...). */
export type TemplateEnvironment = NunjucksEnvironment;

/** A commander `Command`: the root for `register_commands`, the group for `publish_subcommand`. */
export type Command = CommanderCommand;

/** Parameters shared by the page hooks (`extra_template_vars`, `extra_css_urls`, ...). */
export interface PageHookArgs {
  /** The template being rendered. */
  template: string;
  /** The database of the page, if any. */
  database: string | null;
  /** The table of the page, if any. */
  table: string | null;
  /** The columns shown, on table and query pages. */
  columns: string[] | null;
  /** `index`, `database`, `table`, `row`, `query`, ... */
  view_name: string;
  /** The request, null when rendering outside one. */
  request: Request | null;
  /** The service. */
  svc: Service;
}

/** An asset URL as a string or `{url, sri, module}`. */
export type AssetUrl = string | { url: string; sri?: string; module?: boolean };

/** The named values an output renderer's `render` and `can_render` receive. */
export interface RenderArgs {
  /** The service. */
  svc: Service;
  /** Column names. */
  columns: string[];
  /** The rows (of this page). */
  rows: SqlRow[];
  /**
   * For a renderer that declares `stream: true`, with `_stream=on`: every row of the table or
   * query (this page's first), read a page at a time as it is iterated; null otherwise.
   */
  row_stream?: AsyncIterable<SqlRow> | null;
  /** The SQL that produced them, if any. */
  sql: string | null;
  /** The canned query's name, null otherwise. */
  query_name: string | null;
  /** The database's name. */
  database: string;
  /** Null for custom SQL and canned queries. */
  table: string | null;
  /** The request. */
  request: Request;
  /** The error message, when the query failed. */
  error: string | null;
  /** True when more rows exist but pagination is unavailable (e.g. over 1,000 results). */
  truncated: boolean | null;
  /** `table`, `query`, `row`, ... */
  view_name: string;
  /** Other values the page computed. */
  [key: string]: unknown;
}

/** A result row: values by position and by column name. */
export type SqlRow = SqlValue[] & { [column: string]: SqlValue };

/** One output format added by `register_output_renderer`. */
export interface OutputRenderer {
  /** The format's extension, without the dot: `md` for `/db/table.md`. */
  extension: string;
  /** A Response, or the deprecated `{body, content_type, status_code, headers}`; null declines. */
  render(args: RenderArgs): Lazy<Response | Record<string, unknown> | null | undefined>;
  /** Whether this page can be rendered (and linked to); omitted means always. */
  can_render?(args: RenderArgs): Lazy<boolean>;
  /**
   * True: the renderer streams. With `_stream=on` its `render` gets `row_stream`, an async
   * iterable of every row (each page read as the renderer pulls), and returns a Response whose
   * body is a `ReadableStream`, so a whole table goes out in constant memory.
   */
  stream?: boolean;
}

/** An ASGI-style message a route view passes to `send` or gets from `receive`. */
export type AsgiMessage = Record<string, unknown>;

/**
 * A route view: receives `{svc, request, scope, send, receive}` and returns a Response, or
 * answers through `send({type: "http.response.start", status, headers})` then
 * `send({type: "http.response.body", body})` and returns nothing.
 */
export type RouteView = (args: {
  svc: Service;
  request: Request;
  scope: Scope;
  send: (message: AsgiMessage) => Promise<void>;
  receive: () => Promise<AsgiMessage>;
}) => Lazy<Response | globalThis.Response | null | undefined | void>;

/** A menu item returned by `table_actions` / `database_actions`. */
export interface MenuLink {
  /** Where the item links to. */
  href: string;
  /** The item's text. */
  label: string;
}

/**
 * What `jump_items_sql` returns: SQL whose rows are items of the `/-/jump` finder, with the
 * columns `type`, `label`, `description`, `url` (a path starting with `/`, or a JSON object
 * `{"method": "table", "database": …, "table": …}` naming a `svc.urls` method), `search_text` and
 * `display_name`. It runs on the internal database unless `database` names another.
 */
export interface JumpSql {
  /** A SELECT returning the six columns. */
  sql: string;
  /** Its named parameters. */
  params?: Record<string, unknown> | null;
  /** The database it runs on; the internal database when absent. */
  database?: string | null;
}

/**
 * What `permission_resources_sql` answers: SQL run on the internal database, with the named
 * `params` plus `:actor` (JSON), `:actor_id` and `:action`, selecting `parent`, `child`, `allow`
 * (1 or 0) and `reason` rows. A row with both null is an instance rule, a parent alone a database
 * rule, both a rule for one table or query.
 */
export interface PermissionSQL {
  /** The SELECT. */
  sql: string;
  /** Its named parameters (no `:` prefix). */
  params?: Record<string, SqlValue>;
}

/**
 * What `write_wrapper` answers: a generator function, plain (`function*`) or async
 * (`async function*`). Code before its one `yield` runs before the write, inside the write's
 * transaction; the write's result comes back from the `yield` (an error is thrown into it; a
 * throw of the wrapper's aborts the write and rolls it back); events passed to `track_event` are
 * sent once the write committed. `conn` is the write's connection: SQLite's synchronous
 * `Connection` (`conn.engine === "sqlite"`), or on PostgreSQL a `PgConnection` whose `execute`
 * returns a Promise — an async wrapper that awaits `conn.execute(…)` serves both engines.
 */
export type WriteWrapper = (args: {
  conn: EngineConnection;
  track_event: (event: Event) => void;
}) => Generator<unknown, void, unknown> | AsyncGenerator<unknown, void, unknown>;

/** A token scheme beside `dstok_` (`register_token_handler`). */
export interface TokenHandler {
  /** The handler's name, e.g. `database`. */
  name: string;
  /**
   * The actor a token stands for; null when the token is not this handler's. Throwing
   * `TokenInvalid` (a token it recognises but refuses) answers 401.
   */
  verify_token(
    args: { svc: Service; token: string },
  ): Actor | null | undefined | Promise<Actor | null | undefined>;
  /** Creates a token for `actor_id`, when the scheme can. */
  create_token?(args: {
    svc: Service;
    actor_id: string;
    expires_after: number | null;
    restrictions: Record<string, unknown> | null;
  }): string | Promise<string>;
}

/** Every plugin hook. Implementations are named exports of a plugin module. */
export interface Hooks {
  /**
   * A connection was opened: register SQL functions, aggregates, collations. Synchronous. Runs in
   * every read worker too, where `svc` (which lives on the main thread) is null.
   */
  prepare_connection(args: { conn: Connection; database: string; svc: Service | null }): void;
  /** The template environment was created: add filters, globals, extensions. */
  prepare_jinja2_environment(args: { env: TemplateEnvironment; svc: Service }): Lazy<void>;
  /** A page is rendered: an object merged into the template context. */
  extra_template_vars(args: PageHookArgs): Lazy<Record<string, unknown> | null | undefined>;
  /** A page is rendered: extra stylesheet URLs. */
  extra_css_urls(args: PageHookArgs): Lazy<AssetUrl[] | null | undefined>;
  /** A page is rendered: extra script URLs (plugin static paths allowed). */
  extra_js_urls(args: PageHookArgs): Lazy<AssetUrl[] | null | undefined>;
  /** A page is rendered: JavaScript (or `{module, script}`) placed at the end of `<body>`. */
  extra_body_script(
    args: PageHookArgs,
  ): Lazy<string | { module?: boolean; script: string } | null | undefined>;
  /** The `publish` command group is built: add a provider subcommand. */
  publish_subcommand(args: { publish: Command }): Lazy<void>;
  /** An HTML table cell is rendered: a string or Markup replaces it. First non-null wins. */
  render_cell(args: {
    /** The row's values by column name (`row["id"]`), as Datasette's `row["id"]` reads them. */
    row: Record<string, unknown>;
    value: unknown;
    column: string;
    table: string | null;
    database: string;
    svc: Service;
    request: Request | null;
  }): Lazy<string | object | null | undefined>;
  /** Start-up: one output format or a list of them. */
  register_output_renderer(
    args: { svc: Service },
  ): Lazy<OutputRenderer | OutputRenderer[] | null | undefined>;
  /** Start-up: `[pattern, view]` pairs; patterns are strings or RegExps with named groups. */
  register_routes(
    args: { svc: Service },
  ): Lazy<[string | RegExp, RouteView][] | null | undefined>;
  /** Command-line start: add commands to the root command (installed plugins only). */
  register_commands(args: { cli: Command }): Lazy<void>;
  /** Start-up: Facet classes (design unstable). */
  register_facet_classes(args: Record<string, never>): Lazy<FacetClass[] | null | undefined>;
  /** Start-up: Permission objects. */
  register_permissions(args: { svc: Service }): Lazy<Permission[] | null | undefined>;
  /** The application is assembled: a function wrapping the fetch-style handler (or its promise). */
  asgi_wrapper(
    args: { svc: Service },
  ):
    | ((handler: FetchHandler) => FetchHandler)
    | Promise<(handler: FetchHandler) => FetchHandler>
    | null;
  /** The server first starts; throwing aborts start-up. */
  startup(args: { svc: Service }): Lazy<void>;
  /** Canned queries are listed for a database: name → definition (or SQL string). */
  canned_queries(args: {
    svc: Service;
    database: string;
    actor: Actor | null;
  }): Lazy<Record<string, unknown> | null | undefined>;
  /** Each request: the actor, or null. First non-null actor wins. */
  actor_from_request(args: { svc: Service; request: Request }): Lazy<Actor | null | undefined>;
  /** Actor ids need resolving: id → actor. First non-null answer wins. */
  actors_from_ids(args: {
    svc: Service;
    actor_ids: (string | number)[];
  }): Lazy<Record<string, Actor> | null | undefined>;
  /** Table page query building: extra where clauses, params and descriptions. */
  filters_from_request(args: {
    request: Request;
    database: string;
    table: string;
    svc: Service;
  }): Lazy<FilterArgumentsLike | null | undefined>;
  /** A permission check: true allows, false denies, null has no opinion. */
  permission_allowed(args: {
    svc: Service;
    actor: Actor | null;
    action: string;
    resource: Resource;
  }): Lazy<boolean | null | undefined>;
  /** Start-up: `[prefix, (key, request) => value]` pairs; unknown keys throw a KeyError. */
  register_magic_parameters(args: {
    svc: Service;
  }): Lazy<[string, (key: string, request: Request) => unknown][] | null | undefined>;
  /** A 403 is about to be returned: a Response replaces it. First non-null wins. */
  forbidden(args: {
    svc: Service;
    request: Request;
    message: string;
    /** Vitrine extension: the error being answered (its `title` and `headers` among others). */
    exception: unknown;
  }): Lazy<Response | null | undefined>;
  /** An unexpected error: a Response replaces the error page. First non-null wins. */
  handle_exception(args: {
    svc: Service;
    request: Request;
    exception: unknown;
  }): Lazy<Response | null | undefined>;
  /** Table page rendered: `{href, label}` menu items. */
  table_actions(args: {
    svc: Service;
    actor: Actor | null;
    database: string;
    table: string;
    request: Request | null;
  }): Lazy<MenuLink[] | null | undefined>;
  /** Database page rendered: `{href, label}` menu items. */
  database_actions(args: {
    svc: Service;
    actor: Actor | null;
    database: string;
    request: Request | null;
  }): Lazy<MenuLink[] | null | undefined>;
  /** Each incoming request: true skips CSRF protection for it. */
  skip_csrf(args: {
    svc: Service;
    scope: Scope;
    request: Request;
  }): Lazy<boolean | null | undefined>;
  /** Metadata requested: a metadata-shaped object; the local file wins. Synchronous. */
  get_metadata(args: {
    svc: Service;
    actor: Actor | null;
    key: string | null;
    database: string | null;
    table: string | null;
  }): Record<string, unknown> | null | undefined;
  /** `/-/jump` is searched: SQL listing more items to find (the reference's 1.0a37 hook). */
  jump_items_sql(args: {
    svc: Service;
    actor: Actor | null;
    request: Request;
  }): Lazy<JumpSql | JumpSql[] | null | undefined>;
  /** Not in SPEC "Events" (Datasette's `menu_links`): items for the navigation menu. */
  menu_links(args: {
    svc: Service;
    actor: Actor | null;
    request: Request | null;
  }): Lazy<MenuLink[] | null | undefined>;
  // -- The reference's 1.0a37 hooks (docs/plugins.md "Newer hooks") --------------------------
  /** Start-up: Action objects (denied unless granted), beside `register_permissions`. */
  register_actions(args: { svc: Service }): Lazy<Action[] | null | undefined>;
  /**
   * A permission check for `action`: SQL listing the resources the actor may (allow 1) or may not
   * (allow 0) act on. Feeds the same decision as `permission_allowed` (docs/permissions.md).
   */
  permission_resources_sql(args: {
    svc: Service;
    actor: Actor | null;
    action: string;
  }): Lazy<PermissionSQL | PermissionSQL[] | null | undefined>;
  /** `svc.track_event(event)` was called: something happened (`event.name`, `event.actor`). */
  track_event(args: { svc: Service; event: Event }): Lazy<void>;
  /** Start-up: Event classes this plugin sends. */
  register_events(args: { svc: Service }): Lazy<EventClass[] | null | undefined>;
  /** Row page rendered: `{href, label}` menu items. */
  row_actions(args: {
    svc: Service;
    actor: Actor | null;
    request: Request | null;
    database: string;
    table: string;
    row: Record<string, unknown>;
  }): Lazy<MenuLink[] | null | undefined>;
  /** Home page rendered: `{href, label}` menu items. */
  homepage_actions(args: {
    svc: Service;
    actor: Actor | null;
    request: Request | null;
  }): Lazy<MenuLink[] | null | undefined>;
  /** SQL view page rendered (instead of `table_actions`): `{href, label}` menu items. */
  view_actions(args: {
    svc: Service;
    actor: Actor | null;
    database: string;
    view: string;
    request: Request | null;
  }): Lazy<MenuLink[] | null | undefined>;
  /** Query or canned query page rendered: `{href, label}` menu items. */
  query_actions(args: {
    svc: Service;
    actor: Actor | null;
    database: string;
    query_name: string | null;
    request: Request | null;
    sql: string;
    params: Record<string, unknown>;
  }): Lazy<MenuLink[] | null | undefined>;
  /** Home page rendered: HTML placed at its top. */
  top_homepage(args: { svc: Service; request: Request }): Lazy<string | null | undefined>;
  /** Database page rendered: HTML placed at its top. */
  top_database(args: {
    svc: Service;
    request: Request;
    database: string;
  }): Lazy<string | null | undefined>;
  /** Table page rendered: HTML placed at its top. */
  top_table(args: {
    svc: Service;
    request: Request;
    database: string;
    table: string;
  }): Lazy<string | null | undefined>;
  /** Row page rendered: HTML placed at its top. */
  top_row(args: {
    svc: Service;
    request: Request;
    database: string;
    table: string;
    row: Record<string, unknown>;
  }): Lazy<string | null | undefined>;
  /** Custom SQL query page rendered: HTML placed at its top. */
  top_query(args: {
    svc: Service;
    request: Request;
    database: string;
    sql: string;
  }): Lazy<string | null | undefined>;
  /** Canned query page rendered: HTML placed at its top. */
  top_canned_query(args: {
    svc: Service;
    request: Request;
    database: string;
    query_name: string;
  }): Lazy<string | null | undefined>;
  /** The reference's name for `top_canned_query` since 1.0a31; both are called. */
  top_stored_query(args: {
    svc: Service;
    request: Request;
    database: string;
    query_name: string;
  }): Lazy<string | null | undefined>;
  /** Start-up: ColumnType classes, named by the `column_types` configuration of columns. */
  register_column_types(args: { svc: Service }): Lazy<ColumnTypeClass[] | null | undefined>;
  /** A write is about to run: a generator function wrapping it, or null (see WriteWrapper). */
  write_wrapper(args: {
    svc: Service;
    database: string;
    request: Request | null;
    transaction: boolean;
  }): WriteWrapper | null | undefined;
  /** Start-up: token handlers for bearer tokens other than `dstok_`. */
  register_token_handler(
    args: { svc: Service },
  ): Lazy<TokenHandler | TokenHandler[] | null | undefined>;
  /** A page is rendered: a nunjucks Environment to use for this request. First non-null wins. */
  jinja2_environment_from_request(args: {
    svc: Service;
    request: Request;
    env: TemplateEnvironment;
  }): Lazy<TemplateEnvironment | null | undefined>;
}

/** The name of a hook. */
export type HookName = keyof Hooks;

/** The one argument object a hook receives. */
export type HookArgs<N extends HookName> = Parameters<Hooks[N]>[0];

export { FIRST_RESULT, FUNCTION_RESULT, HOOK_NAMES, isHookName, SYNC_ONLY } from "./hook_names.ts";
