/**
 * Column types: a name given to a column in configuration (`column_types` of a table) that says
 * how its values render and which values it accepts. Plugins add types with the
 * `register_column_types` hook, returning subclasses of {@link ColumnType}:
 *
 * ```ts
 * class ColorType extends ColumnType {
 *   static override readonly type_name = "color";
 *   static override readonly description = "CSS color value";
 *   override render_cell({ value }: CellArgs) {
 *     return value ? new Markup(`<span style="color: ${escapeHtml(String(value))}">…</span>`) : null;
 *   }
 *   override validate({ value }: ValueArgs) {
 *     return typeof value === "string" && !value.startsWith("#") ? "Color must start with #" : null;
 *   }
 * }
 * ```
 *
 * Configuration names a type per column, plainly or with options the instance receives:
 * `{"column_types": {"tint": "color", "home": {"type": "url", "config": {"prefix": "https://"}}}}`.
 *
 * @module
 */

import type { Request } from "../http/request.ts";
import { escapeHtml, Markup } from "../util/markup.ts";
import { markdownToHtml } from "../util/markdown.ts";
import { allowCspSource } from "../http/csp.ts";
import { isIsoDate, isIsoDateTime } from "../util/iso_dates.ts";

/** What `ColumnType.render_cell` receives. */
export interface CellArgs {
  /** The cell's value. */
  value: unknown;
  /** Its column. */
  column: string;
  /** Its table. */
  table: string;
  /** Its database. */
  database: string;
  /** The page's request, null outside one. */
  request: Request | null;
}

/** What `ColumnType.validate` and `transform_value` receive. */
export interface ValueArgs {
  /** The value being written. */
  value: unknown;
  /** Its column. */
  column: string;
  /** Its table. */
  table: string;
  /** Its database. */
  database: string;
}

/** A column type class: what `register_column_types` returns. */
export interface ColumnTypeClass {
  /** The name configuration uses. */
  readonly type_name: string;
  /** One line for people. */
  readonly description: string;
  /** SQLite column types it may be given to (`TEXT`...), or null for any. */
  readonly sqlite_types: readonly string[] | null;
  /** A type for one column, with the options configuration gave it. */
  new (config?: Record<string, unknown>): ColumnType;
}

/** The base of every column type; each method answers null (or the value) to change nothing. */
export class ColumnType {
  /** The name configuration uses; subclasses set it. */
  static readonly type_name: string = "";
  /** One line for people. */
  static readonly description: string = "";
  /** SQLite column types it may be given to, or null for any. */
  static readonly sqlite_types: readonly string[] | null = null;
  /** The options configuration gave (`{"type": "url", "config": {...}}`), else `{}`. */
  readonly config: Record<string, unknown>;

  /** A type for one column, with the options configuration gave. */
  constructor(config: Record<string, unknown> = {}) {
    this.config = config;
  }

  /** HTML (a `Markup`) or text for the cell; null keeps the default rendering. */
  render_cell(_args: CellArgs): unknown {
    return null;
  }

  /** An error message when `value` is not acceptable, else null. */
  validate(_args: ValueArgs): string | null | Promise<string | null> {
    return null;
  }

  /** The value to store for `value` (after it validated). */
  transform_value(args: ValueArgs): unknown {
    return args.value;
  }
}

/** `url`: text that must be an http(s) URL; shown as a link. */
export class UrlType extends ColumnType {
  static override readonly type_name: string = "url";
  static override readonly description: string = "A web address, shown as a link";
  static override readonly sqlite_types: readonly string[] | null = ["TEXT"];
  override validate({ value }: ValueArgs): string | null {
    if (value === null || value === undefined || value === "") return null;
    return typeof value === "string" && /^https?:\/\/\S+$/i.test(value)
      ? null
      : "Must be a URL starting with http:// or https://";
  }
}

/** `email`: text that must look like an email address. */
export class EmailType extends ColumnType {
  static override readonly type_name: string = "email";
  static override readonly description = "An email address";
  static override readonly sqlite_types = ["TEXT"];
  override validate({ value }: ValueArgs): string | null {
    if (value === null || value === undefined || value === "") return null;
    return typeof value === "string" && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)
      ? null
      : "Must be an email address";
  }
}

/** `json`: text that must parse as JSON. */
export class JsonType extends ColumnType {
  static override readonly type_name: string = "json";
  static override readonly description = "JSON text";
  static override readonly sqlite_types = ["TEXT"];
  override validate({ value }: ValueArgs): string | null {
    if (value === null || value === undefined || typeof value !== "string") return null;
    try {
      JSON.parse(value);
      return null;
    } catch {
      return "Must be valid JSON";
    }
  }
}

/** `textarea`: long text (editing widgets show a text area); no rule on values. */
export class TextareaType extends ColumnType {
  static override readonly type_name: string = "textarea";
  static override readonly description = "Long text";
  static override readonly sqlite_types = ["TEXT"];
}

