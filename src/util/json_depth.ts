/**
 * How deeply a JSON text nests, found by one pass over its characters before it is parsed: a
 * body of 100,000 `[` parses, but every recursive walk over the result afterwards (storing it,
 * printing it) would then run out of stack.
 *
 * @module
 */

/** The deepest nesting of `[`/`{` in `text`, ignoring brackets inside strings. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}

/** Raised by {@link checkJsonDepth}. */
export class JsonTooDeep extends Error {
  override name = "JsonTooDeep";
}

/**
 * Throws {@link JsonTooDeep} when `text` nests deeper than `maxDepth` (0 = no limit). The
 * message names the `max_json_depth` setting.
 */
export function checkJsonDepth(text: string, maxDepth: number): void {
  if (maxDepth > 0 && jsonDepth(text) > maxDepth) {
    throw new JsonTooDeep(
      `JSON nested deeper than ${maxDepth} levels (the max_json_depth setting)`,
    );
  }
}
