/**
 * An upload part appended to a table holds its values to the table's column types (`date`,
 * `email`, a plugin's own) as `/-/insert` does: a value its type refuses is a 400 naming the file's
 * line and the column, and no row of the part is written. The importer reads the part in the write
 * itself, where a plugin's asynchronous check cannot be awaited, so the part is read a first time
 * here, before the write, and only for a table that has column types. A type's `transform_value`
 * is not applied (the importer stores the file's values; the built-in types transform nothing).
 *
 * @module
 */

import type { ViewHost } from "../host.ts";
import { BadRequest } from "../../http/errors.ts";
import { CsvRecordReader } from "../../db/import/csv_records.ts";
import type { UploadPartOptions } from "../../db/import/upload_part.ts";
import { typedColumns } from "../typed_columns.ts";
import type { ColumnType } from "../../plugins/column_types.ts";

/** Text handed to the reader at a time, so a part's records never all wait in memory at once. */
const PIECE = 256 * 1024;

/**
 * Checks the part's values of typed columns, and of the columns whose `date` or `datetime` type
 * the upload panel's menu chose (`chosen`, by position: the file's columns). A new table has no
 * column types yet, and the later parts of one (`continue`) take the date types its first part
 * inferred away instead of refusing a value; a chosen one is held to from the first part on, as are
 * its other column types (set meanwhile), as on any table.
 */
export async function checkUploadTypes(
  svc: ViewHost,
  database: string,
  part: Omit<UploadPartOptions, "temporal">,
  chosen: readonly (string | null)[] = [],
): Promise<void> {
  const chosenTypes = new Map<number, ColumnType>();
  chosen.forEach((name, i) => {
    const Type = name === "date" || name === "datetime" ? svc.columnTypes.find(name) : undefined;
    if (Type) chosenTypes.set(i, new Type({}));
  });
  const types = part.create ? new Map() : await typedColumns(svc, database, part.table);
  if (part.continues) {
    for (const [column, assigned] of await svc.column_type_store.forTable(database, part.table)) {
      if (assigned?.type === "date" || assigned?.type === "datetime") types.delete(column);
    }
  }
  if (!types.size && !chosenTypes.size) return;
  const reader = new CsvRecordReader(
    { delimiter: part.delimiter, quote: '"' },
    true,
    { columns: part.columns ?? undefined, line: part.line },
  );
  const { table } = part;
  for (let at = 0; at < part.text.length + PIECE; at += PIECE) {
    const records = at < part.text.length
      ? reader.push(part.text.slice(at, at + PIECE))
      : reader.end();
    const checked = [
      ...[...types].map(([column, type]) => ({
        column,
        type,
        index: reader.columns.indexOf(column),
      })),
      ...[...chosenTypes].map(([index, type]) => ({
        column: reader.columns[index],
        type,
        index,
      })),
    ].filter(({ index }) => index >= 0 && index < reader.columns.length);
    for (const { line, values } of records) {
      for (const { column, type, index } of checked) {
        const value = values[index];
        // A field the row lacks is the importer's error to name (a ragged row).
        if (value === undefined) continue;
        const problem = await type.validate({ value, column, table, database });
        if (problem) {
          throw new BadRequest(`line ${line}: column ${column}: ${problem}`, { extra: { line } });
        }
      }
    }
  }
}
