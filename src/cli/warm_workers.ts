/**
 * Before a server listens, its base read workers open their connections to the databases served
 * and run a query each, as its templates are compiled and its workers started
 * (`serve.ts`): apart so that a test can run it on a service of its own.
 *
 * @module
 */

import type { Service } from "../service.ts";

/** Databases whose connections are opened before listening (a library may hold thousands). */
const WARMED_DATABASES = 8;

/**
 * Has every base read worker open its connection to the first databases served and run a query
 * on it: a fresh server's first burst paid for opening them (the schema read, the worker's query
 * code compiling) inside its first answers. Sixteen clients asking a 12 ms query at once of a
 * server just started got their last answer after 183–259 ms (median of eight servers 249 ms),
 * 161–263 ms with this (171 ms); the reference's after 204–215 ms (bench/honest_load.ts). One
 * query per worker at once, so each worker takes one; a failure is left to the first request.
 */
export async function warmReadWorkers(svc: Service): Promise<void> {
  const pool = svc.readPool();
  const files = [...svc.databases.values()]
    .filter((db) => db.engine === "sqlite" && !db.is_memory)
    .slice(0, WARMED_DATABASES);
  for (const db of files) {
    await Promise.all(
      Array.from(
        { length: pool.size },
        (_, i) =>
          db.execute(`select ${i} from sqlite_master limit 1`, null, {
            request_deadline: false,
            log_sql_errors: false,
          }).catch(() => {}),
      ),
    );
  }
}
