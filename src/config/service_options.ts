/**
 * What a service is started with: the spec's keyword arguments for `new Service({...})` plus the
 * command line's options.
 *
 * @module
 */

/** Options for `new Service({...})`: the spec's keyword arguments plus the CLI's. */
export interface ServiceOptions {
  /** Database files served read-only to visitors (writable by canned queries and plugins). */
  files?: string[];
  /**
   * PostgreSQL databases: `postgres://user@host:port/db` URLs, or `NAME=URL` to choose the
   * name (default: the URL's database name). Passwords come from the URL, `PGPASSWORD` or
   * `~/.pgpass` and are never shown.
   */
  postgres?: string[];
  /** PostgreSQL schemas to serve (default `["public"]`); several name tables `schema.table`. */
  postgres_schemas?: string[];
  /** Database files that never change: opened `immutable=1`, hashed, downloadable. */
  immutables?: string[];
  /** Metadata and configuration (what `-m metadata.yaml` holds). */
  metadata?: Record<string, unknown>;
  /** The configuration directory this service was started from, if any. */
  config_dir?: string | null;
  /** Setting values by name (strings are parsed per the setting's type). */
  settings?: Record<string, unknown>;
  /** Templates that override the bundled ones; `pages/` inside it holds custom pages. */
  template_dir?: string | null;
  /** Every `.ts`/`.js`/`.mjs` file in this directory is loaded as a plugin. */
  plugins_dir?: string | null;
  /** Installed plugins: paths, http(s) URLs, `npm:` or `jsr:` specifiers. */
  plugins?: string[];
  /** `[mount, directory]` pairs served as static files at `/<mount>/`. */
  static_mounts?: [string, string][];
  /** Attach an in-memory database named `_memory`. */
  memory?: boolean;
  /** `/_memory` attaches the file databases for cross-database queries. */
  crossdb?: boolean;
  /** Keep the internal database in this file instead of memory. */
  internal?: string | null;
  /** Secret for signed cookies and tokens (default `VITRINE_SECRET`, else random per process). */
  secret?: string;
  /** Allow the one-time `--root` sign-in link. */
  root?: boolean;
  /** `--default-deny`: nothing is visible to anyone until configuration, plugins or root grant it. */
  default_deny?: boolean;
  /** Send CORS headers so other sites can read the JSON API. */
  cors?: boolean;
  /**
   * The server sits behind a proxy that sets `X-Forwarded-Proto` / `X-Forwarded-Host`: take the
   * scheme and host of absolute URLs from them (`--trust-proxy`). Never enable it for a server
   * that visitors can reach directly: they could then name any host.
   */
  trust_proxy?: boolean;
  /** Open read-only connections with `nolock=1`. */
  nolock?: boolean;
  /** Counts and hashes from `vitrine inspect`, reused for immutable files. */
  inspect_data?: Record<string, unknown> | null;
  /** SQLite extensions loaded into every connection (`path[:entrypoint]`). */
  load_extensions?: string[];
  /** A note shown next to the version on `/-/versions`. */
  version_note?: string | null;
}
