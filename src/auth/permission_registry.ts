/**
 * The Permission object (SPEC "Permission object"), the built-in actions of API-DETAILS §15, and
 * the registry that `register_permissions` hooks add to.
 *
 * @module
 */

import { keyError } from "../util/key_error.ts";

/** Constructor fields of {@link Permission}; the spec's names. */
export interface PermissionInit {
  /** The action's name, e.g. `view-table`. */
  name: string;
  /** A short form for tokens, e.g. `vt`; null when it has none. */
  abbr?: string | null;
  /** What it allows, for `/-/permissions`. */
  description?: string | null;
  /** True when checks name a database. */
  takes_database: boolean;
  /** True when checks name a resource (a table or query) inside a database. */
  takes_resource: boolean;
  /** The answer when no rule or hook decides. */
  default: boolean;
  /** Granting this action implies the actor may see the instance/database (token restrictions). */
  implies_can_view?: boolean;
}

/** An action that permission checks name, e.g. `view-table` (abbreviated `vt`). */
export class Permission {
  /** Unique permission name. */
  readonly name: string;
  /** Optional unique abbreviation, used in restricted tokens. */
  readonly abbr: string | null;
  /** Human-readable description. */
  readonly description: string | null;
  /** Can be granted per database. */
  readonly takes_database: boolean;
  /** Can be granted per resource (table, SQL view, canned query). */
  readonly takes_resource: boolean;
  /** Whether granted when nothing else decides. */
  readonly default: boolean;
  /** Whether a token restricted to this action may still see the instance and database. */
  readonly implies_can_view: boolean;

  /**
   * A permission from its fields (see {@link PermissionInit}).
   *
   * @example
   * ```ts
   * new Permission({ name: "edit-notes", abbr: "en", description: "Edit notes",
   *   takes_database: true, takes_resource: false, default: false });
   * ```
   */
  constructor(init: PermissionInit) {
    if (!init || typeof init.name !== "string" || init.name === "") {
      throw new TypeError("Cannot create a Permission without a name");
    }
    this.name = init.name;
    this.abbr = init.abbr ?? null;
    this.description = init.description ?? null;
    this.takes_database = Boolean(init.takes_database);
    this.takes_resource = Boolean(init.takes_resource);
    this.default = Boolean(init.default);
    this.implies_can_view = Boolean(init.implies_can_view);
  }

  /** Plain fields, for JSON pages such as `/-/permissions.json`. */
  toJSON(): Omit<PermissionInit, "implies_can_view"> {
    return {
      name: this.name,
      abbr: this.abbr,
      description: this.description,
      takes_database: this.takes_database,
      takes_resource: this.takes_resource,
      default: this.default,
    };
  }
}

/** The kinds of resource an {@link Action} applies to: the reference's resource classes. */
export type ResourceClass = "database" | "table" | "query";

/** Constructor fields of {@link Action}; the reference's names. */
export interface ActionInit {
  /** The action's name, e.g. `edit-notes`. */
  name: string;
  /** A short form for tokens; null when it has none. */
  abbr?: string | null;
  /** What it allows. */
  description?: string | null;
  /**
   * What it applies to: `database`, `table` or `query`, or null for the whole instance. A class
   * with a static `name` (the reference's `DatabaseResource`...) is read by that name.
   */
  resource_class?: ResourceClass | { name: string } | null;
  /** Another action that must be allowed as well. */
  also_requires?: string | null;
}

/**
 * An action registered with `register_actions`: a {@link Permission} whose default is to deny,
 * described by the resource it applies to.
 *
 * @example
 * ```ts
 * new Action({ name: "edit-notes", abbr: "en", description: "Edit notes",
 *   resource_class: "table" });
 * ```
 */
export class Action extends Permission {
  /** `database`, `table`, `query`, or null for instance-wide actions. */
  readonly resource_class: ResourceClass | null;
  /** Another action that must be allowed as well, or null. */
  readonly also_requires: string | null;

  /** An action from its fields (see {@link ActionInit}). */
  constructor(init: ActionInit) {
    const resourceClass = resourceClassName(init?.resource_class ?? null);
    super({
      name: init?.name,
      abbr: init.abbr,
      description: init.description,
      takes_database: resourceClass !== null,
      takes_resource: resourceClass === "table" || resourceClass === "query",
      default: false,
    });
    this.resource_class = resourceClass;
    this.also_requires = init.also_requires ?? null;
  }
}

function resourceClassName(value: ActionInit["resource_class"]): ResourceClass | null {
  if (value === null || value === undefined) return null;
  const name = (typeof value === "string" ? value : String(value.name ?? ""))
    .toLowerCase().replace(/resource$/, "");
  if (name === "database" || name === "table" || name === "query") return name;
  throw new TypeError(
    `Unknown resource_class "${name}": use "database", "table", "query" or null`,
  );
}

/** What a permission applies to, as `/-/actions` shows it. */
export function resourceClassOf(permission: Permission): ResourceClass | null {
  if (permission instanceof Action) return permission.resource_class;
  if (!permission.takes_database) return null;
  if (!permission.takes_resource) return "database";
  return permission.name.endsWith("-query") || permission.name === "view-query" ? "query" : "table";
}

function builtin(
  name: string,
  abbr: string,
  takes: "instance" | "database" | "resource",
  defaultAllow: boolean,
  description: string,
  impliesCanView = false,
): Permission {
  return new Permission({
    name,
    abbr,
    description,
    takes_database: takes !== "instance",
    takes_resource: takes === "resource",
    default: defaultAllow,
    implies_can_view: impliesCanView,
  });
}

/**
 * The actions of the JSON write API. The write API is a default plugin, which registers these
 * through `register_permissions` like any plugin would; all are denied unless granted.
 */
