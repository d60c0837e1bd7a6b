/**
 * The small structural view of request arguments and settings that table query building needs,
 * so `MultiParams`, `URLSearchParams` and test doubles all fit.
 *
 * @module
 */

/** Query-string arguments: `MultiParams` (`getlist`) or `URLSearchParams` (`getAll`). */
export interface ArgsLike {
  /** First value for `key`, or null/undefined when absent. */
  get(key: string): string | null | undefined;
  /** Every value for `key` (MultiParams). */
  getlist?(key: string): string[];
  /** Every value for `key` (URLSearchParams). */
  getAll?(key: string): string[];
  /** Argument names; repeats are allowed and ignored. */
  keys(): Iterable<string>;
  /** `[key, value]` pairs in query-string order, when the source keeps it. */
  entries?(): Iterable<[string, string]>;
}

/** Every value given for `key`. */
export function argList(args: ArgsLike, key: string): string[] {
  if (args.getlist) return args.getlist(key);
  if (args.getAll) return args.getAll(key);
  const value = args.get(key);
  return value === null || value === undefined ? [] : [value];
}

/** True when `key` was given at all (even blank). */
export function hasArg(args: ArgsLike, key: string): boolean {
  return argKeys(args).includes(key);
}

/** Distinct argument names in first-seen order. */
export function argKeys(args: ArgsLike): string[] {
  return [...new Set(args.keys())];
}

/** `[key, value]` pairs in query-string order (grouped by key when the order is unknown). */
export function argPairs(args: ArgsLike): [string, string][] {
  if (args.entries) return [...args.entries()];
  return argKeys(args).flatMap((key) => argList(args, key).map((v): [string, string] => [key, v]));
}

/** Settings read by table query building; the §8 names and defaults. */
export interface TableSettings {
  /** Rows per page. */
  default_page_size: number;
  /** Most rows any query returns. */
  max_returned_rows: number;
  /** Values per facet. */
  default_facet_size: number;
  /** Time limit of one facet query. */
  facet_time_limit_ms: number;
  /** Time limit of one facet suggestion query. */
  facet_suggest_time_limit_ms: number;
}

/** Settings as a plain object or anything with `get(name)` (the `Settings` class). */
export type SettingsLike = Partial<TableSettings> | { get(name: string): unknown };

const DEFAULT_SETTINGS: TableSettings = {
  default_page_size: 100,
  max_returned_rows: 1000,
  default_facet_size: 30,
  facet_time_limit_ms: 200,
  facet_suggest_time_limit_ms: 50,
};

/** Reads one numeric setting, falling back to the documented default. */
export function readSetting(
  settings: SettingsLike | undefined,
  name: keyof TableSettings,
): number {
  let value: unknown;
  if (settings && typeof (settings as { get?: unknown }).get === "function") {
    value = (settings as { get(name: string): unknown }).get(name);
  } else if (settings) {
    value = (settings as Partial<TableSettings>)[name];
  }
  return typeof value === "number" ? value : DEFAULT_SETTINGS[name];
}
