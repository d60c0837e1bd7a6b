/**
 * Vitrine's public library API: everything a plugin or an embedding program imports.
 *
 * A plugin is an ES module whose exported functions named as hooks are the implementations; each
 * hook receives one object of named values:
 *
 * ```ts
 * import { type HookArgs, Markup } from "jsr:@vitrine/vitrine"; // or a path / URL to mod.ts
 *
 * export function render_cell({ value, column }: HookArgs<"render_cell">) {
 *   return column === "url" ? new Markup(`<a href="${Markup.escape(value)}">link</a>`) : null;
 * }
 * ```
 *
 * Embedding the service and calling it in-process:
 *
 * ```ts
 * import { Service } from "./mod.ts";
 *
 * const svc = new Service({ files: ["data.db"] });
 * const response = await svc.client.get("/data.json");
 * console.log(response.json);
 * await svc.close();
 * ```
 *
 * See `docs/plugins.md` for every hook with an example.
 *
 * @module
 */

// -- the service and its data ---------------------------------------------------------------

/**
 * The service instance (`svc`): databases, settings, metadata, plugins, templates, signing,
 * permissions, URL builders and the in-process `client`. Construct it with `new Service({ files,
 * immutables, metadata, config_dir, settings, plugins_dir, plugins, ... })`.
 */
export { Service } from "./src/service.ts";
/** Options of `new Service()`, and the `{db, table, is_view}` / row objects it resolves. */
export type { ResolvedRow, ResolvedTable, ServiceOptions } from "./src/service.ts";

/**
 * One attached SQLite database: `execute()` (reads, in the worker pool), `execute_fn()`,
 * `execute_write()`, `execute_write_script()`, `execute_write_many()`, `execute_write_fn()` and
 * the introspection methods (`table_names()`, `table_columns()`, `primary_keys()`, ...).
 */
export { Database } from "./src/db/database.ts";
/**
 * A served database of any engine, as `svc.get_database()` returns it: SQLite's `Database`
 * or a PostgreSQL database (`--postgres`, `new Service({ postgres: [url] })`).
 */
export type {
  DatabaseEngine,
  EngineConnection,
  EngineName,
  RowWrites,
  TableWrites,
  WriteScope,
} from "./src/db/engine.ts";
/**
 * What plugin code gets on a PostgreSQL database in place of SQLite's `Connection` (the `conn`
 * of `execute_fn`, `execute_write_fn` and `write_wrapper`): `await conn.execute(sql, params)`
 * resolves with a `Cursor`, inside one transaction.
 */
export { PgConnection } from "./src/db/postgres_connection.ts";
/** A result column and what one statement gave, as a `PgConnection` runs it. */
export type { PgColumn, PgRun, PgRunResult } from "./src/db/postgres_connection.ts";
/** A recorded change of one row (history), as a `WriteScope` receives them. */
export type { ChangeRecord } from "./src/db/history/capture.ts";
/** A recorded change as a revert reads it back. */
export type { RawEntry } from "./src/db/history/store.ts";
/** The SQL an engine speaks, as the table layer builds it (`db.dialect`). */
export type { FullTextSource, FullTextSql, SqlDialect } from "./src/db/dialect.ts";
/** A table and its primary key, a row to write, and a row read back (the write API's). */
export type { KeyedTable, ReturnedRow } from "./src/db/row_writes.ts";
/** A row to write: column names to values. */
export type { WriteRow } from "./src/db/write_values.ts";
/** What a bulk update of rows answers: how many rows changed, and the rows when asked for. */
export type { BulkUpdateResult } from "./src/db/row_bulk.ts";
/** What a batch of write statements answers, statement by statement. */
export type { BatchResult, StatementResult } from "./src/db/write_statements.ts";
/**
 * A table to create (its columns or rows, keys and foreign keys), one of its columns, a foreign
 * key asked for, and what creating it answers.
 */
