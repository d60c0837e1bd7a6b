/**
 * What a person or a client sends to store or change a query, checked in one place: the JSON
 * API's `{"query": {...}}` / `{"update": {...}}` and the HTML forms both end here, so both give
 * the same answers to the same mistakes (400 with a readable message).
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import type { StoredQueryFields } from "../../db/stored_queries.ts";
import { BadRequest } from "../../http/errors.ts";
import { InvalidSql, validateSqlSelect } from "../../util/sql.ts";
import { ensureSqlTablesVisible } from "../../auth/sql_access.ts";
import { cannedQueryFor } from "../../config/canned_query_catalog.ts";
import { queryParameters } from "./query_params.ts";

/** Keys a new query may have (the reference's, plus `shared_with`). */
export const CREATE_KEYS = [
  "name",
  "sql",
  "title",
  "description",
  "description_html",
  "hide_sql",
  "fragment",
  "parameters",
  "is_private",
  "shared_with",
] as const;

/** Keys an update may change: everything but the name. */
export const UPDATE_KEYS = CREATE_KEYS.filter((key) => key !== "name");

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,99}$/;

/** 400 `Invalid keys: …` for keys outside `valid`. */
export function rejectUnknown(data: Record<string, unknown>, valid: readonly string[]): void {
  const unknown = Object.keys(data).filter((key) => !valid.includes(key)).sort();
  if (unknown.length) throw new BadRequest(`Invalid keys: ${unknown.join(", ")}`);
}

/** A checked name for a new query in `db`: free among tables, views, canned and stored queries. */
export async function checkNewName(
  svc: ViewHost,
  request: Request,
  db: Database,
  name: unknown,
): Promise<string> {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new BadRequest(
      "Query name must be 1-100 letters, digits, _ or -, and not start with -",
    );
  }
  if (await db.table_exists(name) || await db.view_exists(name)) {
    throw new BadRequest(`Query name "${name}" is taken by a table or view`);
  }
  if (await cannedQueryFor(svc, db.name, name, request.actor ?? null)) {
    throw new BadRequest(`Query name "${name}" is taken by a canned query`);
  }
  if (await svc.stored_queries.get(db.name, name)) {
    throw new BadRequest("Query already exists");
  }
  return name;
}

/**
 * The stored fields from `data`, over `base` (the existing query for an update, defaults for a
 * new one). SQL must be a read-only SELECT over tables the actor may see.
 */
export async function storedFields(
  svc: ViewHost,
  request: Request,
  db: Database,
  data: Record<string, unknown>,
  base: StoredQueryFields,
): Promise<StoredQueryFields> {
  const fields = { ...base };
  if ("sql" in data) {
    if (typeof data.sql !== "string" || !data.sql.trim()) {
      throw new BadRequest("sql is required");
    }
    const sql = data.sql.trim();
    try {
      validateSqlSelect(sql);
    } catch (error) {
      if (error instanceof InvalidSql) {
        throw new BadRequest(`Stored queries must be read-only: ${error.message}`);
      }
      throw error;
    }
    await ensureSqlTablesVisible(svc, request.actor, db, sql);
    fields.sql = sql;
    if (!("parameters" in data)) fields.parameters = queryParameters(sql).form;
  }
  for (const key of ["title", "description", "description_html", "fragment"] as const) {
    if (!(key in data)) continue;
    const value = data[key];
    if (value !== null && typeof value !== "string") throw new BadRequest(`${key} must be text`);
    fields[key] = value === "" ? null : value as string | null;
  }
  if ("hide_sql" in data) fields.hide_sql = asBoolean(data.hide_sql, "hide_sql");
  if ("is_private" in data) fields.is_private = asBoolean(data.is_private, "is_private");
  if ("shared_with" in data) fields.shared_with = actorIds(data.shared_with);
  if ("parameters" in data) {
    fields.parameters = parameterList(data.parameters);
    // Choices read by SQL are read-only queries over tables the actor may see, like the query.
    for (const entry of fields.parameters) {
      const sql = (entry as Record<string, unknown>)?.options_sql;
      if (sql === undefined || sql === null) continue;
      if (typeof sql !== "string") throw new BadRequest("options_sql must be text");
      try {
        validateSqlSelect(sql);
      } catch (error) {
        if (error instanceof InvalidSql) throw new BadRequest(`options_sql: ${error.message}`);
        throw error;
      }
      await ensureSqlTablesVisible(svc, request.actor, db, sql);
    }
  }
  return fields;
}

/** Defaults of a new query: private to its owner, as in the reference. */
export function newQueryFields(): StoredQueryFields {
  return {
    sql: "",
    title: null,
    description: null,
    description_html: null,
    hide_sql: false,
    fragment: null,
    parameters: [],
    is_private: true,
    shared_with: [],
  };
}

function asBoolean(value: unknown, key: string): boolean {
  if (typeof value === "boolean") return value;
  if (value === 0 || value === 1) return value === 1;
  if (typeof value === "string" && /^(1|0|true|false|on|off|)$/i.test(value)) {
    return /^(1|true|on)$/i.test(value);
  }
  throw new BadRequest(`${key} must be true or false`);
}

/** `["alice", "bob"]`, or the form's `alice, bob`. */
function actorIds(value: unknown): string[] {
  const list = typeof value === "string" ? value.split(/[\s,]+/) : value;
  if (!Array.isArray(list) || list.some((id) => typeof id !== "string" && typeof id !== "number")) {
    throw new BadRequest("shared_with must be a list of actor ids");
  }
  return [...new Set(list.map(String).map((id) => id.trim()).filter(Boolean))];
}

/** Parameter names, or objects with a `name` (defaults, options and types, see docs). */
function parameterList(value: unknown): unknown[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw new BadRequest("parameters must be a list");
  for (const entry of value) {
    const name = typeof entry === "string"
      ? entry
      : (entry && typeof entry === "object" ? (entry as Record<string, unknown>).name : null);
    if (typeof name !== "string" || !name) {
      throw new BadRequest("Each parameter must be a name or an object with a name");
    }
  }
  return value;
}
