/**
 * The on/off spellings of boolean request arguments (`_labels=on`, `_stream=1`, `_dl=true`,
 * `_header=off`), shared by table query building and the output formats.
 *
 * @module
 */

/**
 * Reads a boolean argument like `_labels=on`: `on|true|1` → true, `off|false|0` → false
 * (case-insensitive), anything else (or absent) → null, meaning "not given".
 */
export function valueAsBoolean(value: string | null | undefined): boolean | null {
  const lower = (value ?? "").toLowerCase();
  if (["on", "true", "1"].includes(lower)) return true;
  if (["off", "false", "0"].includes(lower)) return false;
  return null;
}
