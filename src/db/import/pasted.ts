/**
 * Example rows pasted into the create-table page (or sent to `/<db>/-/create` as `"csv"`): CSV
 * or TSV text with a header row (JSON too), read by the importer's own parsers, each column typed
 * as the importer types a new table's columns (INTEGER, FLOAT or TEXT from what its values need)
 * and each value stored as the importer stores it, so pasting gives the table an import would.
 *
 * @module
 */

import { openSource } from "./open_source.ts";
import { ImportError } from "./import_error.ts";
import {
  type ImportColumnType,
  type ImportType,
  kindOfText,
  kindOfValue,
  storedText,
  TEMPORAL_OTHER,
  temporalColumnType,
  temporalOf,
  typeOfKind,
  type ValueKind,
} from "./column_types.ts";

/**
 * The pasted table: its columns with their inferred types (and the `date` or `datetime` column
 * type of a TEXT column of ISO dates, as an import gives it), and its rows by column name.
 */
export interface PastedTable {
  columns: { name: string; type: ImportType; column_type: ImportColumnType | null }[];
  rows: Record<string, unknown>[];
}

/** Reads pasted `text`; more than `maxRows` rows, a ragged row or no header is an ImportError. */
export async function readPasted(text: string, maxRows: number): Promise<PastedTable> {
  if (!text.trim()) throw new ImportError("Nothing was pasted: give a header row and rows");
  async function* oneChunk() {
    yield new TextEncoder().encode(text);
  }
  // Empty fields are NULL, as the upload panel sends them; "" is no value in a spreadsheet.
  const source = await openSource(oneChunk(), { encoding: "utf-8", emptyAsNull: true });
  const records: unknown[][] = [];
  for await (const batch of source.batches()) {
    for (const record of batch) {
      if (records.length === maxRows) {
        throw new ImportError(`At most ${maxRows} rows can be pasted; import bigger files`);
      }
      records.push(record.values);
    }
  }
  const names = [...source.columns];
  const kindOf = source.typed ? kindOfValue : (value: unknown) => kindOfText(value as string);
  const kinds = names.map((_, i) =>
    records.reduce<ValueKind>((widest, values) => {
      const kind = kindOf(values[i] ?? null);
      return kind > widest ? kind : widest;
    }, 0)
  );
  const columns = names.map((name, i) => {
    const type = typeOfKind(kinds[i]);
    return { name, type, column_type: type === "TEXT" ? temporalType(records, i) : null };
  });
  const rows = records.map((values) =>
    Object.fromEntries(names.map((name, i) => {
      const value = values[i] ?? null;
      if (source.typed || value === null) return [name, value];
      return [name, storedText(value as string, kindOfText(value as string), columns[i].type)];
    }))
  );
  return { columns, rows };
}

/** The column type of the text column `i` of `records`, as `temporalColumnType` tells it. */
function temporalType(records: unknown[][], i: number): ImportColumnType | null {
  let bits = 0;
  for (const values of records) {
    const value = values[i];
    if (value === null || value === undefined || value === "") continue;
    bits |= typeof value === "string" ? temporalOf(value) : TEMPORAL_OTHER;
    if (bits & TEMPORAL_OTHER) return null;
  }
  return temporalColumnType(bits);
}
