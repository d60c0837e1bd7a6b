/**
 * `/<db>.db`: the SQLite file itself, for immutable file databases only (a mutable file could
 * change mid-transfer), when `allow_download` is on and the actor has `view-database-download`.
 * The ETag is the file's SHA-256, so a client holding the same copy gets a 304.
 */
import type { ViewHost } from "../host.ts";
import type { Actor } from "../../http/actor.ts";
import type { Request } from "../../http/request.ts";
import { Response } from "../../http/response.ts";
import type { DatabaseEngine as Database } from "../../db/engine.ts";
import { Forbidden } from "../../http/errors.ts";
import { attachment } from "../../http/content_disposition.ts";

/** True when the database page should offer the download link. */
export async function downloadAllowed(
  svc: ViewHost,
  db: Database,
  actor: Actor | null,
): Promise<boolean> {
  if (db.is_memory || db.is_mutable || !db.path || !svc.setting("allow_download")) return false;
  return Boolean(await svc.permission_allowed(actor, "view-database-download", db.name));
}

/** GET `/<db>.db`. */
export async function databaseDownloadView(svc: ViewHost, request: Request): Promise<Response> {
  const db = svc.resolve_database(request);
  await svc.ensure_permissions(request.actor, [["view-database", db.name], "view-instance"]);
  if (!(await downloadAllowed(svc, db, request.actor))) {
    throw new Forbidden("Database download is forbidden");
  }
  const etag = `"${db.hash}"`;
  const headers: Record<string, string> = { etag };
  if (matchesEtag(request.headers["if-none-match"], etag)) {
    return new Response("", { status: 304, headers, content_type: null });
  }
  headers["content-disposition"] = attachment(`${db.name}.db`);
  // HEAD never reads the body: opening the file for it would leak the handle (nothing drains or
  // cancels that stream), so HEAD gets the headers alone.
  if (request.method === "HEAD") {
    headers["content-length"] = String((await Deno.stat(db.path!)).size);
    return new Response("", { headers, content_type: "application/octet-stream" });
  }
  const file = await Deno.open(db.path!, { read: true });
  return new Response(file.readable, { headers, content_type: "application/octet-stream" });
}

/** `If-None-Match` may list several tags, or `*`. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((tag) => {
    const trimmed = tag.trim().replace(/^W\//, "");
    return trimmed === "*" || trimmed === etag;
  });
}
