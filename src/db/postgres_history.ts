/**
 * The history of Vitrine's row writes on PostgreSQL, where there is no preupdate hook: the row
 * writes themselves (`postgres_writes.ts`) know each row they change — its image before, read
 * with `SELECT … FOR UPDATE` in the write's transaction (or by `DELETE … RETURNING`), and after,
 * by `RETURNING *` — and note them here. As on SQLite (`history/capture.ts`), a request's changes
 * are summed up per row: its values before its first change and after its last, nothing for a
 * row changed and changed back, and a row whose key changed is two changes (the old key deleted,
 * the new one inserted). Values are kept as history keeps SQLite's (`history/values.ts`): a
 * `real`/`double precision` `12` is `12.0`; generated columns are left out. Rows of a table without a primary key are not noted:
 * PostgreSQL has no rowid to find them again by.
 *
 * @module
 */

import type { SqlValue } from "../sqlite/values.ts";
import { cellJson } from "../util/json_rows.ts";
import type { ChangeRecord } from "./history/capture.ts";
import { type HistoryRow, rowJson } from "./history/values.ts";
import type { PgColumn, PgRun, PgRunResult } from "./postgres_connection.ts";

/** PostgreSQL's `real` and `double precision` OIDs: their whole numbers are written `12.0`. */
const FLOAT_TYPES = new Set([700, 701]);

/** One row as a statement read it: its values and the statement's columns. */
export interface PgImage {
  row: SqlValue[];
  columns: PgColumn[];
}

/** The first row `result` gave, or null. */
export function firstImage(result: PgRunResult): PgImage | null {
  return result.values.length ? { row: result.values[0], columns: result.columns } : null;
}

/** The image as history keeps a row: `[column, cell]` pairs, in column order. */
export function historyRow(image: PgImage): HistoryRow {
  return image.columns.map((column, i) => [column.name, {
    value: image.row[i] ?? null,
    real: FLOAT_TYPES.has(column.type),
  }]);
}

/** JSON array text of the image's `pks` values, as history keys a row. */
function keyJson(row: HistoryRow, pks: readonly string[]): string {
  const cells = pks.map((pk) => row.find(([name]) => name === pk)?.[1]);
  return `[${cells.map((cell) => cellJson(cell?.value ?? null, cell?.real ?? false, false))}]`;
}

/** A row's change as noted: its images as history rows (null: absent). */
interface Noted {
  table: string;
  pks: string;
  before: HistoryRow | null;
  after: HistoryRow | null;
}

/** The rows one write changed, summed up per row. */
export class PgChangeLog {
  readonly #rows = new Map<string, Noted>();

  /**
   * Notes that a row of `table` (keyed by `pks`) went from `before` to `after` (null: it was
   * not there, or is gone).
   */
  change(
    table: string,
    pks: readonly string[],
    before: PgImage | null,
    after: PgImage | null,
  ): void {
    if (!pks.length) return;
    const old = before && historyRow(before);
    const now = after && historyRow(after);
    const oldKey = old && keyJson(old, pks);
    const newKey = now && keyJson(now, pks);
    if (oldKey !== null && newKey !== null && oldKey !== newKey) {
      this.#note(table, oldKey, old, null);
      this.#note(table, newKey, null, now);
      return;
    }
    const key = oldKey ?? newKey;
    if (key === null) return;
    this.#note(table, key, old, now);
  }

  #note(table: string, pks: string, before: HistoryRow | null, after: HistoryRow | null): void {
    const id = `${table}\u0000${pks}`;
    const seen = this.#rows.get(id);
    if (seen) {
      seen.after = after;
      return;
    }
    this.#rows.set(id, { table, pks, before, after });
  }

  /**
   * The changes, in the order their rows were first changed, without the columns `generated`
   * names for their table (the server computes them: history leaves them out, as on SQLite);
   * rows left as they were are left out.
   */
  async records(
    generated: (table: string) => Promise<ReadonlySet<string>>,
  ): Promise<ChangeRecord[]> {
    const skipped = new Map<string, ReadonlySet<string>>();
    const records: ChangeRecord[] = [];
    for (const { table, pks, before, after } of this.#rows.values()) {
      if (!skipped.has(table)) skipped.set(table, await generated(table));
      const kept = (row: HistoryRow | null) =>
        row && rowJson(row.filter(([name]) => !skipped.get(table)!.has(name)));
      const beforeText = kept(before);
      const afterText = kept(after);
      if (beforeText === afterText) continue;
      const operation = beforeText === null ? "insert" : afterText === null ? "delete" : "update";
      records.push({ table, pks, operation, before: beforeText, after: afterText });
    }
    return records;
  }
}

/** The generated columns of `table` (read in the write's transaction). */
export async function generatedColumns(
  run: PgRun,
  tableName: string,
): Promise<ReadonlySet<string>> {
  const result = await run(
    `select attname::text from pg_attribute
    where attrelid = to_regclass($1) and attnum > 0 and not attisdropped and attgenerated <> ''`,
    [tableName],
  );
  return new Set(result.values.map(([name]) => String(name)));
}
