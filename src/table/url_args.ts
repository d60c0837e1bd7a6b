/**
 * Building a page's path with query arguments added, removed or replaced — for facet toggles
 * and `next_url`. Arguments keep their query-string order and are encoded like Python's
 * `urlencode` (space → `+`, `,` → `%2C`, `~` kept), which the examples show byte for byte.
 *
 * @module
 */

/** Query arguments in order. */
export type ArgPair = [string, string];

/** Text `quote_plus` leaves as it is. */
const SAFE = /^[A-Za-z0-9_.~-]*$/;
const encoder = new TextEncoder();

/** Encodes one key or value the way Python's `quote_plus` does. */
export function quotePlus(text: string): string {
  // Most names and values need no encoding (a table page builds a link per column and facet).
  if (SAFE.test(text)) return text;
  let out = "";
  for (const byte of encoder.encode(text)) {
    const char = String.fromCharCode(byte);
    if (byte < 128 && /[A-Za-z0-9_.~-]/.test(char)) out += char;
    else if (byte === 0x20) out += "+";
    else out += "%" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** `a=1&b=2` from pairs, encoded with {@link quotePlus}. */
export function urlencode(pairs: ArgPair[]): string {
  return pairs.map(([key, value]) => `${quotePlus(key)}=${quotePlus(value)}`).join("&");
}

function withQuery(path: string, pairs: ArgPair[]): string {
  const query = urlencode(pairs);
  return query ? `${path}?${query}` : path;
}

/**
 * `path` with `added` appended after the current arguments. A null value removes every current
 * argument of that name instead.
 */
export function pathWithAddedArgs(
  path: string,
  current: ArgPair[],
  added: [string, string | null][],
): string {
  const removed = new Set(added.filter(([, v]) => v === null).map(([k]) => k));
  const kept = current.filter(([key]) => !removed.has(key));
  const extra = added.filter((pair): pair is ArgPair => pair[1] !== null);
  return withQuery(path, [...kept, ...extra]);
}

/** `path` without the arguments matching `removed` (a name, or a name and exact value). */
export function pathWithRemovedArgs(
  path: string,
  current: ArgPair[],
  removed: { names?: string[]; pairs?: ArgPair[] },
): string {
  const names = new Set(removed.names ?? []);
  const pairs = removed.pairs ?? [];
  const kept = current.filter(([key, value]) =>
    !names.has(key) && !pairs.some(([k, v]) => k === key && v === value)
  );
  return withQuery(path, kept);
}

/** `path` with every argument named in `replaced` dropped, then `replaced` appended. */
export function pathWithReplacedArgs(
  path: string,
  current: ArgPair[],
  replaced: [string, string | null][],
): string {
  const names = new Set(replaced.map(([key]) => key));
  const kept = current.filter(([key]) => !names.has(key));
  const extra = replaced.filter((pair): pair is ArgPair => pair[1] !== null);
  return withQuery(path, [...kept, ...extra]);
}
