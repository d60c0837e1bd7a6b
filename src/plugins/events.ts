/**
 * Events: typed records of something that happened (a login, rows inserted, a table dropped),
 * sent to every `track_event` hook by `svc.track_event(event)`. The names and fields are the
 * reference's (Datasette 1.0a37 `datasette/events.py`), so a ported analytics or audit plugin
 * reads the same `event.name` and `event.properties()`.
 *
 * A plugin declares its own kind of event as a subclass naming itself with a static
 * `event_name`, returns the class from `register_events`, and sends instances with
 * `svc.track_event`:
 *
 * ```ts
 * class BanUserEvent extends Event {
 *   static override readonly event_name = "ban-user";
 *   declare readonly user: string;
 *   constructor(fields: { actor: Actor | null; user: string }) { super(fields); }
 * }
 * ```
 *
 * @module
 */

import type { Actor } from "../http/actor.ts";

/** What an event is about: a database name, a `[database, table]` pair, or none. */
export type EventResource = string | [string, string] | null;

/** An event class: what `register_events` returns. */
export interface EventClass {
  /** The event's name, e.g. `insert-rows`. */
  readonly event_name: string;
  /** The class's own name (`InsertRowsEvent`). */
  readonly name: string;
}

/** The base of every event: its actor and when it happened; subclasses add their fields. */
export class Event {
  /** Subclasses name themselves here (`static override readonly event_name = "login"`). */
  static readonly event_name: string = "";
  /** Who did it, or null. */
  declare readonly actor: Actor | null;
  /** When the event object was made. */
  declare readonly created: Date;

  /** An event from its fields: `actor` plus the subclass's own. */
  constructor(fields: { actor: Actor | null } & Record<string, unknown>) {
    Object.assign(this, fields);
    Object.defineProperty(this, "actor", { value: fields.actor ?? null, enumerable: false });
    Object.defineProperty(this, "created", { value: new Date(), enumerable: false });
  }

  /** The event's name, from its class (`login`, `insert-rows`, ...). */
  get name(): string {
    const name = (this.constructor as unknown as EventClass).event_name;
    if (!name) throw new TypeError(`${this.constructor.name} has no static event_name`);
    return name;
  }

  /** The event's own fields (everything but `actor` and `created`), for logging. */
  properties(): Record<string, unknown> {
    return { ...this } as Record<string, unknown>;
  }

  /** What the event is about, from its `database` and `table` fields when it has them. */
  get resource(): EventResource {
    const fields = this as unknown as Record<string, unknown>;
    const database = typeof fields.database === "string" ? fields.database : null;
    if (database === null) return null;
    const table = fields.table ?? fields.new_table ?? fields.query_name;
    return typeof table === "string" ? [database, table] : database;
  }
}

type Fields<T> = { actor: Actor | null } & T;

/** `login`: the actor signed in. */
export class LoginEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "login";
  /** The signed-in actor. */
  constructor(fields: Fields<Record<never, never>>) {
    super(fields);
  }
}

/** `logout`: the actor signed out. */
export class LogoutEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "logout";
  /** The signed-out actor. */
  constructor(fields: Fields<Record<never, never>>) {
    super(fields);
  }
}

/** `create-token`: the actor created an API token with these restrictions. */
export class CreateTokenEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "create-token";
  /** Seconds until the token expires, or null for never. */
  declare readonly expires_after: number | null;
  /** Actions allowed everywhere, when restricted. */
  declare readonly restrict_all: string[];
  /** Actions allowed per database. */
  declare readonly restrict_database: Record<string, string[]>;
  /** Actions allowed per table or query. */
  declare readonly restrict_resource: Record<string, Record<string, string[]>>;
  /** The token's fields. */
  constructor(
    fields: Fields<{
      expires_after: number | null;
      restrict_all: string[];
      restrict_database: Record<string, string[]>;
      restrict_resource: Record<string, Record<string, string[]>>;
    }>,
  ) {
    super(fields);
  }
}

/** `create-table`: a table was created. */
export class CreateTableEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "create-table";
  /** The database. */
  declare readonly database: string;
  /** The new table. */
  declare readonly table: string;
  /** Its `CREATE TABLE` statement. */
  declare readonly schema: string;
  /** The table and its schema. */
  constructor(fields: Fields<{ database: string; table: string; schema: string }>) {
    super(fields);
  }
}

/** `drop-table`: a table was dropped. */
export class DropTableEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "drop-table";
  /** The database. */
  declare readonly database: string;
  /** The dropped table. */
  declare readonly table: string;
  /** The table. */
  constructor(fields: Fields<{ database: string; table: string }>) {
    super(fields);
  }
}

/** `alter-table`: a table's schema changed (columns added by an insert's `alter`, a write query). */
export class AlterTableEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "alter-table";
  /** The database. */
  declare readonly database: string;
  /** The altered table. */
  declare readonly table: string;
  /** Its schema before. */
  declare readonly before_schema: string;
  /** Its schema after. */
  declare readonly after_schema: string;
  /** The table and both schemas. */
  constructor(
    fields: Fields<
      { database: string; table: string; before_schema: string; after_schema: string }
    >,
  ) {
    super(fields);
  }
}

/** `rename-table`: a table was renamed (seen by comparing the schema around a write). */
export class RenameTableEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "rename-table";
  /** The database. */
  declare readonly database: string;
  /** The old name. */
  declare readonly old_table: string;
  /** The new name. */
  declare readonly new_table: string;
  /** Both names. */
  constructor(fields: Fields<{ database: string; old_table: string; new_table: string }>) {
    super(fields);
  }
}

