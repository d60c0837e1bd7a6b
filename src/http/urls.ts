/**
 * `svc.urls`: paths for the instance's pages that honour `base_url`, with names tilde-encoded.
 */
import { tilde_encode } from "../util/tilde.ts";

/**
 * A path that already carries the `base_url` prefix. Passing it to `urls.path()` or `svc.client`
 * again leaves it unchanged, so prefixes never double up.
 */
export class PrefixedUrl extends String {}

/** Options shared by builders that accept a format. */
export interface FormatOption {
  /** `json`, `csv` or a plugin renderer's extension; appended as `.<format>`. */
  format?: string | null;
}

/** Options of the Urls constructor. */
export interface UrlsOptions {
  /** The URL route of a database name (defaults to the name itself). */
  databaseRoute?: (database: string) => string;
}

/** Builders for every page path, as the spec lists them. */
export class Urls {
  #baseUrl: () => string;
  #databaseRoute: (database: string) => string;

  /** `baseUrl` is read on every call, so a changed `base_url` setting is honoured. */
  constructor(baseUrl: () => string, options: UrlsOptions = {}) {
    this.#baseUrl = baseUrl;
    this.#databaseRoute = options.databaseRoute ?? ((name) => name);
  }

  /** `path` with the base_url prefix (unless already a PrefixedUrl). */
  path(path: string | PrefixedUrl, options: FormatOption = {}): PrefixedUrl {
    let text = String(path);
    if (!(path instanceof PrefixedUrl)) {
      const base = normaliseBase(this.#baseUrl());
      text = base + (text.startsWith("/") ? text.slice(1) : text);
    }
    if (options.format) text = withFormat(text, options.format);
    return new PrefixedUrl(text);
  }

  /** The root page, usually `/`. */
  instance(options: FormatOption = {}): PrefixedUrl {
    return this.path("", options);
  }

  /** The logout page. */
  logout(): PrefixedUrl {
    return this.path("-/logout");
  }

  /** A default static asset under `/-/static/`. */
  static(path: string): PrefixedUrl {
    return this.path(`-/static/${path}`);
  }

  /** A plugin's static asset under `/-/static-plugins/<plugin_name>/`. */
  static_plugins(plugin_name: string, path: string): PrefixedUrl {
    return this.path(`-/static-plugins/${plugin_name}/${path}`);
  }

  /** `/<db>`. */
  database(database: string, options: FormatOption = {}): PrefixedUrl {
    return this.path(tilde_encode(this.#databaseRoute(database)), options);
  }

  /** `/<db>?sql=...` for custom SQL. */
  database_query(database: string, sql: string, options: FormatOption = {}): PrefixedUrl {
    const path = String(this.database(database, options));
    return new PrefixedUrl(`${path}?${new URLSearchParams({ sql })}`);
  }

  /** `/<db>/<table>`. */
  table(database: string, table: string, options: FormatOption = {}): PrefixedUrl {
    return this.#below(this.database(database), tilde_encode(table), options);
  }

  /** `/<db>/<query>` for a canned query. */
  query(database: string, query: string, options: FormatOption = {}): PrefixedUrl {
    return this.#below(this.database(database), tilde_encode(query), options);
  }

  /** `/<db>/<table>/<row_path>`; `row_path` is already encoded (see `pathFromRowPks`). */
  row(database: string, table: string, row_path: string, options: FormatOption = {}): PrefixedUrl {
    return this.#below(this.table(database, table), row_path, options);
  }

  /** `/<db>.db`, the database file download. */
  database_download(database: string): PrefixedUrl {
    return new PrefixedUrl(`${this.database(database)}.db`);
  }

  #below(parent: PrefixedUrl, segment: string, options: FormatOption): PrefixedUrl {
    return this.path(new PrefixedUrl(`${parent}/${segment}`), options);
  }
}

function normaliseBase(base: string): string {
  let out = base || "/";
  if (!out.startsWith("/")) out = "/" + out;
  if (!out.endsWith("/")) out += "/";
  return out;
}

/**
 * Add `.<format>` to the path part. When the last segment already has a dot (an unencoded name),
 * use `?_format=` instead, so the dot is not mistaken for a format.
 */
function withFormat(url: string, format: string): string {
  const q = url.indexOf("?");
  const path = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? "" : url.slice(q + 1);
  const lastSegment = path.slice(path.lastIndexOf("/") + 1);
  if (lastSegment.includes(".")) {
    const extra = new URLSearchParams({ _format: format }).toString();
    return `${path}?${query ? query + "&" : ""}${extra}`;
  }
  // The root path has no name to suffix: `/` becomes `/.json`.
  return `${path}.${format}${query ? "?" + query : ""}`;
}
