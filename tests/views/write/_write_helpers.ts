/**
 * Helpers for the write API tests: a shop service whose `writer` actor holds every write action
 * (through metadata, as an operator would grant it), bearer tokens, JSON POSTs, and reads of the
 * database file itself with a separate SQLite connection (not through the service).
 */
import { shopService } from "../../fixtures/shop.ts";
import type { Service, ServiceOptions } from "../../../src/service.ts";
import { Connection } from "../../../src/sqlite/mod.ts";
import type { ClientResponse } from "../../../src/http/client.ts";

/** Every action of the write API. */
export const WRITE_ACTIONS = [
  "insert-row",
  "update-row",
  "delete-row",
  "create-table",
  "alter-table",
  "drop-table",
];

/** A shop service where actor `writer` may use every write action on `shop`. */
export function writeService(options: ServiceOptions = {}): Service {
  const grants = Object.fromEntries(WRITE_ACTIONS.map((action) => [action, { id: "writer" }]));
  return shopService({
    secret: "write-tests",
    metadata: { databases: { shop: { permissions: grants } } },
    ...options,
  });
}

/** Runs `fn` with a fresh {@link writeService}; closes it afterwards. */
export async function withWriter(
  fn: (svc: Service) => Promise<void>,
  options: ServiceOptions = {},
): Promise<void> {
  await using svc = writeService(options);
  await fn(svc);
}

/** `Authorization: Bearer` headers for a token of `actor` (default `writer`). */
export function auth(svc: Service, actor = "writer", restrictions = {}): Record<string, string> {
  return { authorization: `Bearer ${svc.create_token(actor, restrictions)}` };
}

/** POSTs `body` (JSON text, or a value to serialise) as `application/json`. */
export function post(
  svc: Service,
  path: string,
  body: unknown,
  headers: Record<string, string> = auth(svc),
): Promise<ClientResponse> {
  return svc.client.post(path, {
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });
}

/** Rows of `sql` read from the database file by a connection of our own. */
export function fileRows(
  svc: Service,
  sql: string,
  params: unknown[] = [],
): Record<string, unknown>[] {
  const conn = Connection.open(svc.get_database("shop").path!, { mode: "ro" });
  try {
    const result = conn.query(sql, params as never);
    return result.rows.map((row) => Object.fromEntries(result.columns.map((c, i) => [c, row[i]])));
  } finally {
    conn.close();
  }
}

/** The rows of `table` as the JSON API shows them (`_shape=array`, all rows). */
export async function apiRows(svc: Service, table: string): Promise<Record<string, unknown>[]> {
  const response = await svc.client.get(`/shop/${table}.json?_shape=array&_size=max`);
  if (response.status !== 200) throw new Error(`${table}.json: ${response.status}`);
  return response.json();
}

/** The `errors` of a JSON error body, after checking its shape. */
export function errorsOf(response: ClientResponse): string[] {
  const body = response.json();
  if (body.ok !== false || !Array.isArray(body.errors) || body.status !== response.status) {
    throw new Error(`not an error body: ${response.text}`);
  }
  return body.errors;
}
