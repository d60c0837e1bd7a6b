/**
 * Foreign-key label expansion (API-DETAILS §2.8): which columns to expand, the lookup query,
 * `{value, label}` cells, CSV `<col>_label` columns and the `expandable_columns` extra.
 *
 * @module
 */

import { type SqlDialect, sqliteDialect } from "../db/dialect.ts";
import { argList, type ArgsLike, hasArg } from "./args.ts";
import { valueAsBoolean } from "../util/value_as_boolean.ts";
import type { ForeignKey } from "./filter_arguments.ts";

/** A foreign key and the label column of the table it points to (null when none). */
export type ExpandableColumn = [ForeignKey, string | null];

/** `expandable_columns`: each outgoing foreign key with its target's label column. */
export function expandableColumns(
  foreignKeys: ForeignKey[],
  labelColumnOf: (table: string) => string | null,
): ExpandableColumn[] {
  return foreignKeys.map((fk) => [fk, labelColumnOf(fk.other_table)]);
}

/**
 * FK columns to expand: `_label=col` (repeatable) picks them; otherwise `_labels=on` (or
 * `defaultLabels`, true on HTML pages, unless `_labels=off`) expands all. Only columns present
 * in `selectedColumns` are returned.
 */
export function columnsToExpand(
  args: ArgsLike,
  expandable: ExpandableColumn[],
  selectedColumns: string[],
  defaultLabels = false,
): string[] {
  const fkColumns = expandable.map(([fk]) => fk.column);
  let wanted: string[] = [];
  if (hasArg(args, "_label")) wanted = argList(args, "_label");
  else if (valueAsBoolean(args.get("_labels")) ?? defaultLabels) wanted = fkColumns;
  return fkColumns.filter((c) => wanted.includes(c) && selectedColumns.includes(c));
}

/** `select <other_column>, <label> from <other_table> where <other_column> in (?, …)`. */
export function labelLookupSql(
  fk: ForeignKey,
  labelColumn: string,
  values: unknown[],
  dialect: SqlDialect = sqliteDialect,
): { sql: string; params: unknown[] } {
  const distinct = [...new Set(values.filter((v) => v !== null && v !== undefined))];
  const placeholders = distinct.map(() => "?").join(", ");
  const name = dialect.escapeIdentifier;
  return {
    sql: `select ${name(fk.other_column)}, ${name(labelColumn)} ` +
      `from ${dialect.tableName(fk.other_table)} ` +
      `where ${name(fk.other_column)} in (${placeholders})`,
    params: distinct,
  };
}

/** Runs one query with positional params; rows are arrays. */
export type PositionalQuery = (
  sql: string,
  params: unknown[],
) => Promise<{ rows: ArrayLike<unknown>[]; values?: ArrayLike<unknown>[] }>;

/**
 * Labels for `values` of an FK column, keyed by raw value. Without a label column the label is
 * the value's text, as in the reference.
 */
export async function lookupLabels(
  run: PositionalQuery,
  fk: ForeignKey,
  labelColumn: string | null,
  values: unknown[],
  dialect: SqlDialect = sqliteDialect,
): Promise<Map<unknown, unknown>> {
  const labels = new Map<unknown, unknown>();
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.length === 0) return labels;
  if (!labelColumn) {
    for (const value of present) labels.set(value, String(value));
    return labels;
  }
  const query = labelLookupSql(fk, labelColumn, present, dialect);
  const result = await run(query.sql, query.params);
  for (const row of result.values ?? result.rows) labels.set(row[0], row[1]);
  return labels;
}

/** A cell after expansion: the raw value or `{value, label}`. */
export type LabeledCell = unknown | { value: unknown; label: unknown };

/** `{value, label}` when `labels` knows the (non-null) value, else the value itself. */
function labeledCell(value: unknown, labels: Map<unknown, unknown> | undefined): LabeledCell {
  return value !== null && labels?.has(value) ? { value, label: labels.get(value) } : value;
}

/**
 * Rows with every expanded column's non-null value replaced by `{value, label}` when a label was
 * found: rows as objects, or as arrays of cells in `columns` order (the JSON and CSV outputs).
 */
export function applyLabels(
  rows: Record<string, unknown>[],
  labelsByColumn: Map<string, Map<unknown, unknown>>,
): Record<string, LabeledCell>[];
export function applyLabels(
  rows: ArrayLike<unknown>[],
  labelsByColumn: Map<string, Map<unknown, unknown>>,
  columns: string[],
): LabeledCell[][];
export function applyLabels(
  rows: (Record<string, unknown> | ArrayLike<unknown>)[],
  labelsByColumn: Map<string, Map<unknown, unknown>>,
  columns?: string[],
): (Record<string, LabeledCell> | LabeledCell[])[] {
  if (columns) {
    const byIndex = columns.map((column) => labelsByColumn.get(column));
    return (rows as ArrayLike<unknown>[]).map((row) => {
      const out: LabeledCell[] = new Array(row.length);
      for (let i = 0; i < row.length; i++) out[i] = labeledCell(row[i], byIndex[i]);
      return out;
    });
  }
  return (rows as Record<string, unknown>[]).map((row) => {
    const out: Record<string, LabeledCell> = {};
    for (const [column, value] of Object.entries(row)) {
      out[column] = labeledCell(value, labelsByColumn.get(column));
    }
    return out;
  });
}

/** CSV headings with `<col>_label` after each expanded column. */
export function csvLabelHeadings(columns: string[], expanded: string[]): string[] {
  return columns.flatMap((c) => expanded.includes(c) ? [c, `${c}_label`] : [c]);
}

/**
 * One CSV row (cells in `columns` order) with value and label split for expanded columns; `text`
 * turns a value (not a label) into its field, e.g. a BLOB into its download URL.
 */
export function csvLabelRow(
  cells: LabeledCell[],
  columns: string[],
  expanded: string[],
  text: (value: unknown, column: string) => unknown = (value) => value,
): unknown[] {
  // A plain loop: CSV exports call this once per row.
  const fields: unknown[] = [];
  for (let i = 0; i < columns.length; i++) {
    const column = columns[i];
    const cell = cells[i];
    if (!expanded.includes(column)) fields.push(text(cell, column));
    else if (cell === null || cell === undefined) fields.push("", "");
    else if (typeof cell === "object" && "value" in (cell as object)) {
      const { value, label } = cell as { value: unknown; label: unknown };
      fields.push(text(value, column), label);
    } else fields.push(text(cell, column), "");
  }
  return fields;
}