export type {
  ColumnSpec,
  CreateTableResult,
  CreateTableSpec,
  ForeignKeyRequest,
} from "./src/db/table_writes.ts";
/** One operation of `/-/alter` (`{"op": …, "args": {…}}`). */
export type { AlterOperation } from "./src/db/alter_plan.ts";
/** What an alter answers: the table's name and schema before and after, the statements run. */
export type { AlterResult } from "./src/db/table_rebuild.ts";
/**
 * A PostgreSQL database served beside SQLite files (`docs/postgres.md`); usually made by
 * `new Service({ postgres: ["postgres://user@host/db"] })`.
 */
export { PostgresDatabase, type PostgresOptions } from "./src/db/postgres_database.ts";
/** The introspection half of `PostgresDatabase`, from the server's catalogs. */
export type { PostgresIntrospection } from "./src/db/postgres_introspection.ts";
/** Runs one catalog query of a PostgreSQL database and returns its rows. */
export type { PgRunner } from "./src/db/postgres_introspect.ts";
/** Options of `new Database()`, `db.execute()` and the write methods. */
export type {
  DatabaseOptions,
  ExecuteOptions,
  WriteFnOptions,
  WriteOptions,
} from "./src/db/database.ts";

/**
 * Query results: `rows` (arrays that also answer `row["column"]`), `columns`, `truncated`,
 * `first()`, `single_value()`, `dicts()`; iterable.
 */
export { Results } from "./src/db/results.ts";
/** One result row: values by position and by column name. */
export type { Row } from "./src/db/results.ts";

/** A query that ran past its time limit (`sql_time_limit_ms` or `custom_time_limit`). */
export { QueryInterrupted } from "./src/db/errors.ts";
/** `single_value()` on results that are not exactly one row and one column. */
export { MultipleValues } from "./src/db/errors.ts";

// -- HTTP ------------------------------------------------------------------------------------

/**
 * An incoming request as views and hooks see it: `method`, `url`, `path`, `full_path`, `args`
 * (MultiParams), `url_vars`, `headers`, `cookies`, `actor`, `scope`, `post_vars()`,
 * `post_body()`; `Request.fake(path, { method, url_vars })` builds one for tests.
 */
export { Request } from "./src/http/request.ts";

/**
 * A response returned by views, `register_routes` views, `forbidden`/`handle_exception` hooks
 * and output renderers: `new Response(body, { status, headers, content_type })`,
 * `Response.text()`, `Response.html()`, `Response.json()`, `Response.redirect()`,
 * `set_cookie()`.
 */
export { Response } from "./src/http/response.ts";

/** Query-string values: `get(key)` (first value), `getlist(key)`, `keys()`, iteration. */
export { MultiParams } from "./src/http/multi_params.ts";

/** Throw from a view for a 404 page (also the base of the three "not found" errors below). */
export { NotFound } from "./src/http/errors.ts";
/** Throw from a view for a 403 (the `forbidden` hook may replace the page). */
export { Forbidden } from "./src/http/errors.ts";
/** An unknown database; has `.database_name`. */
export { DatabaseNotFound } from "./src/http/errors.ts";
/** An unknown table; has `.database_name` and `.table`. */
export { TableNotFound } from "./src/http/errors.ts";
/** An unknown row; has `.database_name`, `.table` and `.pk_values`. */
export { RowNotFound } from "./src/http/errors.ts";

// -- plugins ---------------------------------------------------------------------------------

/**
 * Marks a hook implementation with options: `hookimpl(fn, { tryfirst, trylast, specname })` or
 * curried `hookimpl({ trylast: true })(fn)`. Marking is optional for exports named as hooks.
 */
export { hookimpl } from "./src/plugins/hookimpl.ts";
/** The options `hookimpl` accepts. */
export type { HookimplOptions } from "./src/plugins/hookimpl.ts";

/**
 * Hook types: `Hooks` declares every hook; `HookArgs<"render_cell">` is the one argument object
 * a hook receives; `HookName` is any hook's name; the rest describe hook parameters and results
 * (`RenderArgs` for output renderers, `Connection` for `prepare_connection`, `Actor`, ...).
 * Typing an export as `Hooks["name"]` has the compiler check its return value as well.
 */
