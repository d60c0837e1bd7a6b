/** The attached databases an actor may see, for the pages that list them. */
import type { ViewHost } from "./host.ts";
import type { Actor } from "../http/actor.ts";
import type { DatabaseEngine as Database } from "../db/engine.ts";

/** Each database the actor may view, with whether it is private (hidden from anonymous). */
export async function visibleDatabases(
  svc: ViewHost,
  actor: Actor | null,
): Promise<{ db: Database; isPrivate: boolean }[]> {
  const visible = [];
  for (const db of svc.databases.values()) {
    const [canSee, isPrivate] = await svc.check_visibility(actor, {
      action: "view-database",
      resource: db.name,
    });
    if (canSee) visible.push({ db, isPrivate });
  }
  return visible;
}