export const WRITE_PERMISSIONS: readonly Permission[] = Object.freeze([
  builtin("insert-row", "ir", "resource", false, "Insert rows"),
  builtin("delete-row", "dr", "resource", false, "Delete rows"),
  builtin("update-row", "ur", "resource", false, "Update rows"),
  builtin("create-table", "ct", "database", false, "Create tables"),
  builtin("alter-table", "at", "resource", false, "Change the schema of tables"),
  builtin("drop-table", "dt", "resource", false, "Drop tables"),
]);

/**
 * The action of the history of writes (a default plugin too): undoing recorded changes, denied
 * unless granted like every write.
 */
export const HISTORY_PERMISSIONS: readonly Permission[] = Object.freeze([
  builtin("revert-change", "rvc", "database", false, "Undo changes recorded in the history"),
]);

/** The actions core registers itself at start-up: everything but the write API's. */
export const CORE_PERMISSIONS: readonly Permission[] = Object.freeze([
  builtin("view-instance", "vi", "instance", true, "See the instance home page and its pages"),
  builtin("view-database", "vd", "database", true, "See a database", true),
  builtin("view-database-download", "vdd", "database", true, "Download a database file", true),
  builtin("view-table", "vt", "resource", true, "See a table or SQL view", true),
  builtin("view-query", "vq", "resource", true, "Run a canned query", true),
  builtin("execute-sql", "es", "database", true, "Run arbitrary read-only SQL", true),
  builtin("permissions-debug", "pd", "instance", false, "Use the permissions debug tools"),
  builtin("debug-menu", "dm", "instance", false, "See the debug menu items"),
  builtin("execute-write-sql", "ews", "database", false, "Run SQL that writes to a database"),
  builtin("create-view", "cv", "database", false, "Create SQL views"),
  builtin("drop-view", "dv", "resource", false, "Drop SQL views"),
  builtin("store-query", "sq", "database", false, "Save a query"),
  builtin("update-query", "uq", "resource", false, "Change a saved query"),
  builtin("delete-query", "dq", "resource", false, "Delete a saved query"),
  builtin("set-column-type", "sct", "resource", false, "Set the type of a column"),
  builtin("view-metrics", "vm", "instance", false, "Read the Prometheus metrics at /-/metrics"),
  builtin(
    "edit-metadata",
    "em",
    "resource",
    false,
    "Edit the titles, descriptions, licences, sources and column notes of databases and tables",
  ),
]);

/**
 * Built-in actions nothing in Vitrine performs yet: registered so that tokens, `allow` blocks and
 * plugins that name them read as the reference's do, but not offered where an actor picks what a
 * token may do (`/-/create-token`), since granting one would grant nothing.
 */
export const UNIMPLEMENTED_ACTIONS: ReadonlySet<string> = new Set([
  "create-view",
  "drop-view",
]);

/**
 * Every built-in action (API-DETAILS §15 and the 1.0a37 additions): core's and the write API's.
 * Their abbreviations are stable, so tokens name them the same way before and after start-up.
 */
export const BUILTIN_PERMISSIONS: readonly Permission[] = Object.freeze([
  ...CORE_PERMISSIONS,
  ...WRITE_PERMISSIONS,
]);

/** Permissions by name, with lookup by abbreviation too. Names and abbreviations are unique. */
export class PermissionRegistry implements Iterable<Permission> {
  readonly #byName = new Map<string, Permission>();
  readonly #byAbbr = new Map<string, Permission>();
  #changes = 0;

  /** How many permissions were registered: answers that depend on the set hold while it stays. */
  get generation(): number {
    return this.#changes;
  }

  /** @param permissions initial permissions, e.g. {@link BUILTIN_PERMISSIONS} */
  constructor(permissions: Iterable<Permission> = []) {
    for (const permission of permissions) this.register(permission);
  }

  /**
   * Add a permission.
   *
   * @throws {Error} when the name or abbreviation is already taken
   */
  register(permission: Permission): void {
    if (!(permission instanceof Permission)) {
      throw new TypeError(
        "register_permissions and register_actions must return Permission or Action objects",
      );
    }
    if (this.#byName.has(permission.name)) {
      throw new Error(`Duplicate permission name: "${permission.name}"`);
    }
    if (permission.abbr !== null && this.#byAbbr.has(permission.abbr)) {
      throw new Error(
        `Duplicate permission abbreviation: "${permission.abbr}" (for "${permission.name}")`,
      );
    }
    this.#byName.set(permission.name, permission);
    this.#changes++;
    if (permission.abbr !== null) this.#byAbbr.set(permission.abbr, permission);
  }

  /** The permission named or abbreviated `nameOrAbbr`, or undefined. */
  find(nameOrAbbr: string): Permission | undefined {
    return this.#byName.get(nameOrAbbr) ?? this.#byAbbr.get(nameOrAbbr);
  }

  /**
   * The permission named or abbreviated `nameOrAbbr` (`svc.get_permission`).
   *
   * @throws {Error} a KeyError when unknown
   */
  get(nameOrAbbr: string): Permission {
    const permission = this.find(nameOrAbbr);
    if (!permission) throw keyError(`No permission found with name or abbreviation ${nameOrAbbr}`);
    return permission;
  }

  /** Whether a permission has this name or abbreviation. */
  has(nameOrAbbr: string): boolean {
    return this.find(nameOrAbbr) !== undefined;
  }

  /** Permissions in registration order. */
  [Symbol.iterator](): Iterator<Permission> {
    return this.#byName.values();
  }

  /** Name → Permission, the shape of `svc.permissions`. */
  toObject(): Record<string, Permission> {
    return Object.fromEntries(this.#byName);
  }
}
