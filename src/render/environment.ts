/**
 * The one long-lived template environment (nunjucks, autoescape on). Loader order:
 * `--template-dir` dirs → plugin template dirs → the bundled `templates/`; the `default:`
 * prefix forces the bundled copy. Every render returns the `Templates considered` comment.
 */
import nunjucks from "nunjucks";
import { Markup } from "../util/markup.ts";
import {
  installFilters,
  type NunjucksEnvironment,
  patchRuntime,
  safe,
} from "./template_filters.ts";
import { tableCells } from "./table_cells.ts";
import type { DisplayRow } from "./display_row.ts";
import { TemplateLoader } from "./template_loader.ts";
import { templatesConsideredComment } from "./template_lookup.ts";
import { cssClass } from "./css_class.ts";
import { pathWithAddedArgs, pathWithRemovedArgs, pathWithReplacedArgs } from "./url_helpers.ts";

/** Options for a new environment. */
export interface TemplateEnvironmentOptions {
  /** User template directories (`--template-dir`), searched first. */
  templateDirs?: string[];
  /** Plugin template directories, searched after the user dirs. */
  pluginTemplateDirs?: string[];
  /** Extra globals, e.g. `urls`. */
  globals?: Record<string, unknown>;
  /** Override the default templates folder (tests). */
  defaultDir?: string;
}

/** What one render produced. */
export interface RenderResult {
  /** The page HTML, ending with the `Templates considered` comment. */
  html: string;
  /** The template actually used. */
  template: string;
  /** Every candidate, in order. */
  considered: string[];
}

/** No candidate template exists. */
export class TemplateNotFound extends Error {
  override name = "TemplateNotFound";
}

/** The template environment shared by every page render. */
export class TemplateEnvironment {
  /** The nunjucks Environment, handed to `prepare_jinja2_environment` hooks. */
  readonly env: NunjucksEnvironment;
  readonly loader: TemplateLoader;

  constructor(options: TemplateEnvironmentOptions = {}) {
    patchRuntime();
    this.loader = new TemplateLoader(options.templateDirs ?? [], options.defaultDir);
    for (const dir of options.pluginTemplateDirs ?? []) this.loader.addPluginDir(dir);
    this.env = new nunjucks.Environment(this.loader, {
      autoescape: true,
      throwOnUndefined: false,
    }) as NunjucksEnvironment;
    installFilters(this.env);
    this.env.addFilter("to_css_class", (name: never) => cssClass(String(name ?? "")));
    this.env.addFilter(
      "table_cells",
      (row: never, stacked: never) => safe(tableCells(row as DisplayRow, stacked)),
    );
    this.env.addGlobal("path_with_replaced_args", pathWithReplacedArgs);
    this.env.addGlobal("path_with_added_args", pathWithAddedArgs);
    this.env.addGlobal("path_with_removed_args", pathWithRemovedArgs);
    // Fallback when a render has no request: forms still render, with an empty token.
    this.env.addGlobal("csrftoken", () => "");
    for (const [name, value] of Object.entries(options.globals ?? {})) {
      this.env.addGlobal(name, value);
    }
  }

  /** Add a plugin's `templates/` folder (searched after user dirs, before the defaults). */
  addPluginTemplateDir(dir: string): void {
    this.loader.addPluginDir(dir);
    // nunjucks keeps compiled templates on the loader; a new dir may shadow cached ones.
    this.loader.cache = {};
  }

  /** Register a filter (also available to hooks through `env`). */
  addFilter(name: string, fn: (...args: never[]) => unknown): void {
    this.env.addFilter(name, fn);
  }

  /** Register a global value or function. */
  addGlobal(name: string, value: unknown): void {
    this.env.addGlobal(name, value);
  }

  /** True when some template directory has this name (`default:` prefix honoured). */
  exists(name: string): boolean {
    return this.loader.exists(name);
  }

  /**
   * Compiles `names` now (those that exist), so that the first page rendering each does not pay
   * for it. A server calls this before it listens: the first table page of a fresh server spent
   * 100–250 ms compiling its templates on a loaded machine (bench/big_files.ts).
   */
  precompile(names: string[]): void {
    for (const name of names) {
      if (this.loader.exists(name)) this.env.getTemplate(name, true);
    }
  }

  /**
   * Renders Vitrine's own templates `names` (`default:`) once with no data, the output dropped:
   * V8 compiles a template's code the first time it runs, and the first table page of a fresh
   * server spent 20–30 ms more CPU than the next one doing that (3–5 times as long on a loaded
   * machine, bench/big_files.ts). They call only Vitrine's own filters, so rendering them without
   * data does nothing else; one that fails without data is simply less warmed.
   */
  warm(names: string[]): void {
    for (const name of names) {
      try {
        this.env.render(`default:${name}`, {});
      } catch {
        // Warmed up to where it failed.
      }
    }
  }

  /** The first candidate that exists, or null. */
  select(names: string | string[]): string | null {
    const candidates = typeof names === "string" ? [names] : names;
    return candidates.find((name) => this.loader.exists(name)) ?? null;
  }

  /**
   * Render the first existing template of `names` with `context` (already fully resolved:
   * no promises). Throws `TemplateNotFound` when none exists. `env` is the environment a
   * `jinja2_environment_from_request` hook chose for this request, when one did.
   */
  render(
    names: string | string[],
    context: Record<string, unknown> = {},
    env: NunjucksEnvironment = this.env,
  ): RenderResult {
    const considered = typeof names === "string" ? [names] : [...names];
    const template = this.select(considered);
    if (template === null) {
      throw new TemplateNotFound(`Cannot find template: ${considered.join(", ")}`);
    }
    const body = env.render(template, context);
    const html = `${body}\n${templatesConsideredComment(considered, template)}`;
    return { html, template, considered };
  }

  /** Render without the trailing comment (includes, fragments, custom pages' inner use). */
  renderFragment(name: string, context: Record<string, unknown> = {}): Markup {
    return new Markup(this.env.render(name, context));
  }

  /** Render template source text (plugins, tests). */
  renderString(source: string, context: Record<string, unknown> = {}): string {
    return this.env.renderString(source, context);
  }
}
