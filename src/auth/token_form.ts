/**
 * The fields of the `/-/create-token` form, turned into `svc.create_token` options
 * (API-DETAILS §14): an expiry (`expire_type` + `expire_duration`) and restriction checkboxes
 * named `all:<action>`, `database:<db>:<action>` and `resource:<db>:<resource>:<action>`, with
 * database and resource names tilde-encoded so a `:` in a name cannot split the field.
 *
 * @module
 */

import { tilde_decode } from "../util/tilde.ts";
import type { PermissionRegistry } from "./permission_registry.ts";

/** Seconds per unit of the form's expiry choices. */
const EXPIRY_UNITS: Readonly<Record<string, number>> = Object.freeze({
  minutes: 60,
  hours: 60 * 60,
  days: 24 * 60 * 60,
});

/** What the form asks for: create_token options, or the errors to show instead. */
export interface TokenRequest {
  expires_after: number | null;
  restrict_all: string[] | null;
  restrict_database: Record<string, string[]> | null;
  restrict_resource: Record<string, Record<string, string[]>> | null;
  errors: string[];
}

/**
 * Reads the posted form. Unknown actions, a duration without a unit (or vice versa) and
 * malformed restriction names become errors rather than silently broader tokens.
 *
 * @example
 * ```ts
 * parseTokenForm({ expire_type: "hours", expire_duration: "2", "all:vt": "on" }, registry);
 * // { expires_after: 7200, restrict_all: ["view-table"], ..., errors: [] }
 * ```
 */
export function parseTokenForm(
  form: Record<string, string>,
  registry: PermissionRegistry,
): TokenRequest {
  const errors: string[] = [];
  const expires_after = parseExpiry(form, errors);
  const all: string[] = [];
  const byDatabase: Record<string, string[]> = {};
  const byResource: Record<string, Record<string, string[]>> = {};
  const action = (name: string) => {
    const permission = registry.find(name);
    if (!permission) errors.push(`Unknown permission: ${name}`);
    return permission?.name ?? name;
  };
  for (const key of Object.keys(form)) {
    const parts = key.split(":");
    if (parts[0] === "all" && parts.length === 2) {
      all.push(action(parts[1]));
    } else if (parts[0] === "database" && parts.length === 3) {
      (byDatabase[tilde_decode(parts[1])] ??= []).push(action(parts[2]));
    } else if (parts[0] === "resource" && parts.length === 4) {
      const database = (byResource[tilde_decode(parts[1])] ??= {});
      (database[tilde_decode(parts[2])] ??= []).push(action(parts[3]));
    } else if (/^(all|database|resource):/.test(key)) {
      errors.push(`Malformed restriction: ${key}`);
    }
  }
  return {
    expires_after,
    restrict_all: all.length ? all : null,
    restrict_database: Object.keys(byDatabase).length ? byDatabase : null,
    restrict_resource: Object.keys(byResource).length ? byResource : null,
    errors,
  };
}

function parseExpiry(form: Record<string, string>, errors: string[]): number | null {
  const unit = (form.expire_type ?? "").trim();
  const duration = (form.expire_duration ?? "").trim();
  if (!unit) {
    if (duration) errors.push("Choose minutes, hours or days for the expiry duration");
    return null;
  }
  const seconds = Object.hasOwn(EXPIRY_UNITS, unit) ? EXPIRY_UNITS[unit] : null;
  if (!seconds) {
    errors.push(`Unknown expiry unit: ${unit}`);
    return null;
  }
  const count = Number(duration);
  if (!duration || !Number.isInteger(count) || count <= 0) {
    errors.push("The expiry duration must be a whole number greater than zero");
    return null;
  }
  // Beyond this the signed `d` would be a float in exponent notation (`1e+21`), which neither we
  // nor Datasette read back as a duration: the token would be unusable, not long-lived.
  if (!Number.isSafeInteger(count * seconds)) {
    errors.push("The expiry duration is too large; choose Never for a token that does not expire");
    return null;
  }
  return count * seconds;
}
