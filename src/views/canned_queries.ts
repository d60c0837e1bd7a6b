// PLACEHOLDER: replaced by the real module in this session.
import type { Service } from "../service.ts";
/** A canned query definition (metadata shape) plus its name. */
export type CannedQueryDefinition = Record<string, unknown> & { name: string; sql: string };
/** The canned query `name` of `database` visible to `actor`, or null. */
export function cannedQueryFor(
  _svc: Service,
  _database: string,
  _name: string,
  _actor: Record<string, unknown> | null,
): Promise<CannedQueryDefinition | null> {
  return Promise.resolve(null);
}
