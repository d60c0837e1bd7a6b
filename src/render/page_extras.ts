/**
 * `_extra=` values that table, row and query pages share: `request` (what was asked),
 * `database_color` (the colour the pages give the database) and `column_details`.
 *
 * @module
 */

import type { Request } from "../http/request.ts";
import { md5Hex } from "../util/hash.ts";

/** `_extra=request`: the URL, path, host and every argument (each a list, in order). */
export function requestExtra(request: Request, args: URLSearchParams): Record<string, unknown> {
  return {
    url: request.url,
    path: request.path,
    full_path: request.full_path,
    host: request.host,
    args: Object.fromEntries([...args.keys()].map((k) => [k, args.getAll(k)])),
  };
}

/** A database's colour: the first six hex digits of its content hash, else of its name's MD5. */
export function databaseColor(db: { hash: string | null; name: string }): string {
  return (db.hash ?? md5Hex(db.name)).slice(0, 6);
}

/** SQLite's type affinity of a declared type (the rules of its "Determination of Affinity"). */
function affinity(declared: string): string {
  const type = declared.toUpperCase();
  if (type.includes("INT")) return "INTEGER";
  if (/CHAR|CLOB|TEXT/.test(type)) return "TEXT";
  if (type === "" || type.includes("BLOB")) return "BLOB";
  if (/REAL|FLOA|DOUB/.test(type)) return "REAL";
  return "NUMERIC";
}

/**
 * `_extra=column_details` as 1.0 answers it: by column name, the declared `type`, its
 * `sqlite_type` affinity, `notnull` and `is_pk` as booleans, the `default` expression,
 * `pk_position` (1-based, 0 outside the key) and `table_xinfo`'s `hidden`.
 */
export function columnDetailsExtra(
  details: Record<string, unknown>[],
  pks: string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const detail of details) {
    const name = String(detail.name);
    const type = String(detail.type ?? "");
    out[name] = {
      type,
      sqlite_type: affinity(type),
      notnull: Boolean(Number(detail.notnull)),
      default: detail.default_value ?? null,
      is_pk: pks.includes(name),
      pk_position: pks.indexOf(name) + 1,
      hidden: Number(detail.hidden ?? 0),
    };
  }
  return out;
}
