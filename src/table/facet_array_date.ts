/**
 * Array facets (values inside JSON arrays, `_facet_array=`) and date facets (`date(col)`,
 * `_facet_date=`). Both count through {@link Facet.countFacets}; only their SQL differs.
 *
 * @module
 */

import { Facet, facetValueText, positional, SUGGEST_CONSIDER } from "./facet_base.ts";
import type { FacetResult, FacetSuggestion } from "./facet_configs.ts";

/** Counts values inside JSON-array columns; each row counts once per distinct value. */
export class ArrayFacet extends Facet {
  static override type = "array";
  readonly type = "array";

  /**
   * Columns whose non-empty values are all JSON arrays of strings: among the first
   * {@link SUGGEST_CONSIDER} rows, one query counts every column's non-empty values that are JSON
   * arrays and those that are not; a column of arrays only then has a sample of its values read.
   */
  suggest(): Promise<FacetSuggestion[]> {
    // Best effort: a timeout just means no suggestion.
    return this.suggestColumnsTogether(async (columns) => {
      const [row] = positional(
        await this.runSuggestSql(
          this.dialect.arrayKindCountsSql(this.sql, columns, SUGGEST_CONSIDER),
        ),
      );
      const verdicts: boolean[] = [];
      for (const [i, c] of columns.entries()) {
        const arraysOnly = Number(row[2 * i]) > 0 && Number(row[2 * i + 1]) === 0;
        verdicts.push(arraysOnly && await this.#stringArrays(c));
      }
      return verdicts;
    });
  }

  /** True when the first 100 non-empty arrays of the escaped column `c` hold strings only. */
  async #stringArrays(c: string): Promise<boolean> {
    const sample = await this.runSuggestSql(this.dialect.arraySampleSql(this.sql, c));
    const values = positional(sample).map((row) => row[0]);
    return values.length > 0 && values.every(isJsonArrayOfStrings);
  }

  /** `[results, timed_out]` for every requested array facet. */
  facet_results(): Promise<[FacetResult[], string[]]> {
    return this.countFacets({
      sql: (c, limit) => this.dialect.arrayFacetSql(this.sql, c, limit),
      key: (column) => `${column}__arraycontains`,
      // Items are reported as text (Python's str()), as the reference does.
      value: (raw) => [facetValueText(raw), facetValueText(raw)],
    });
  }
}

function isJsonArrayOfStrings(text: unknown): boolean {
  try {
    const parsed = JSON.parse(String(text));
    return Array.isArray(parsed) && parsed.every((item) => typeof item === "string");
  } catch {
    return false;
  }
}

/** Counts rows per calendar day of a date or datetime column. */
export class DateFacet extends Facet {
  static override type = "date";
  readonly type = "date";

  /** Columns where some of the first 100 values look like `YYYY-MM-…`: one query for all. */
  suggest(): Promise<FacetSuggestion[]> {
    // Best effort, as for array suggestions.
    return this.suggestColumnsTogether(async (columns) => {
      const [row] = positional(
        await this.runSuggestSql(this.dialect.dateSuggestSql(this.sql, columns)),
      );
      return columns.map((_, i) => Number(row[i]) === 1);
    });
  }

  /** `[results, timed_out]` for every requested date facet. */
  facet_results(): Promise<[FacetResult[], string[]]> {
    return this.countFacets({
      sql: (c, limit) => this.dialect.dateFacetSql(this.sql, c, limit),
      key: (column) => `${column}__date`,
    });
  }
}
