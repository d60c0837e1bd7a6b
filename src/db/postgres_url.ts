/**
 * PostgreSQL connection URLs: `postgres://user:password@host:port/db?sslmode=…` (or
 * `postgresql://`), given as a positional argument or as `NAME=URL`. The password comes from
 * the URL, `PGPASSWORD` or a `.pgpass` file (`PGPASSFILE`, else `~/.pgpass`), and is never
 * shown: {@link maskUrl} is what logs, pages and errors print.
 *
 * @module
 */

/** A parsed connection target. */
export interface PgTarget {
  /** The database's name in Vitrine (`NAME=`, else the URL's database name). */
  name: string;
  /** The URL as given (password included: for the driver only). */
  url: string;
  host: string;
  port: number;
  database: string;
  user: string;
  /** The password to send, or null (from the URL, PGPASSWORD or .pgpass). */
  password: string | null;
}

/** True when `arg` names a PostgreSQL server rather than a file. */
export function isPostgresUrl(arg: string): boolean {
  return /^postgres(ql)?:\/\//i.test(arg) || /^[^=/]+=postgres(ql)?:\/\//i.test(arg);
}

/** Parses `URL` or `NAME=URL`; throws a readable error (password masked) when malformed. */
export function parsePgTarget(arg: string, env = Deno.env.toObject()): PgTarget {
  const eq = /^([^=/:]+)=(postgres(?:ql)?:\/\/.*)$/i.exec(arg);
  const url = eq ? eq[2] : arg;
  let parsed: URL;
  try {
    parsed = new URL(url.replace(/^postgres(ql)?:/i, "http:"));
  } catch {
    throw new Error(`Not a PostgreSQL URL: ${maskUrl(url)}`);
  }
  const host = decodeURIComponent(parsed.hostname) || env.PGHOST || "localhost";
  const port = Number(parsed.port || env.PGPORT || 5432);
  const user = decodeURIComponent(parsed.username) || env.PGUSER || env.USER || "postgres";
  const database = decodeURIComponent(parsed.pathname.slice(1)) || env.PGDATABASE || user;
  let password: string | null = parsed.password ? decodeURIComponent(parsed.password) : null;
  password ??= env.PGPASSWORD ?? pgpassLookup({ host, port, database, user }, env);
  return { name: eq ? eq[1] : database, url, host, port, database, user, password };
}

/** The URL with any password replaced by `***`, safe to print. */
export function maskUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:@/]*):[^@/]*@/i, "$1:***@");
}

/** Removes every occurrence of `secret` from `text` (driver messages may quote the URL). */
export function maskSecret(text: string, secret: string | null): string {
  if (!secret) return text;
  return text.split(secret).join("***");
}

/**
 * The password for `target` from a `.pgpass` file: lines `host:port:database:user:password`,
 * `*` matching anything, `\:` and `\\` escaped; the first matching line wins, as for libpq.
 */
export function pgpassLookup(
  target: { host: string; port: number; database: string; user: string },
  env: Record<string, string | undefined> = Deno.env.toObject(),
): string | null {
  const file = env.PGPASSFILE ?? (env.HOME ? `${env.HOME}/.pgpass` : null);
  if (!file) return null;
  let text: string;
  try {
    text = Deno.readTextFileSync(file);
  } catch {
    return null;
  }
  const wanted = [target.host, String(target.port), target.database, target.user];
  for (const line of text.split(/\r?\n/)) {
    if (!line || line.startsWith("#")) continue;
    const fields = splitPgpassLine(line);
    if (fields.length < 5) continue;
    const matches = wanted.every((value, i) =>
      fields[i] === "*" || fields[i] === value ||
      (i === 0 && fields[i] === "localhost" && value.startsWith("/"))
    );
    if (matches) return fields.slice(4).join(":");
  }
  return null;
}

function splitPgpassLine(line: string): string[] {
  const fields: string[] = [];
  let field = "";
  for (let i = 0; i < line.length; i++) {
    const char = line[i];
    if (char === "\\" && i + 1 < line.length) field += line[++i];
    else if (char === ":") {
      fields.push(field);
      field = "";
    } else field += char;
  }
  fields.push(field);
  return fields;
}