export type {
  Actor,
  AsgiMessage,
  AssetUrl,
  Command,
  Connection,
  FacetClass,
  FetchHandler,
  FilterArgumentsLike,
  HookArgs,
  HookName,
  Hooks,
  JumpSql,
  Lazy,
  MenuLink,
  OutputRenderer,
  PageHookArgs,
  PermissionSQL,
  RenderArgs,
  Resource,
  RouteView,
  Scope,
  SqlRow,
  SqlValue,
  TemplateEnvironment,
  TokenHandler,
  WriteWrapper,
} from "./src/plugins/hookspecs.ts";

/**
 * An action permission checks name (`register_permissions` returns these):
 * `new Permission({ name, abbr, description, takes_database, takes_resource, default })`.
 */
export { Permission } from "./src/auth/permission_registry.ts";

/**
 * An action `register_actions` returns: `new Action({ name, abbr, description, resource_class,
 * also_requires })`, a Permission that is denied unless granted.
 */
export { Action } from "./src/auth/permission_registry.ts";
export type { ActionInit, ResourceClass } from "./src/auth/permission_registry.ts";

/**
 * Events sent to `track_event` hooks with `svc.track_event(event)`: the base `Event` (subclass it
 * with a static `event_name` for a plugin's own) and the kinds Vitrine sends itself.
 */
export {
  AlterTableEvent,
  CreateTableEvent,
  CreateTokenEvent,
  DeleteRowEvent,
  DropTableEvent,
  Event,
  ExecuteWriteEvent,
  InsertRowsEvent,
  LoginEvent,
  LogoutEvent,
  RenameTableEvent,
  UpdateRowEvent,
  UpsertRowsEvent,
} from "./src/plugins/events.ts";
export type { EventClass, EventResource } from "./src/plugins/events.ts";

/**
 * Base class of column types (`register_column_types`): subclasses set a static `type_name` and
 * may implement `render_cell`, `validate` and `transform_value`.
 */
export { ColumnType } from "./src/plugins/column_types.ts";
export type { CellArgs, ColumnTypeClass, ValueArgs } from "./src/plugins/column_types.ts";

/** True when an actor matches an `allow` block of metadata (`{"id": ["a", "b"]}`, `true`, ...). */
export { actor_matches_allow } from "./src/auth/allow.ts";

/**
 * What `filters_from_request` returns: `new FilterArguments(where_clauses, params,
 * human_descriptions, extra_context)`; a plain object with those fields works too.
 */
export { FilterArguments } from "./src/table/filter_arguments.ts";

/**
 * Base class of facet kinds (`register_facet_classes`, design unstable): subclasses set a unique
 * static and instance `type` and implement `suggest()` and `facet_results()`.
 */
export { Facet } from "./src/table/facets.ts";
/** The constructor options and result shapes of a Facet. */
export type { FacetOptions, FacetResult, FacetSuggestion } from "./src/table/facets.ts";

// -- helpers ---------------------------------------------------------------------------------

/** Tilde-encodes a name for a URL path segment (`/` → `~2F`), as database and table URLs do. */
export { tilde_encode } from "./src/util/tilde.ts";
/** Reverses `tilde_encode`. */
export { tilde_decode } from "./src/util/tilde.ts";

/**
 * A string that is already safe HTML: templates never escape it, everything else they escape.
 * `Markup.escape(text)` escapes plain text into one.
 */
export { Markup } from "./src/util/markup.ts";

/** An error named `KeyError`: what magic-parameter functions throw for an unknown key. */
export { keyError } from "./src/util/key_error.ts";

/** Parses metadata/configuration text, JSON or YAML, into a nested object. */
export { parse_metadata } from "./src/config/metadata.ts";
/** `parse_metadata` could not read the text as JSON or YAML. */
export { BadMetadataError } from "./src/config/metadata.ts";

/**
 * Records a block of work on the request's trace (`?_trace=1` with `trace_debug`):
 * `trace(type, kwargs, fn)` or `using info = trace(type, kwargs)`.
 */