/** `insert-rows`: rows were inserted through the write API. */
export class InsertRowsEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "insert-rows";
  /** The database. */
  declare readonly database: string;
  /** The table. */
  declare readonly table: string;
  /** How many rows were sent. */
  declare readonly num_rows: number;
  /** Whether `ignore` was set. */
  declare readonly ignore: boolean;
  /** Whether `replace` was set. */
  declare readonly replace: boolean;
  /** The insert's fields. */
  constructor(
    fields: Fields<
      { database: string; table: string; num_rows: number; ignore: boolean; replace: boolean }
    >,
  ) {
    super(fields);
  }
}

/** `upsert-rows`: rows were upserted through the write API. */
export class UpsertRowsEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "upsert-rows";
  /** The database. */
  declare readonly database: string;
  /** The table. */
  declare readonly table: string;
  /** How many rows were sent. */
  declare readonly num_rows: number;
  /** The upsert's fields. */
  constructor(fields: Fields<{ database: string; table: string; num_rows: number }>) {
    super(fields);
  }
}

/** `update-row`: one row was updated. */
export class UpdateRowEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "update-row";
  /** The database. */
  declare readonly database: string;
  /** The table. */
  declare readonly table: string;
  /** The row's primary key values. */
  declare readonly pks: unknown[];
  /** The row. */
  constructor(fields: Fields<{ database: string; table: string; pks: unknown[] }>) {
    super(fields);
  }
}

/** `delete-row`: one row was deleted. */
export class DeleteRowEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "delete-row";
  /** The database. */
  declare readonly database: string;
  /** The table. */
  declare readonly table: string;
  /** The row's primary key values. */
  declare readonly pks: unknown[];
  /** The row. */
  constructor(fields: Fields<{ database: string; table: string; pks: unknown[] }>) {
    super(fields);
  }
}

/**
 * `execute-write` (Vitrine's own): a writable canned query ran, or write SQL was sent to
 * `/<db>/-/execute-write` (then `query_name` is null and `sql` holds the batch).
 */
export class ExecuteWriteEvent extends Event {
  /** The event\'s name. */
  static override readonly event_name = "execute-write";
  /** The database. */
  declare readonly database: string;
  /** The canned query's name, or null for SQL sent to `/-/execute-write`. */
  declare readonly query_name: string | null;
  /** Rows changed, as SQLite counts them. */
  declare readonly rowcount: number;
  /** The SQL run through `/-/execute-write`; absent for canned queries. */
  declare readonly sql?: string;
  /** The query run. */
  constructor(
    fields: Fields<{ database: string; query_name: string | null; rowcount: number; sql?: string }>,
  ) {
    super(fields);
  }
}

/** `store-query` (Vitrine's own): someone saved a query (stored queries). */
export class StoreQueryEvent extends Event {
  /** The event's name. */
  static override readonly event_name = "store-query";
  /** The database. */
  declare readonly database: string;
  /** The stored query's name. */
  declare readonly query_name: string;
  /** Whether only its owner (and those it is shared with) may see it. */
  declare readonly is_private: boolean;
  /** The query saved. */
  constructor(fields: Fields<{ database: string; query_name: string; is_private: boolean }>) {
    super(fields);
  }
}

/** `update-query` (Vitrine's own): a stored query was changed. */
export class UpdateQueryEvent extends Event {
  /** The event's name. */
  static override readonly event_name = "update-query";
  /** The database. */
  declare readonly database: string;
  /** The stored query's name. */
  declare readonly query_name: string;
  /** The fields the change set. */
  declare readonly fields: string[];
  /** The query changed. */
  constructor(fields: Fields<{ database: string; query_name: string; fields: string[] }>) {
    super(fields);
  }
}

/** `delete-query` (Vitrine's own): a stored query was deleted. */
export class DeleteQueryEvent extends Event {
  /** The event's name. */
  static override readonly event_name = "delete-query";
  /** The database. */
  declare readonly database: string;
  /** The stored query's name. */
  declare readonly query_name: string;
  /** The query deleted. */
  constructor(fields: Fields<{ database: string; query_name: string }>) {
    super(fields);
  }
}

/** `edit-metadata` (Vitrine's own): a database's or table's metadata was edited while serving. */
export class EditMetadataEvent extends Event {
  /** The event's name. */
  static override readonly event_name = "edit-metadata";
  /** The database. */
  declare readonly database: string;
  /** The table, or null for the database's own metadata. */
  declare readonly table: string | null;
  /** The keys changed: `title`, `description`…, and `columns.<name>` / `units.<name>`. */
  declare readonly fields: string[];
  /** The metadata edited. */
  constructor(fields: Fields<{ database: string; table: string | null; fields: string[] }>) {
    super(fields);
  }
}

/** The events Vitrine sends itself, registered by its default plugin through `register_events`. */
export const CORE_EVENTS: readonly EventClass[] = Object.freeze([
  LoginEvent,
  LogoutEvent,
  CreateTableEvent,
  CreateTokenEvent,
  AlterTableEvent,
  RenameTableEvent,
  DropTableEvent,
  InsertRowsEvent,
  UpsertRowsEvent,
  UpdateRowEvent,
  DeleteRowEvent,
  ExecuteWriteEvent,
  StoreQueryEvent,
  UpdateQueryEvent,
  DeleteQueryEvent,
  EditMetadataEvent,
]);
