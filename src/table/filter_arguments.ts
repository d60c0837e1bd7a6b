/**
 * `FilterArguments` (SPEC "FilterArguments", what `filters_from_request` hooks return) and the
 * built-in `_where=` and `_through=` filters.
 *
 * @module
 */

import { type SqlDialect, sqliteDialect } from "../db/dialect.ts";
import { argList, argPairs, type ArgsLike } from "./args.ts";
import { TableArgsError } from "./errors.ts";
import { pathWithRemovedArgs } from "./url_args.ts";

/** Extra where clauses, params and descriptions contributed to a table query. */
export class FilterArguments {
  /** Joined with `and` into the table query; may use `:named` params. */
  where_clauses: string[];
  /** Values for the named params. */
  params: Record<string, unknown>;
  /** Shown in the page description and `<title>`. */
  human_descriptions: string[];
  /** Added to the `table.html` context. */
  extra_context: Record<string, unknown>;

  /** Mirrors the spec's positional-then-optional fields. */
  constructor(
    where_clauses: string[],
    params: Record<string, unknown> = {},
    human_descriptions: string[] = [],
    extra_context: Record<string, unknown> = {},
  ) {
    this.where_clauses = where_clauses;
    this.params = params;
    this.human_descriptions = human_descriptions;
    this.extra_context = extra_context;
  }
}

/** Plain-object form a plugin may return instead of the class. */
export interface FilterArgumentsLike {
  /** SQL conditions, joined with `and`. */
  where_clauses?: string[];
  /** Parameters they use. */
  params?: Record<string, unknown>;
  /** What they mean, for the page. */
  human_descriptions?: string[];
  /** More template context. */
  extra_context?: Record<string, unknown>;
}

/** Normalises a hook result (class instance or plain object) into {@link FilterArguments}. */
export function toFilterArguments(value: FilterArgumentsLike): FilterArguments {
  if (value instanceof FilterArguments) return value;
  return new FilterArguments(
    [...(value.where_clauses ?? [])],
    { ...(value.params ?? {}) },
    [...(value.human_descriptions ?? [])],
    { ...(value.extra_context ?? {}) },
  );
}

/** Folds several hook results into one, later params overriding earlier ones. */
export function mergeFilterArguments(parts: FilterArgumentsLike[]): FilterArguments {
  const merged = new FilterArguments([]);
  for (const part of parts.map(toFilterArguments)) {
    merged.where_clauses.push(...part.where_clauses);
    Object.assign(merged.params, part.params);
    merged.human_descriptions.push(...part.human_descriptions);
    Object.assign(merged.extra_context, part.extra_context);
  }
  return merged;
}

/**
 * `_where=` clauses, each in parentheses on lines of its own, so that it combines with the other
 * filters by `and` as documented: `_where=0 or 1` must not undo them, nor a trailing `--` comment
 * swallow the page's order and limit (the reference appends the text as it is). The caller
 * passes whether the actor may `execute-sql`; without it any `_where` is a 403 "_where= is not
 * allowed". `path` lets the UI offer a remove link per clause (`extra_context.extra_wheres_for_ui`).
 */
export function whereFilterArguments(
  args: ArgsLike,
  options: { allowed: boolean; path?: string },
): FilterArguments {
  const clauses = argList(args, "_where");
  if (clauses.length === 0) return new FilterArguments([]);
  if (!options.allowed) throw new TableArgsError("_where= is not allowed", 403);
  const current = argPairs(args);
  const extra_wheres_for_ui = clauses.map((text) => ({
    text,
    remove_url: pathWithRemovedArgs(options.path ?? "", current, { pairs: [["_where", text]] }),
  }));
  const grouped = clauses.map((clause) => `(\n${clause}\n)`);
  return new FilterArguments(grouped, {}, [], { extra_wheres_for_ui });
}

/** A foreign key as introspection reports it. */
export interface ForeignKey {
  column: string;
  other_table: string;
  other_column: string;
}

/**
 * `_through={"table": t, "column": c, "value": v}`: rows of `table` linked to `v` through the
 * many-to-many table `t`. `foreignKeysOf(t)` gives `t`'s outgoing foreign keys.
 */
export async function throughFilterArguments(
  args: ArgsLike,
  table: string,
  foreignKeysOf: (table: string) => ForeignKey[] | Promise<ForeignKey[]>,
  dialect: SqlDialect = sqliteDialect,
): Promise<FilterArguments> {
  const name = dialect.escapeIdentifier;
  const result = new FilterArguments([]);
  for (const [index, text] of argList(args, "_through").entries()) {
    let spec: { table?: unknown; column?: unknown; value?: unknown };
    try {
      spec = JSON.parse(text);
    } catch {
      throw new TableArgsError("Invalid _through - expected JSON");
    }
    if (typeof spec?.table !== "string" || typeof spec.column !== "string") {
      throw new TableArgsError("Invalid _through - expected table, column and value");
    }
    const link = (await foreignKeysOf(spec.table)).find((fk) => fk.other_table === table);
    if (!link) {
      throw new TableArgsError("Invalid _through - could not find corresponding foreign key");
    }
    // Own param names so they never collide with the filters' :pN.
    const param = `through_${index}`;
    result.where_clauses.push(
      `${name(link.other_column)} in (select ${name(link.column)} from ${
        dialect.tableName(spec.table)
      } where ${name(spec.column)} = :${param})`,
    );
    result.params[param] = spec.value;
    result.human_descriptions.push(`${spec.table}.${spec.column} = "${spec.value}"`);
  }
  return result;
}
