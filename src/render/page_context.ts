/**
 * The context every page template (through `base.html`) needs. Views and the service await
 * plugin hooks first and pass the results in; assembling is synchronous.
 */
import { createHash } from "node:crypto";
import { readAsset } from "../util/assets.ts";
import { Markup } from "../util/markup.ts";
import type { Metadata } from "../config/metadata.ts";
import { staticVersion } from "./static_version.ts";

/** A stylesheet or script link, normalised from a string or `{url, sri, module}`. */
export interface AssetUrl {
  url: string;
  sri: string | null;
  module: boolean;
}

/** A script placed at the end of `<body>`. */
export interface BodyScript {
  script: Markup;
  module: boolean;
}

/** One breadcrumb link. */
export interface Crumb {
  href: string;
  label: string;
}

/** A flash message with its type name. */
export interface PageMessage {
  message: string;
  type: "info" | "warning" | "error";
}

/** The part of `svc.urls` the base context uses to build crumbs. */
export interface CrumbUrls {
  instance(): string;
  database(name: string): string;
  table(database: string, table: string): string;
}

/** Inputs to `baseContext`; every hook result already awaited. */
export interface BaseContextInput {
  metadata?: Metadata | null;
  database?: string | null;
  table?: string | null;
  urls?: unknown;
  csrftoken?: (() => string) | null;
  actor?: Record<string, unknown> | null;
  base_url?: string;
  /** Results of `extra_css_urls` hooks: each a list (or single) of strings / `{url, sri}`. */
  extra_css_urls?: unknown[];
  /** Results of `extra_js_urls` hooks. */
  extra_js_urls?: unknown[];
  /** Results of `extra_body_script` hooks: strings or `{script, module}`. */
  extra_body_scripts?: unknown[];
  /** The page kind (`index`, `database`, `query`, `table`, `row`, ...); decides the crumbs. */
  page?: string;
  /** Explicit breadcrumbs; otherwise built from database/table, up to the current page. */
  crumbs?: Crumb[];
  /** Flash messages as `[message, type]` pairs (type 1/2/3 or a name) or objects. */
  messages?: unknown[];
  menu_links?: { href: string; label: string }[];
}

const MESSAGE_TYPES: Record<string, PageMessage["type"]> = {
  "1": "info",
  "2": "warning",
  "3": "error",
  info: "info",
  warning: "warning",
  error: "error",
};

/** Assemble the shared template context (see docs/templates.md "base.html"). */
export function baseContext(input: BaseContextInput = {}): Record<string, unknown> {
  const metadata = input.metadata ?? null;
  const instance = metadata?.instance() ?? {};
  return {
    extra_css_urls: normaliseAssets([instance.extra_css_urls, ...(input.extra_css_urls ?? [])]),
    extra_js_urls: normaliseAssets([instance.extra_js_urls, ...(input.extra_js_urls ?? [])]),
    extra_body_scripts: normaliseScripts(input.extra_body_scripts ?? []),
    crumbs: input.crumbs ?? buildCrumbs(input.urls, input.page, input.database, input.table),
    messages: normaliseMessages(input.messages ?? []),
    metadata: pageMetadata(metadata, input.database, input.table),
    instance_title: typeof instance.title === "string" ? instance.title : null,
    urls: input.urls ?? null,
    csrftoken: input.csrftoken ?? (() => ""),
    actor: input.actor ?? null,
    menu_links: input.menu_links ?? [],
    base_url: input.base_url ?? "/",
    app_css_hash: appCssHash(),
    static_version: staticVersion(),
    // The script nonce of the Content-Security-Policy; render_page sets it per request.
    csp_nonce: "",
  };
}

/**
 * Metadata for the page's own level (title, description...) plus the licence, source and
 * about links inherited from the most specific level that sets them.
 */
function pageMetadata(
  metadata: Metadata | null,
  database?: string | null,
  table?: string | null,
): Record<string, unknown> {
  if (!metadata) return {};
  const own = database && table
    ? metadata.table(database, table)
    : database
    ? metadata.database(database)
    : metadata.instance();
  const inherited = metadata.display(database, table);
  const result: Record<string, unknown> = { ...own };
  for (const key of ["license", "license_url", "source", "source_url", "about", "about_url"]) {
    const value = inherited[key as keyof typeof inherited];
    if (value !== undefined) result[key] = value;
  }
  return result;
}

/** Flatten hook results and metadata lists into unique `{url, sri, module}` objects. */
export function normaliseAssets(sources: unknown[]): AssetUrl[] {
  const seen = new Set<string>();
  const result: AssetUrl[] = [];
  const add = (item: unknown) => {
    if (Array.isArray(item)) return item.forEach(add);
    let asset: AssetUrl | null = null;
    if (typeof item === "string" || item instanceof String) {
      asset = { url: String(item), sri: null, module: false };
    } else if (item && typeof item === "object" && "url" in item) {
      const o = item as { url: unknown; sri?: unknown; module?: unknown };
      asset = { url: String(o.url), sri: o.sri ? String(o.sri) : null, module: o.module === true };
    }
    if (asset && !seen.has(asset.url)) {
      seen.add(asset.url);
      result.push(asset);
    }
  };
  sources.forEach(add);
  return result;
}

/** Hook scripts as `{script, module}`; the script text is trusted (SPEC `extra_body_script`). */
export function normaliseScripts(sources: unknown[]): BodyScript[] {
  const result: BodyScript[] = [];
  const add = (item: unknown) => {
    if (item === null || item === undefined || item === "") return;
    if (Array.isArray(item)) return item.forEach(add);
    if (typeof item === "string" || item instanceof String) {
      result.push({ script: new Markup(String(item)), module: false });
    } else if (typeof item === "object" && "script" in item) {
      const o = item as { script: unknown; module?: unknown };
      result.push({ script: new Markup(String(o.script ?? "")), module: o.module === true });
    }
  };
  sources.forEach(add);
  return result;
}

/** Flash messages as `{message, type}` with type names info/warning/error. */
export function normaliseMessages(messages: unknown[]): PageMessage[] {
  return messages.flatMap((item): PageMessage[] => {
    if (Array.isArray(item)) {
      return [{ message: String(item[0]), type: MESSAGE_TYPES[String(item[1])] ?? "info" }];
    }
    if (item && typeof item === "object" && "message" in item) {
      const o = item as { message: unknown; type?: unknown };
      return [{ message: String(o.message), type: MESSAGE_TYPES[String(o.type)] ?? "info" }];
    }
    return typeof item === "string" ? [{ message: item, type: "info" }] : [];
  });
}

/** Links to the pages above the current one: a table page links home and its database. */
function buildCrumbs(
  urls: unknown,
  page?: string,
  database?: string | null,
  table?: string | null,
): Crumb[] {
  const builder = urls as Partial<CrumbUrls> | null | undefined;
  if (!builder || typeof builder.instance !== "function" || page === "index") return [];
  const crumbs: Crumb[] = [{ href: String(builder.instance()), label: "home" }];
  if (database && page !== "database" && typeof builder.database === "function") {
    crumbs.push({ href: String(builder.database(database)), label: database });
    if (table && page !== "table" && typeof builder.table === "function") {
      crumbs.push({ href: String(builder.table(database, table)), label: table });
    }
  }
  return crumbs;
}

let cssHash: string | null = null;

/** First 6 hex chars of the bundled app.css's SHA-256, for cache-busting `?v=` links. */
export function appCssHash(): string {
  if (cssHash === null) {
    const css = readAsset("static", "app.css");
    cssHash = css ? createHash("sha256").update(css).digest("hex").slice(0, 6) : "000000";
  }
  return cssHash;
}
