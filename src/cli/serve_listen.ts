/**
 * How `vitrine serve` starts listening: PostgreSQL databases reached once first, then the
 * server on its address (TCP, TLS or a Unix socket) with messages that say what to change when
 * the address cannot be used, and the "serving on" and root sign-in lines. Apart from serve.ts,
 * which turns the command line into a service and decides what runs.
 *
 * @module
 */
import type { Service } from "../service.ts";
import { serve } from "../app/server.ts";
import { batchedLines, printText } from "../app/access_log.ts";
import { CliExit } from "./exit.ts";
import { prepareUnixSocket, readTls } from "./listen_options.ts";
import { PROCESS_ENV } from "./processes.ts";
import { PostgresDatabase } from "../db/postgres_database.ts";
import type { ServeFlags } from "./serve_options.ts";

/**
 * Connects to each PostgreSQL database once before serving: a wrong host, password or database
 * name is told at start (password masked), not on every page.
 */
export async function checkPostgres(svc: Service): Promise<void> {
  for (const db of svc.databases.values()) {
    if (!(db instanceof PostgresDatabase)) continue;
    try {
      await db.execute("select 1", null, { log_sql_errors: false, request_deadline: false });
    } catch (error) {
      await svc.close();
      throw new CliExit(
        1,
        `Error: cannot reach PostgreSQL database "${db.name}" (${db.display_url}): ${
          error instanceof Error ? error.message : error
        }`,
      );
    }
  }
}

/**
 * Starts the server and runs start-up (meanwhile `/-/health` answers 503 "starting"); says where
 * it serves once start-up is over. A port already taken or not allowed ends the command with a
 * message that names the address and how to choose another, not the bare operating-system
 * error; a start-up failure with its message.
 */
export async function listen(svc: Service, flags: ServeFlags): Promise<Deno.HttpServer> {
  let url = "";
  let server: Deno.HttpServer;
  try {
    const tls = readTls(flags);
    if (flags.uds !== undefined) await prepareUnixSocket(flags.uds);
    server = await serve(svc, {
      unix_socket: flags.uds,
      tls,
      host: flags.host,
      port: Number(flags.port),
      reusePort: flags.reusePort,
      access_log: flags.accessLog === false ? null : batchedLines(printText),
      onListen: (listening) => url = listening,
    });
  } catch (error) {
    await svc.close();
    if (error instanceof CliExit) throw error;
    const where = flags.uds ?? `${flags.host}:${flags.port}`;
    if (error instanceof Deno.errors.AddrInUse) {
      throw new CliExit(
        1,
        `Error: port ${flags.port} is already in use on ${flags.host}, perhaps by another ` +
          `Vitrine. Stop that server or choose another port with -p, e.g. -p ${
            Number(flags.port) + 1
          } (-p 0 picks a free one).`,
      );
    }
    if (
      error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.AddrNotAvailable
    ) {
      throw new CliExit(
        1,
        `Error: cannot listen on ${where}: ${error.message}. Choose another address with -h or ` +
          "a port above 1023 with -p.",
      );
    }
    throw new CliExit(1, `Error: ${error instanceof Error ? error.message : error}`);
  }
  const copy = Deno.env.get(PROCESS_ENV);
  const where = flags.uds === undefined ? `${url}/` : `the Unix socket ${flags.uds}`;
  console.log(
    copy
      ? `Vitrine process ${copy} (pid ${Deno.pid}) is serving on ${where}`
      : `Vitrine is serving on ${where} (Ctrl+C to stop)`,
  );
  // With --processes every copy accepts the link (all sign with one secret); one prints it.
  // Through a Unix socket, the proxy in front decides the address: the path is what it needs.
  if (svc.rootToken && (!copy || copy.startsWith("1/"))) {
    const base = flags.uds === undefined ? url : "";
    console.log(`Sign in as root: ${base}/-/auth-token?token=${svc.rootToken.value}`);
  }
  return server;
}
