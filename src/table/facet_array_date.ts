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

  /** Columns whose non-empty values are all JSON arrays of strings. */
  suggest(): Promise<FacetSuggestion[]> {
    // Best effort: a timeout just means no suggestion. A value that is not JSON counts as a kind
    // of its own (asked of SQLite's json_type, it would fail the query: an error on every page
    // of such a table, and errors are never cached).
    return this.suggestColumns(async (c) => {
      const types = await this.runSuggestSql(
        `select distinct case when json_valid(${c}) then json_type(${c}) else 'not json' end ` +
          `from (select * from (${this.sql}) limit ${SUGGEST_CONSIDER}) ` +
          `where ${c} is not null and ${c} != ''`,
      );
      const kinds = positional(types).map((row) => row[0]);
      if (!kinds.includes("array") || kinds.some((k) => k !== "array" && k !== null)) return false;
      const sample = await this.runSuggestSql(
        `select ${c} from (${this.sql}) where ${c} is not null and ${c} != '' ` +
          `and json_array_length(${c}) > 0 limit 100`,
      );
      const values = positional(sample).map((row) => row[0]);
      return values.length > 0 && values.every(isJsonArrayOfStrings);
    });
  }

  /** `[results, timed_out]` for every requested array facet. */
  facet_results(): Promise<[FacetResult[], string[]]> {
    return this.countFacets({
      // Distinct (row, item) pairs so an item repeated inside one array counts once. No CTE and
      // no name the outer query looks up in the user's columns.
      sql: (c, limit) =>
        `select facet_item as value, count(*) as count from (` +
        `select distinct item.value as facet_item, inner_rows.* ` +
        `from (${this.sql}) as inner_rows, json_each(inner_rows.${c}) as item ` +
        `where json_valid(inner_rows.${c})) ` +
        `group by 1 order by 2 desc, 1 limit ${limit}`,
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

  /** Columns where some of the first 100 values look like `YYYY-MM-…`. */
  suggest(): Promise<FacetSuggestion[]> {
    // Best effort, as for array suggestions.
    return this.suggestColumns(async (c) => {
      const result = await this.runSuggestSql(
        `select date(${c}) from (select * from (${this.sql}) limit 100) ` +
          `where ${c} glob '????-??-*'`,
      );
      return positional(result).some((row) => row[0]);
    });
  }

  /** `[results, timed_out]` for every requested date facet. */
  facet_results(): Promise<[FacetResult[], string[]]> {
    return this.countFacets({
      sql: (c, limit) =>
        `select date(${c}) as value, count(*) as count from (${this.sql}) ` +
        `where date(${c}) is not null group by 1 order by 2 desc, 1 limit ${limit}`,
      key: (column) => `${column}__date`,
    });
  }
}