/** `markdown`: text shown as Markdown (escaped first, so no HTML in the text reaches the page). */
export class MarkdownType extends ColumnType {
  static override readonly type_name: string = "markdown";
  static override readonly description = "Markdown text, shown formatted";
  static override readonly sqlite_types = ["TEXT"];
  override render_cell({ value }: CellArgs): unknown {
    if (typeof value !== "string" || value === "") return null;
    return new Markup(`<div class="markdown">${markdownToHtml(value)}</div>`);
  }
}

/** `date`: an ISO 8601 calendar date, `YYYY-MM-DD`. */
export class DateType extends ColumnType {
  static override readonly type_name: string = "date";
  static override readonly description = "A date, YYYY-MM-DD";
  static override readonly sqlite_types = ["TEXT"];
  override validate({ value }: ValueArgs): string | null {
    if (value === null || value === undefined || value === "") return null;
    return typeof value === "string" && isIsoDate(value)
      ? null
      : "Must be a date in the form YYYY-MM-DD";
  }
}

/** `datetime`: an ISO 8601 date and time, `YYYY-MM-DDTHH:MM[:SS[.fff]]` with an optional zone. */
export class DateTimeType extends ColumnType {
  static override readonly type_name: string = "datetime";
  static override readonly description = "A date and time, ISO 8601";
  static override readonly sqlite_types = ["TEXT"];
  override validate({ value }: ValueArgs): string | null {
    if (value === null || value === undefined || value === "") return null;
    return typeof value === "string" && isIsoDateTime(value)
      ? null
      : "Must be an ISO 8601 date and time, such as 2024-05-01T13:45:00";
  }
}

/** `image`: the http(s) URL of an image, shown as a lazily loaded thumbnail that links to it. */
export class ImageType extends UrlType {
  static override readonly type_name: string = "image";
  static override readonly description = "The URL of an image, shown as a thumbnail";
  override render_cell({ value, column, request }: CellArgs): unknown {
    if (typeof value !== "string" || !/^https?:\/\/\S+$/i.test(value)) return null;
    // The page's Content-Security-Policy loads images from its own origin only, unless told.
    if (request) allowCspSource(request, "img-src", value);
    const url = escapeHtml(value);
    return new Markup(
      `<a href="${url}" class="image-cell"><img src="${url}" alt="${escapeHtml(column)} image" ` +
        `loading="lazy" width="96" style="max-height: 96px; object-fit: contain"></a>`,
    );
  }
}

/** The built-in types: the reference's four and Vitrine's markdown, date, datetime and image. */
export const CORE_COLUMN_TYPES: readonly ColumnTypeClass[] = [
  UrlType,
  EmailType,
  JsonType,
  TextareaType,
  MarkdownType,
  DateType,
  DateTimeType,
  ImageType,
];

/** Registered column types by name. */
export class ColumnTypeRegistry {
  readonly #byName = new Map<string, ColumnTypeClass>();

  /** Adds a class; a second class with the same name is an error naming both. */
  register(type: ColumnTypeClass): void {
    if (typeof type !== "function" || !(type.prototype instanceof ColumnType)) {
      throw new TypeError("register_column_types must return ColumnType subclasses");
    }
    if (!type.type_name) throw new TypeError(`${type.name} has no static type_name`);
    const taken = this.#byName.get(type.type_name);
    if (taken && taken !== type) {
      throw new Error(`Duplicate column type "${type.type_name}" (${taken.name}, ${type.name})`);
    }
    this.#byName.set(type.type_name, type);
  }

  /** The class named `name`, or undefined. */
  find(name: string): ColumnTypeClass | undefined {
    return this.#byName.get(name);
  }

  /** Every class, in registration order. */
  all(): ColumnTypeClass[] {
    return [...this.#byName.values()];
  }

  /**
   * The column types of one table from its configuration block (`column_types`): column →
   * instance. An unknown type name is an error naming the table and column.
   */
  forTable(
    tableConfig: Record<string, unknown> | null | undefined,
    where: string,
  ): Map<string, ColumnType> {
    const types = new Map<string, ColumnType>();
    const configured = tableConfig?.column_types;
    if (!configured || typeof configured !== "object") return types;
    for (const [column, spec] of Object.entries(configured as Record<string, unknown>)) {
      const name = typeof spec === "string" ? spec : (spec as { type?: unknown })?.type;
      const config = typeof spec === "object" && spec !== null
        ? (spec as { config?: Record<string, unknown> }).config ?? {}
        : {};
      const type = typeof name === "string" ? this.find(name) : undefined;
      if (!type) {
        throw new Error(
          `Unknown column type ${JSON.stringify(name)} for column "${column}" of ${where}`,
        );
      }
      types.set(column, new type(config));
    }
    return types;
  }
}
