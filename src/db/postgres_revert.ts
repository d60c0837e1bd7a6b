/**
 * Undoing recorded changes on a PostgreSQL database, inside the caller's transaction, with the
 * rules `history/revert.ts` applies on SQLite: newest first, each only if its row is still as the
 * change left it — read `FOR UPDATE`, so nobody changes it between the check and the write — its
 * recorded columns equal to the change's "after" (or, for a delete, no row holding its key
 * again). Otherwise `RevertConflict` (409) names the change and why, and the caller's transaction
 * rolls back. Generated columns are never written back (the server computes them).
 *
 * @module
 */

import type { SqlValue } from "../sqlite/values.ts";
import type { SqlDialect } from "./dialect.ts";
import { RevertConflict } from "./history/revert.ts";
import type { RawEntry } from "./history/store.ts";
import { type HistoryRow, parseRow, rowJson } from "./history/values.ts";
import type { PgRun } from "./postgres_connection.ts";
import { firstImage, historyRow, type PgImage } from "./postgres_history.ts";
import { pgParam } from "./postgres_values.ts";

/** Notes a row's images for the revert's own history. */
type Note = (table: string, pks: string[], before: PgImage | null, after: PgImage | null) => void;

/**
 * A table's columns: name, position in the primary key from 1 (0: none; `indkey` counts from 0),
 * generated or not.
 */
const COLUMNS_SQL = `
select a.attname::text,
       coalesce(array_position(i.indkey::int2[], a.attnum) + 1 - array_lower(i.indkey::int2[], 1),
         0)::int,
       a.attgenerated <> ''
from pg_attribute a
left join pg_index i on i.indrelid = a.attrelid and i.indisprimary
where a.attrelid = to_regclass($1) and a.attnum > 0 and not a.attisdropped
order by a.attnum`;

/** Reverts `entries` (oldest first, as read), newest first, through `run`. */
export async function revertPgChanges(
  run: PgRun,
  dialect: SqlDialect,
  entries: readonly RawEntry[],
  note: Note,
): Promise<void> {
  for (const entry of [...entries].reverse()) await revertOne(run, dialect, entry, note);
}

async function revertOne(run: PgRun, dialect: SqlDialect, entry: RawEntry, note: Note) {
  const label = `Change ${entry.id} (${entry.operation} of ${entry.table} row ${keyText(entry)})`;
  const table = dialect.tableName(entry.table);
  const columns = (await run(COLUMNS_SQL, [table])).values.map(([name, pk, generated]) => ({
    name: String(name),
    pk: Number(pk),
    generated: Number(generated) === 1,
  }));
  if (!columns.length) throw new RevertConflict(`${label} cannot be reverted: the table is gone`);
  const pks = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
  if (!pks.length) {
    throw new RevertConflict(`${label} cannot be reverted: the table has no primary key now`);
  }
  const before = entry.before === null ? null : parseRow(entry.before);
  const after = entry.after === null ? null : parseRow(entry.after);
  const recorded = (after ?? before)!.map(([name]) => name);
  const names = new Set(columns.map((c) => c.name));
  const missing = recorded.find((name) => !names.has(name));
  if (missing !== undefined) {
    throw new RevertConflict(
      `${label} cannot be reverted: the table's columns changed since (it has no column ${missing})`,
    );
  }
  const q = (name: string) => dialect.quoteIdentifier(name);
  const keyOf = (row: HistoryRow) =>
    pks.map((pk) => pgParam(row.find(([name]) => name === pk)?.[1].value ?? null));
  const where = (offset: number) => pks.map((pk, i) => `${q(pk)} = $${offset + i + 1}`);
  const key = keyOf((after ?? before)!);
  const current = firstImage(
    await run(`select * from ${table} where ${where(0).join(" and ")} for update`, key),
  );
  if (after !== null) {
    if (current === null) {
      throw new RevertConflict(`${label} cannot be reverted: the row was deleted since`);
    }
    const now = historyRow(current);
    const compared = recorded.map((name) => now.find(([column]) => column === name)!);
    if (rowJson(compared) !== entry.after) {
      throw new RevertConflict(
        `${label} cannot be reverted: the row changed since (its values are no longer the ` +
          `ones this change wrote)`,
      );
    }
  } else if (current !== null) {
    throw new RevertConflict(`${label} cannot be reverted: a row with its key exists again`);
  }
  if (before === null) {
    await run(`delete from ${table} where ${where(0).join(" and ")}`, key);
    note(entry.table, pks, current, null);
    return;
  }
  const generated = new Set(columns.filter((c) => c.generated).map((c) => c.name));
  const written = before.filter(([name]) => !generated.has(name));
  const values = written.map(([, cell]) => pgParam(cell.value as SqlValue));
  if (after === null) {
    const result = await run(
      `insert into ${table} (${written.map(([name]) => q(name)).join(", ")}) values (${
        written.map((_, i) => `$${i + 1}`).join(", ")
      }) returning *`,
      values,
    );
    note(entry.table, pks, null, firstImage(result));
    return;
  }
  const sets = written.map(([name], i) => `${q(name)} = $${i + 1}`);
  const result = await run(
    `update ${table} set ${sets.join(", ")} where ${where(written.length).join(" and ")} ` +
      `returning *`,
    [...values, ...key],
  );
  note(entry.table, pks, current, firstImage(result));
}

function keyText(entry: RawEntry): string {
  return (JSON.parse(entry.pks) as unknown[]).map(String).join(",");
}
