/**
 * Where and how `vitrine serve` listens besides host and port: a Unix socket (`--uds`), HTTPS
 * (`--ssl-keyfile` with `--ssl-certfile`), and `--create` for database files not there yet.
 */
import { Connection } from "../sqlite/connection.ts";
import { CliExit } from "./exit.ts";

/** The flags this file reads. */
export interface ListenFlags {
  uds?: string;
  sslKeyfile?: string;
  sslCertfile?: string;
}

/**
 * The PEM key and certificate, read before anything starts: a missing or unreadable file is a
 * clear error naming the flag, and one without the other is refused rather than served as plain
 * HTTP that the operator believed encrypted.
 */
export function readTls(flags: ListenFlags): { cert: string; key: string } | undefined {
  const { sslKeyfile, sslCertfile } = flags;
  if (sslKeyfile === undefined && sslCertfile === undefined) return undefined;
  if (sslKeyfile === undefined || sslCertfile === undefined) {
    throw new CliExit(1, "Error: HTTPS needs both --ssl-keyfile and --ssl-certfile");
  }
  if (flags.uds !== undefined) {
    throw new CliExit(1, "Error: --uds cannot be combined with --ssl-keyfile/--ssl-certfile");
  }
  const read = (flag: string, path: string) => {
    try {
      return Deno.readTextFileSync(path);
    } catch (error) {
      const reason = error instanceof Deno.errors.NotFound ? "file not found" : String(error);
      throw new CliExit(1, `Error: cannot read ${flag} ${path}: ${reason}`);
    }
  };
  return { key: read("--ssl-keyfile", sslKeyfile), cert: read("--ssl-certfile", sslCertfile) };
}

/**
 * `--uds PATH`: a socket file left by a server that did not stop cleanly would make listening
 * fail with "address in use"; it is removed first, unless a server still answers there. Any
 * other kind of file there is refused, so a mistyped path never deletes data.
 */
export async function prepareUnixSocket(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch {
    return;
  }
  if (!info.isSocket) {
    throw new CliExit(1, `Error: --uds ${path} exists and is not a socket; choose another path`);
  }
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
  } catch {
    Deno.removeSync(path);
    return;
  }
  throw new CliExit(1, `Error: --uds ${path} is in use by another server; choose another path`);
}

/**
 * `--create`: each missing file becomes an empty SQLite database (VACUUM writes its header), so
 * a new project starts with `vitrine serve new.db --create`. A missing folder is an error.
 */
export function createMissingDatabases(files: string[]): void {
  for (const file of files) {
    try {
      Deno.statSync(file);
      continue;
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
    try {
      const conn = Connection.open(file);
      try {
        conn.exec("VACUUM");
      } finally {
        conn.close();
      }
    } catch (error) {
      throw new CliExit(
        1,
        `Error: --create could not create ${file}: ${
          error instanceof Error ? error.message : error
        }`,
      );
    }
  }
}
