/**
 * What the parsers hand the importer: batches of records, each a line number and its values in
 * the order of the source's columns (which a JSON source may add to as new keys appear).
 *
 * @module
 */

/** One row of the file: the line it starts on and its values, one per known column. */
export interface SourceRecord {
  line: number;
  values: unknown[];
}

/** The file formats the importer reads. */
export type ImportFormat = "csv" | "tsv" | "json" | "ndjson";

/**
 * An open file being read: its columns so far and its records, a batch at a time (`Batch`: a CSV
 * file read by a worker gives its rows packed, `encoded_rows.ts`).
 */
export interface RecordSource<Batch = SourceRecord[]> {
  readonly format: ImportFormat;
  /** Column names so far: a CSV header's, or every key a JSON file has shown up to now. */
  readonly columns: string[];
  /** True when values already carry their types (JSON); false for CSV's text. */
  readonly typed: boolean;
  /** Bytes of the file read so far (for progress). */
  readonly bytesRead: number;
  /** The records, in batches of what one chunk of the file held. */
  batches(): AsyncGenerator<Batch>;
}

/**
 * Column names as SQLite can hold them: an empty name becomes `column_N`, and a name that
 * repeats an earlier one (without regard to case, as SQLite compares them) gets `_2`, `_3`…
 */
export function distinctColumnNames(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((raw, i) => {
    const base = raw.trim() || `column_${i + 1}`;
    let name = base;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}_${n}`;
    taken.add(name.toLowerCase());
    return name;
  });
}
