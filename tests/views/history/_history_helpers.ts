/**
 * Helpers for the history tests: a shop service where `writer` holds every write action,
 * `execute-write-sql` and `revert-change`, and `editor` every write action but `revert-change`;
 * and the recorded changes as the JSON API lists them.
 */
import { WRITE_ACTIONS } from "../write/_write_helpers.ts";
import { SHOP_METADATA, shopService } from "../../fixtures/shop.ts";
import type { Service } from "../../../src/service.ts";

/** The JSON of one recorded change. */
export interface Change {
  id: number;
  table: string;
  pks: unknown[];
  operation: string;
  actor: string | null;
  time: string;
  request_id: string;
  request: string | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  reverts: number | null;
  reverted_by: number | null;
}

/** A shop service for history tests; `history` is the shop database's `history` setting. */
export function historyService(
  history: string | null = null,
  tables: Record<string, unknown> = {},
  settings: Record<string, unknown> = {},
): Service {
  const metadata = structuredClone(SHOP_METADATA);
  const grants: Record<string, unknown> = Object.fromEntries(
    WRITE_ACTIONS.map((action) => [action, { id: ["writer", "editor"] }]),
  );
  grants["execute-write-sql"] = { id: "writer" };
  grants["revert-change"] = { id: "writer" };
  metadata.databases.shop.permissions = grants;
  if (history) metadata.databases.shop.history = history;
  metadata.databases.shop.tables = { ...metadata.databases.shop.tables, ...tables };
  return shopService({ secret: "history-tests", metadata, settings });
}

/** The changes `path` (a history page's `.json`) lists, newest first. */
export async function changesAt(svc: Service, path = "/shop/-/history.json"): Promise<Change[]> {
  const response = await svc.client.get(path);
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${response.text}`);
  return response.json().changes;
}
