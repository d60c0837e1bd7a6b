/** `vitrine create-token ID`: a signed `dstok_` API token, optionally restricted. */
import type { Command } from "commander";
import { Service } from "../service.ts";
import { collect, splitJoined } from "./argv.ts";
import { CliExit } from "./exit.ts";

interface CreateTokenFlags {
  expiresAfter?: string;
  all: string[];
  database: string[];
  resource: string[];
  secret?: string;
  debug?: boolean;
  pluginsDir?: string;
}

/** Adds the `create-token` command. */
export function addCreateTokenCommand(program: Command): void {
  program.command("create-token")
    .description("Create a signed API token for an actor id")
    .argument("<id>", "the actor id the token acts as")
    .option("-e, --expires-after <seconds>", "token lifetime in seconds")
    .option("-a, --all <action>", "restrict to this action everywhere", collect, [])
    .option("-d, --database <db action>", "restrict to this action on a database", collect, [])
    .option("-r, --resource <db resource action>", "restrict to an action on a table", collect, [])
    .option("--secret <secret>", "signing secret (or VITRINE_SECRET)")
    .option("--debug", "print the token's decoded contents too")
    .option("--plugins-dir <dir>", "load plugins that register extra permissions")
    .action(async (id: string, flags: CreateTokenFlags) => {
      const secret = flags.secret ?? Deno.env.get("VITRINE_SECRET");
      if (!secret) throw new CliExit(1, "Error: pass --secret or set VITRINE_SECRET");
      const svc = new Service({ secret, plugins_dir: flags.pluginsDir ?? null });
      try {
        await svc.invoke_startup();
        const expires = flags.expiresAfter === undefined ? null : Number(flags.expiresAfter);
        if (expires !== null && !(Number.isInteger(expires) && expires > 0)) {
          throw new CliExit(1, "Error: --expires-after must be a positive number of seconds");
        }
        const restrict_database: Record<string, string[]> = {};
        for (const joined of flags.database) {
          const [db, action] = splitJoined(joined);
          (restrict_database[db] ??= []).push(checkAction(svc, action));
        }
        const restrict_resource: Record<string, Record<string, string[]>> = {};
        for (const joined of flags.resource) {
          const [db, resource, action] = splitJoined(joined);
          ((restrict_resource[db] ??= {})[resource] ??= []).push(checkAction(svc, action));
        }
        const token = svc.create_token(id, {
          expires_after: expires,
          restrict_all: flags.all.length ? flags.all.map((a) => checkAction(svc, a)) : null,
          restrict_database: Object.keys(restrict_database).length ? restrict_database : null,
          restrict_resource: Object.keys(restrict_resource).length ? restrict_resource : null,
        });
        console.log(token);
        if (flags.debug) {
          console.log(JSON.stringify(svc.unsign(token.slice("dstok_".length), "token"), null, 2));
        }
      } finally {
        await svc.close();
      }
    });
}

function checkAction(svc: Service, action: string | undefined): string {
  try {
    return svc.get_permission(action ?? "").name;
  } catch {
    throw new CliExit(1, `Error: unknown permission "${action}"`);
  }
}
