/**
 * The npm `postgres` driver as `PostgresDatabase` uses it: the options its pool is made with
 * (time zone, date style, search path, timeouts, Vitrine's type parsers), the lazy import of the
 * driver, and the query options that keep one call to one statement. Apart from the database
 * class so that how Vitrine talks to the driver is read in one place.
 *
 * @module
 */

import type postgres from "postgres";
import { PG_TYPES } from "./postgres_values.ts";
import type { PgTarget } from "./postgres_url.ts";

/** The driver's pool (or one transaction of it: `begin` hands the same interface). */
export type Sql = ReturnType<typeof postgres>;
// The last overload is `(url, options)`: its second parameter is the options object.
/** The options the driver's pool is made with. */
export type PgClientOptions = NonNullable<Parameters<typeof postgres>[1]>;
/** A query the driver has started (it can be cancelled, or read through a cursor). */
// deno-lint-ignore no-explicit-any
export type PendingQuery = any;

/**
 * Always the extended protocol: the driver would use the simple one for a query without
 * parameters, which runs several `;`-separated statements (`select 1; commit; delete …`).
 */
export const ONE_STATEMENT = { prepare: false, simple: false } as Record<string, boolean>;

/**
 * The pool's options for `target`, serving `schemas`, at most `max` connections. The URL goes to
 * the driver too, for its query options (`?sslmode=require`, `?max=10`, `?connect_timeout=…`);
 * what Vitrine resolved (the .pgpass password…) is given beside it, and a setting the URL names
 * is not overridden.
 */
export function pgClientOptions(
  target: PgTarget,
  schemas: readonly string[],
  max: number | undefined,
): PgClientOptions {
  const query = new URL(target.url.replace(/^[a-z]+:/i, "http:")).searchParams;
  return {
    host: target.host,
    port: target.port,
    database: target.database,
    username: target.user,
    password: target.password ?? undefined,
    ...(query.has("max") ? {} : { max: max ?? 5 }),
    ...(query.has("idle_timeout") ? {} : { idle_timeout: 30 }),
    ...(query.has("connect_timeout") ? {} : { connect_timeout: 10 }),
    prepare: false,
    onnotice: () => {},
    types: PG_TYPES,
    connection: {
      application_name: "vitrine",
      DateStyle: "ISO",
      TimeZone: "UTC",
      IntervalStyle: "iso_8601",
      search_path: schemas.map((s) => `"${s.replaceAll('"', '""')}"`).join(","),
    },
  };
}

/**
 * The driver's pool. The driver is imported here, not at the top, so that serving SQLite alone
 * (or importing `mod.ts` with an import map that has only SQLite's dependencies) never loads it.
 */
export async function connectPg(url: string, options: PgClientOptions): Promise<Sql> {
  const { default: connect } = await import("postgres");
  return connect(url, options);
}
