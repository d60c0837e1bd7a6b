/**
 * Template globals that rewrite the current page's query string — sort links, facet
 * toggles, "next page" — named as templates for this kind of tool expect.
 */

/** The part of a request these helpers read. */
export interface PathSource {
  path: string;
  query_string?: string;
}

type Replacements = Record<string, unknown> | [string, unknown][];

function entriesOf(args: Replacements | null | undefined): [string, unknown][] {
  if (!args) return [];
  return Array.isArray(args) ? args : Object.entries(args);
}

function build(path: string, params: URLSearchParams): string {
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/**
 * The current path with `replacements` set: a null value removes the key, any other value
 * replaces every existing value of it.
 */
export function pathWithReplacedArgs(request: PathSource, replacements: Replacements): string {
  const params = new URLSearchParams(request.query_string ?? "");
  for (const [key, value] of entriesOf(replacements)) {
    params.delete(key);
    if (value !== null && value !== undefined) params.append(key, String(value));
  }
  return build(request.path, params);
}

/** The current path with extra `key=value` pairs appended (existing values kept). */
export function pathWithAddedArgs(request: PathSource, additions: Replacements): string {
  const params = new URLSearchParams(request.query_string ?? "");
  for (const [key, value] of entriesOf(additions)) {
    if (value !== null && value !== undefined) params.append(key, String(value));
  }
  return build(request.path, params);
}

/**
 * The current path without some arguments: a string removes every value of that key, a
 * `[key, value]` pair removes just that value.
 */
export function pathWithRemovedArgs(
  request: PathSource,
  removals: (string | [string, unknown])[] | Record<string, unknown>,
): string {
  const params = new URLSearchParams(request.query_string ?? "");
  const list = Array.isArray(removals) ? removals : Object.entries(removals);
  const kept = [...params].filter(([key, value]) =>
    !list.some((r) => typeof r === "string" ? r === key : r[0] === key && String(r[1]) === value)
  );
  return build(request.path, new URLSearchParams(kept));
}
