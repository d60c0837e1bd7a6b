/**
 * Names the configuration gives that nothing served has: a database under `databases`, a table
 * under a served database's `tables`. Configuration for a misspelt name applies to nothing, and
 * silently: an `allow` meant to hide `court_cases` written under `court_casse` leaves the table
 * public. `vitrine serve` prints one warning per name at start (not an error: a data library's
 * databases come and go, and one configuration may serve several deployments).
 *
 * @module
 */

import type { Service } from "../service.ts";

/** One line per configured name that no served database or table has, with what is served. */
export async function unmatchedConfigNames(svc: Service): Promise<string[]> {
  const configured = svc.metadata().data.databases;
  if (!configured || typeof configured !== "object") return [];
  const served = [...svc.databases.keys()].filter((name) => name !== "_internal");
  const warnings: string[] = [];
  for (const [name, config] of Object.entries(configured as Record<string, unknown>)) {
    if (!svc.databases.has(name)) {
      warnings.push(
        `Warning: the configuration's databases.${name} matches no served database ` +
          `(served: ${served.join(", ") || "none"}); its settings apply to nothing`,
      );
      continue;
    }
    const tables = (config as { tables?: unknown } | null)?.tables;
    if (!tables || typeof tables !== "object") continue;
    const db = svc.get_database(name);
    let known: Set<string>;
    try {
      known = new Set([...await db.table_names(), ...await db.view_names()]);
    } catch {
      continue; // A database that cannot be read says so on its own pages.
    }
    for (const table of Object.keys(tables)) {
      if (known.has(table)) continue;
      warnings.push(
        `Warning: the configuration's databases.${name}.tables.${table} matches no table or ` +
          `view of ${name}; its settings apply to nothing`,
      );
    }
  }
  return warnings;
}
