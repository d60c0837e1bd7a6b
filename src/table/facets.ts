/**
 * Facets (API-DETAILS §2.7): the column facet, the built-in facet list, and running a set of
 * facets into `facet_results` / `suggested_facets`. `ArrayFacet` and `DateFacet` live in
 * `facet_array_date.ts`; the base class in `facet_base.ts`; configs and result shapes in
 * `facet_configs.ts`.
 *
 * @module
 */

import { argKeys, type ArgsLike, hasArg } from "./args.ts";
import { TableArgsError } from "./errors.ts";
import {
  Facet,
  type FacetOptions,
  isQueryInterrupted,
  positional,
  SUGGEST_CONSIDER,
} from "./facet_base.ts";
import {
  facetColumn,
  type FacetResult,
  type FacetSuggestion,
  loadFacetConfigs,
} from "./facet_configs.ts";
import { ArrayFacet, DateFacet } from "./facet_array_date.ts";

export { ArrayFacet, DateFacet, Facet };
export type { FacetOptions, FacetResult, FacetSuggestion };

/** Counts rows per distinct value of a column, with FK labels when available. */
export class ColumnFacet extends Facet {
  static override type = "column";
  readonly type = "column";

  /**
   * Columns with 2…facet-size distinct values, fewer than the rows, some repeated, among the
   * first {@link SUGGEST_CONSIDER} rows: one query counts, for every column, its distinct values
   * and its values (a value is repeated when there are fewer distinct values than values), and
   * the rows themselves unless known.
   */
  suggest(): Promise<FacetSuggestion[]> {
    const size = this.get_facet_size();
    const d = this.dialect;
    return this.suggestColumnsTogether(async (columns) => {
      const counts = columns.map((c) => `count(distinct ${d.distinctKey(c)}), count(${c})`)
        .join(", ");
      const considered = d.subquery(
        `select * from ${d.subquery(this.sql)} limit ${SUGGEST_CONSIDER}`,
        "considered",
      );
      const [row] = positional(
        await this.runSuggestSql(`select count(*), ${counts} from ${considered}`),
      );
      const rowCount = this.rowCount ?? Number(row[0]);
      return columns.map((_, i) => {
        const distinct = Number(row[1 + 2 * i]);
        const values = Number(row[2 + 2 * i]);
        return distinct > 1 && distinct <= size && distinct < rowCount && distinct < values;
      });
    }, isQueryInterrupted);
  }

  /** Column suggestions carry no `type`, as in the reference. */
  protected override suggestion(column: string): FacetSuggestion {
    return { name: column, toggle_url: this.suggestionUrl(column) };
  }

  /** `[results, timed_out]` for every requested column facet. */
  facet_results(): Promise<[FacetResult[], string[]]> {
    const expandLabels = this.table ? this.options.expandLabels : undefined;
    return this.countFacets({
      sql: (c, limit) =>
        `select ${c} as value, count(*) as count from ${this.dialect.subquery(this.sql)} ` +
        `where ${c} is not null group by 1 order by 2 desc, 1 limit ${limit}`,
      // A leading underscore would make `col=` look like a control argument.
      key: (column) => column.startsWith("_") ? `${column}__exact` : column,
      labels: expandLabels,
      value: (raw, labels) => [raw, labels.has(raw) ? labels.get(raw) : raw],
    });
  }
}

/** A facet class: `new FacetClass(options)`, with a static `type`. */
export type FacetClass = { type: string; new (options: FacetOptions): Facet };

/** Built-in facet kinds, in the order their suggestions are listed. */
export const DEFAULT_FACET_CLASSES: FacetClass[] = [ColumnFacet, DateFacet, ArrayFacet];

/** `facet_results` as the 1.0 JSON shows it. */
export interface FacetResults {
  results: Record<string, FacetResult>;
  timed_out: string[];
}

/** Runs every facet; a name seen twice becomes `name_2`, `name_3`, … */
export async function collectFacetResults(facets: Facet[]): Promise<FacetResults> {
  const results: Record<string, FacetResult> = {};
  const timed_out: string[] = [];
  for (const facet of facets) {
    const [facetResults, facetTimedOut] = await facet.facet_results();
    for (const result of facetResults) {
      let key = result.name;
      for (let i = 2; key in results; i++) key = `${result.name}_${i}`;
      results[key] = result;
    }
    timed_out.push(...facetTimedOut);
  }
  return { results, timed_out };
}

/** Every facet's suggestions, in facet-class order. */
export async function collectSuggestedFacets(facets: Facet[]): Promise<FacetSuggestion[]> {
  const suggestions: FacetSuggestion[] = [];
  for (const facet of facets) suggestions.push(...await facet.suggest());
  return suggestions;
}

/** Throws 400 "_facet= is not allowed" when `allow_facet` is off and a `_facet*` arg is given. */
export function checkFacetArgsAllowed(args: ArgsLike, allowFacet: boolean): void {
  if (allowFacet) return;
  if (argKeys(args).some((key) => key === "_facet" || key.startsWith("_facet_"))) {
    throw new TableArgsError("_facet= is not allowed");
  }
}

/** The facet kinds whose request arguments name a column of the table. */
const COLUMN_FACET_TYPES = ["column", "array", "date"];

/**
 * Throws a 400 when a built-in `_facet*` argument names no column of the table, so a hostile
 * or mistyped name is refused before it reaches SQL (where it would be an SQL error).
 */
export function checkFacetColumns(args: ArgsLike, columns: string[]): void {
  const sources = loadFacetConfigs(args);
  for (const type of COLUMN_FACET_TYPES) {
    for (const source of sources.get(type) ?? []) {
      const column = facetColumn(source);
      if (!columns.includes(column)) throw new TableArgsError(`Invalid facet column: ${column}`);
    }
  }
}

/** Whether to compute suggestions: not with `_next`, `_nofacet`, `_nosuggest`, or settings off. */
export function shouldSuggestFacets(
  args: ArgsLike,
  settings: { suggest_facets: boolean; allow_facet: boolean },
): boolean {
  if (!settings.suggest_facets || !settings.allow_facet) return false;
  if (hasArg(args, "_next")) return false;
  // Any non-blank value counts, as in the reference (`_nofacet=1`, `_nofacet=on`).
  return !args.get("_nofacet") && !args.get("_nosuggest");
}
