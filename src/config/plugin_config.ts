/**
 * Secret-aware plugin configuration values: metadata may say `{"$env": "VAR"}` or
 * `{"$file": "path"}` so secrets stay out of the metadata file itself.
 */

/** Resolve `$env` / `$file` references anywhere inside a plugin configuration value. */
export function resolvePluginConfig(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(resolvePluginConfig);
  if (typeof value !== "object" || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 1) {
    const [key, ref] = entries[0];
    if (key === "$env" && typeof ref === "string") return Deno.env.get(ref) ?? null;
    if (key === "$file" && typeof ref === "string") return readSecretFile(ref);
  }
  return Object.fromEntries(entries.map(([k, v]) => [k, resolvePluginConfig(v)]));
}

function readSecretFile(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch (error) {
    throw new Error(`Cannot read plugin configuration file "${path}"`, { cause: error });
  }
}
