/**
 * SPEC "Custom pages": `pages/<path>.html` in a template directory serves `/<path>`;
 * `{variable}` in file or folder names matches any segment. Templates may call
 * `custom_status`, `custom_header`, `custom_redirect` and `raise_404`.
 */
import { join } from "node:path";
import type { TemplateEnvironment } from "./environment.ts";
import { templatesConsideredComment } from "./template_lookup.ts";

/** A custom page template that matches a URL path. */
export interface CustomPageMatch {
  /** Template name, e.g. `pages/about/{slug}.html`. */
  template: string;
  /** Values captured by `{variable}` parts, e.g. `{ slug: "map" }`. */
  vars: Record<string, string>;
}

/** A rendered custom page. */
export interface CustomPageResponse {
  html: string;
  status: number;
  headers: Record<string, string>;
  /** Set by `custom_redirect(location)`; `status` is then 302 or 301. */
  redirect: string | null;
}

/** `raise_404(message)` was called: the caller answers with its 404 page. */
export interface CustomPageNotFound {
  notFound: string;
}

/** Find the page template for a URL path (exact names beat `{variable}` names). */
export function findCustomPage(urlPath: string, templateDirs: string[]): CustomPageMatch | null {
  const segments = urlPath.replace(/^\/+|\/+$/g, "").split("/").filter((s) => s !== "");
  if (segments.length === 0) return null;
  let decoded: string[];
  try {
    decoded = segments.map(decodeURIComponent);
  } catch {
    return null;
  }
  if (decoded.some((s) => s === "." || s === "..")) return null;

  let best: { match: CustomPageMatch; literals: number } | null = null;
  for (const dir of templateDirs) {
    for (const file of listPages(join(dir, "pages"))) {
      const match = matchPage(file, decoded);
      if (!match) continue;
      const literals = file.filter((part) => !part.includes("{")).length;
      // Earlier dirs win ties: user templates shadow plugin templates.
      if (!best || literals > best.literals) {
        best = { match: { template: `pages/${file.join("/")}.html`, vars: match }, literals };
      }
    }
  }
  return best?.match ?? null;
}

/** Render a matched custom page with its per-render response controls. */
export function renderCustomPage(
  env: TemplateEnvironment,
  match: CustomPageMatch,
  context: Record<string, unknown> = {},
): CustomPageResponse | CustomPageNotFound {
  const state = new CustomPageState();
  let html: string;
  try {
    html = String(
      env.renderFragment(match.template, { ...context, ...match.vars, ...state.functions() }),
    );
  } catch (error) {
    // nunjucks wraps thrown errors; the state tells us the template asked for a 404.
    if (state.notFound !== null) return { notFound: state.notFound };
    throw error;
  }
  if (state.redirect !== null) {
    return {
      html: "",
      status: state.redirectStatus,
      headers: { ...state.headers, location: state.redirect },
      redirect: state.redirect,
    };
  }
  // The `Templates considered` comment is HTML: a page served as text, JSON, XML... (set with
  // `custom_header("content-type", ...)`, e.g. a robots.txt page) must end as its template does.
  const type = state.headers["content-type"];
  if (!type || /html/i.test(type)) {
    html = `${html}\n${templatesConsideredComment([match.template], match.template)}`;
  }
  return { html, status: state.status, headers: state.headers, redirect: null };
}

/** The mutable response settings one custom page render collects. */
class CustomPageState {
  status = 200;
  headers: Record<string, string> = {};
  redirect: string | null = null;
  redirectStatus = 302;
  notFound: string | null = null;

  functions(): Record<string, (...args: never[]) => string> {
    return {
      custom_status: (code: number) => {
        this.status = Number(code);
        return "";
      },
      custom_header: (name: string, value: string) => {
        this.headers[String(name).toLowerCase()] = String(value);
        return "";
      },
      custom_redirect: (location: string, status: number = 302) => {
        this.redirect = String(location);
        this.redirectStatus = Number(status) === 301 ? 301 : 302;
        return "";
      },
      raise_404: (message: string = "Not found") => {
        this.notFound = String(message);
        throw new Error(this.notFound);
      },
    };
  }
}

/** Every `.html` file under `pagesDir`, as path segments without the extension. */
function listPages(pagesDir: string): string[][] {
  const results: string[][] = [];
  const walk = (dir: string, prefix: string[]) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.isDirectory) walk(join(dir, entry.name), [...prefix, entry.name]);
      else if (entry.isFile && entry.name.endsWith(".html")) {
        results.push([...prefix, entry.name.slice(0, -".html".length)]);
      }
    }
  };
  walk(pagesDir, []);
  return results;
}

/** Captured variables when every file segment matches the URL segment, else null. */
function matchPage(file: string[], url: string[]): Record<string, string> | null {
  if (file.length !== url.length) return null;
  const vars: Record<string, string> = {};
  for (let i = 0; i < file.length; i++) {
    const groups = segmentPattern(file[i]).exec(url[i]);
    if (!groups) return null;
    Object.assign(vars, groups.groups ?? {});
  }
  return vars;
}

function segmentPattern(part: string): RegExp {
  const source = part
    .split(/(\{[A-Za-z_][A-Za-z0-9_]*\})/)
    .map((piece) =>
      /^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(piece)
        ? `(?<${piece.slice(1, -1)}>.+)`
        : piece.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    )
    .join("");
  return new RegExp(`^${source}$`);
}
