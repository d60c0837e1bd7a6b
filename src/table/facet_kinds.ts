/**
 * Array facets (values inside JSON arrays, `_facet_array=`) and date facets (`date(col)`,
 * `_facet_date=`).
 *
 * @module
 */

import {
  Facet,
  facetColumn,
  type FacetResult,
  type FacetSuggestion,
  facetValueText,
  isQueryInterrupted,
  SUGGEST_CONSIDER,
} from "./facet_base.ts";

/** Counts values inside JSON-array columns; each row counts once per distinct value. */
export class ArrayFacet extends Facet {
  static override type = "array";
  readonly type = "array";

  /** Columns whose non-empty values are all JSON arrays of strings. */
  async suggest(): Promise<FacetSuggestion[]> {
    const enabled = this.enabledColumns();
    const suggestions: FacetSuggestion[] = [];
    for (const column of await this.columns()) {
      if (enabled.includes(column)) continue;
      const c = this.col(column);
      try {
        const types = await this.runSuggestSql(
          `with limited as (select * from (${this.sql}) limit ${SUGGEST_CONSIDER}) ` +
            `select distinct json_type(${c}) from limited where ${c} is not null and ${c} != ''`,
        );
        const kinds = types.rows.map((row) => row[0]);
        if (!kinds.includes("array") || kinds.some((k) => k !== "array" && k !== null)) continue;
        const sample = await this.runSuggestSql(
          `select ${c} from (${this.sql}) where ${c} is not null and ${c} != '' ` +
            `and json_array_length(${c}) > 0 limit 100`,
        );
        const values = sample.rows.map((row) => row[0]);
        if (values.length && values.every(isJsonArrayOfStrings)) {
          suggestions.push({
            name: column,
            type: this.type,
            toggle_url: this.suggestionUrl(column),
          });
        }
      } catch {
        // Probes are best effort: a timeout or malformed JSON just means no suggestion.
      }
    }
    return suggestions;
  }

  /** `[results, timed_out]` for every requested array facet. */
  async facet_results(): Promise<[FacetResult[], string[]]> {
    const results: FacetResult[] = [];
    const timedOut: string[] = [];
    const size = this.get_facet_size();
    for (const source of this.get_configs()) {
      const column = facetColumn(source);
      const c = this.col(column);
      // Distinct (row, item) pairs so an item repeated inside one array counts once.
      const sql = `with inner_rows as (${this.sql}), ` +
        `items as (select distinct item.value as facet_item, inner_rows.* ` +
        `from inner_rows, json_each(inner_rows.${c}) as item where json_valid(inner_rows.${c})) ` +
        `select facet_item as value, count(*) as count from items ` +
        `group by facet_item order by count(*) desc, facet_item limit ${size + 1}`;
      try {
        const rows = (await this.runFacetSql(sql)).rows;
        const key = `${column}__arraycontains`;
        results.push({
          name: column,
          type: this.type,
          hideable: source.source !== "metadata",
          toggle_url: this.facetToggleUrl(column),
          results: rows.slice(0, size).map((row) => {
            const value = facetValueText(row[0]);
            const selected = this.isSelected(key, value);
            return {
              value,
              label: value,
              count: Number(row[1]),
              toggle_url: this.valueToggleUrl(key, value, selected),
              selected,
            };
          }),
          truncated: rows.length > size,
        });
      } catch (error) {
        if (!isQueryInterrupted(error)) throw error;
        timedOut.push(column);
      }
    }
    return [results, timedOut];
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
  async suggest(): Promise<FacetSuggestion[]> {
    const enabled = this.enabledColumns();
    const suggestions: FacetSuggestion[] = [];
    for (const column of await this.columns()) {
      if (enabled.includes(column)) continue;
      const c = this.col(column);
      try {
        const result = await this.runSuggestSql(
          `select date(${c}) from (select * from (${this.sql}) limit 100) ` +
            `where ${c} glob '????-??-*'`,
        );
        if (result.rows.some((row) => row[0])) {
          suggestions.push({
            name: column,
            type: this.type,
            toggle_url: this.suggestionUrl(column),
          });
        }
      } catch {
        // Best effort, as for array suggestions.
      }
    }
    return suggestions;
  }

  /** `[results, timed_out]` for every requested date facet. */
  async facet_results(): Promise<[FacetResult[], string[]]> {
    const results: FacetResult[] = [];
    const timedOut: string[] = [];
    const size = this.get_facet_size();
    for (const source of this.get_configs()) {
      const column = facetColumn(source);
      const c = this.col(column);
      const sql = `select date(${c}) as value, count(*) as count from (${this.sql}) ` +
        `where date(${c}) is not null group by date(${c}) ` +
        `order by count desc, value limit ${size + 1}`;
      try {
        const rows = (await this.runFacetSql(sql)).rows;
        const key = `${column}__date`;
        results.push({
          name: column,
          type: this.type,
          hideable: source.source !== "metadata",
          toggle_url: this.facetToggleUrl(column),
          results: rows.slice(0, size).map((row) => {
            const text = facetValueText(row[0]);
            const selected = this.isSelected(key, text);
            return {
              value: row[0],
              label: row[0],
              count: Number(row[1]),
              toggle_url: this.valueToggleUrl(key, text, selected),
              selected,
            };
          }),
          truncated: rows.length > size,
        });
      } catch (error) {
        if (!isQueryInterrupted(error)) throw error;
        timedOut.push(column);
      }
    }
    return [results, timedOut];
  }
}
