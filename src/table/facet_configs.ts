/**
 * What facets read and produce: the configs a page asks for (metadata `facets`, `_facet`,
 * `_facet_<type>`), grouped by facet type, and the shapes of results and suggestions.
 *
 * @module
 */

import { argPairs, type ArgsLike } from "./args.ts";

/** Table config keys facets read. */
export interface FacetConfig {
  /** Facets to show: column names or `{type: column}` objects. */
  facets?: (string | Record<string, unknown>)[];
  /** Values per facet, or `max`. */
  facet_size?: number | "max";
}

/** One value of a facet. */
export interface FacetValue {
  /** The value. */
  value: unknown;
  /** Its label (the foreign key's label, or the value). */
  label: unknown;
  /** Rows with this value. */
  count: number;
  /** Link that selects or deselects it. */
  toggle_url: string;
  /** True when selected. */
  selected: boolean;
}

/** One computed facet. */
export interface FacetResult {
  /** The facet's name (usually the column). */
  name: string;
  /** Facet kind: `column`, `date`, `array`... */
  type: string;
  /** True when it can be removed from the URL. */
  hideable: boolean;
  /** Link that removes it. */
  toggle_url: string;
  /** Its values. */
  results: FacetValue[];
  /** True when more values exist. */
  truncated: boolean;
}

/** One suggested facet. */
export interface FacetSuggestion {
  /** Column to facet by. */
  name: string;
  /** Facet kind, when not `column`. */
  type?: string;
  /** Link that adds it. */
  toggle_url: string;
}

/** A facet requested by metadata or by a `_facet*` argument. */
export interface FacetSource {
  /** Where the facet was asked for. */
  source: "metadata" | "request";
  /** The configuration as given. */
  config: { simple?: string; column?: string; [key: string]: unknown };
}

/**
 * Facet configs by type (`column`, `array`, `date`, plugin types): configured (metadata) facets
 * first, in their order, then the request's. A facet given twice with the same type and column —
 * typically `_facet=x` for a configured `x` — is kept once, as its first (configured) source.
 */
export function loadFacetConfigs(
  args: ArgsLike,
  config: FacetConfig = {},
): Map<string, FacetSource[]> {
  const byType = new Map<string, FacetSource[]>();
  const seen = new Set<string>();
  const add = (type: string, source: FacetSource) => {
    const column = facetColumn(source);
    const key = JSON.stringify([type, column || source.config]);
    if (seen.has(key)) return;
    seen.add(key);
    byType.set(type, [...(byType.get(type) ?? []), source]);
  };
  for (const entry of config.facets ?? []) {
    if (typeof entry === "string") {
      add("column", { source: "metadata", config: { simple: entry } });
    } else {
      const [type, value] = Object.entries(entry)[0] ?? [];
      if (!type) continue;
      const facetConfig = typeof value === "string"
        ? { simple: value }
        : value as FacetSource["config"];
      add(type, { source: "metadata", config: facetConfig });
    }
  }
  for (const [key, value] of argPairs(args)) {
    if (key !== "_facet" && !key.startsWith("_facet_")) continue;
    const type = key === "_facet" ? "column" : key.slice("_facet_".length);
    let facetConfig: FacetSource["config"] = { simple: value };
    if (value.startsWith("{")) {
      try {
        facetConfig = JSON.parse(value);
      } catch {
        // Not JSON: treat it as a column name like any other value.
      }
    }
    add(type, { source: "request", config: facetConfig });
  }
  return byType;
}

/** The column a facet config names (`{"simple": c}` or `{"column": c}`). */
export function facetColumn(source: FacetSource): string {
  return String(source.config.column ?? source.config.simple ?? "");
}