export { trace } from "./src/util/trace.ts";
/** Wraps code that starts concurrent tasks so their queries are traced. */
export { trace_child_tasks } from "./src/util/trace.ts";
/** One recorded trace entry, and the open record `trace(type, kwargs)` returns. */
export type { TraceEntry, TraceInfo } from "./src/util/trace.ts";

// -- types that appear in the signatures above ------------------------------------------------

/** The introspection half of `Database`: `table_names()`, `table_columns()`, `primary_keys()`... */
export type { DatabaseIntrospection } from "./src/db/database_introspection.ts";
/** What `execute_write_script()` and `execute_write_many()` resolve to. */
export type { WriteResult } from "./src/db/write_ops.ts";
/** Base of every SQL failure (`QueryInterrupted`, ...): the SQLite error plus `sql` and `params`. */
export { DatabaseError } from "./src/db/errors.ts";
/** An error SQLite reported: `code`, `extendedCode`, the message. */
export { SqliteError } from "./src/sqlite/errors.ts";
/** Base of errors that carry an HTTP status. */
export { StatusError } from "./src/util/errors.ts";
/** Foreign keys, as `foreign_keys_for_table()` and `get_all_foreign_keys()` describe them. */
export type { ForeignKey, TableForeignKeys } from "./src/db/introspect.ts";
/** The cursor `execute_write()` and `conn.execute()` return: `rowcount`, `lastrowid`, rows. */
export type { ColumnDescription, Cursor } from "./src/sqlite/cursor.ts";
/** Query parameters: a list for `?` placeholders or an object for `:name` ones. */
export type { BindParams, BindValue } from "./src/sqlite/values.ts";
/** Functions `prepare_connection` registers: scalar, aggregate class, collation. */
export type {
  AggregateClass,
  AggregateInstance,
  CollationFunction,
  ScalarFunction,
} from "./src/sqlite/functions.ts";
/** Base of the errors a view throws to answer with a status (`NotFound`, `Forbidden`, ...). */
export { HttpError } from "./src/http/errors.ts";
/** A response body, the `send` of an ASGI-style view, and `set_cookie()`'s options. */
export type { AsgiResponseMessage, AsgiSend, ResponseBody } from "./src/http/response.ts";
export type { CookieOptions } from "./src/http/cookies.ts";
/** `svc.client`: requests sent to the service in-process, and what they resolve to. */
export type { Client, ClientRequestOptions, ClientResponse } from "./src/http/client.ts";
/** `svc.urls`: the URL builders. */
export type { FormatOption, PrefixedUrl, Urls } from "./src/http/urls.ts";
/** `svc.hooks`: calls hooks with `svc` supplied. */
export type {
  CollectingHook,
  FirstResultHook,
  HookCallArgs,
  HookCaller,
  HookResult,
  SyncHook,
  Unwrapped,
} from "./src/plugins/hooks.ts";
export type { CallOptions } from "./src/plugins/registry.ts";
/** A registered plugin as the registry knows it (name, version, source, static/template dirs). */
export type { PluginInfo } from "./src/plugins/plugin_info.ts";
/** What `hookimpl` marks. */
export type { AnyFunction } from "./src/plugins/hookimpl.ts";
/** An `allow` block of metadata, and the fields of `new Permission()`. */
export type { AllowBlock } from "./src/auth/allow.ts";
export type { PermissionInit } from "./src/auth/permission_registry.ts";
/** `svc.metadata()`, a parsed metadata document, and `parse_metadata`'s format argument. */
export type {
  CannedQuery,
  DisplayMetadata,
  Metadata,
  MetadataDict,
  MetadataFormat,
} from "./src/config/metadata.ts";
/** What a Facet subclass works with. */
export type {
  FacetCounter,
  FacetDatabase,
  FacetRows,
  LabelLookup,
} from "./src/table/facet_base.ts";
export type { FacetConfig, FacetSource, FacetValue } from "./src/table/facet_configs.ts";
export type { ArgsLike, SettingsLike, TableSettings } from "./src/table/args.ts";
export type { ArgPair } from "./src/table/url_args.ts";
