/**
 * Jinja-compatible filters, tests and runtime tweaks for nunjucks, so templates written for
 * this kind of tool (Jinja syntax) keep working, and `Markup` values are never escaped.
 */
import nunjucks from "nunjucks";
import { Markup } from "../util/markup.ts";
import { patchFrameSet } from "./template_frames.ts";

// nunjucks ships without types; these are the few members we touch.
type SafeStringClass = new (value: string) => object;
interface NunjucksRuntime {
  SafeString: SafeStringClass;
  suppressValue: (value: unknown, autoescape: boolean) => unknown;
  memberLookup: (obj: unknown, key: unknown, ...rest: unknown[]) => unknown;
  Frame: { prototype: unknown };
  __vitrinePatched?: boolean;
}
/** The subset of a nunjucks Environment that filters and hooks use. */
export interface NunjucksEnvironment {
  addFilter(name: string, fn: (...args: never[]) => unknown, async?: boolean): unknown;
  addGlobal(name: string, value: unknown): unknown;
  addTest(name: string, fn: (...args: never[]) => boolean): unknown;
  getFilter(name: string): unknown;
  /**
   * A template, e.g. for `svc.render_template(template)`; compiled now with `eagerCompile`, else
   * at its first render.
   */
  getTemplate(
    name: string,
    eagerCompile?: boolean,
  ): { render(context: object): string; path?: string };
  render(name: string, context: object): string;
  renderString(source: string, context: object): string;
}

const runtime = nunjucks.runtime as NunjucksRuntime;

/** Wrap trusted HTML so nunjucks' autoescape leaves it alone. */
export function safe(html: string): object {
  return new runtime.SafeString(html);
}

function isSafe(value: unknown): boolean {
  return value instanceof Markup || value instanceof runtime.SafeString;
}

function escapeValue(value: unknown): object {
  if (value instanceof Markup) return safe(value.toString());
  if (value instanceof runtime.SafeString) return value as object;
  return safe(Markup.escape(value).toString());
}

/**
 * Escaped, with every non-ASCII character as a numeric reference (`≥` → `&#8805;`). For the short
 * labels of the default templates: one such character anywhere makes V8 hold the whole page as
 * two-byte text, and encoding a two-byte page for the response costs several times more.
 */
function asciiHtml(value: unknown): object {
  const escaped = escapeValue(value).toString();
  return safe(escaped.replace(/[\u0080-\u{10FFFF}]/gu, (c) => `&#${c.codePointAt(0)};`));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// Jinja's dict methods, offered only on plain objects that lack the key, so class instances
// with their own `get`/`keys` (MultiParams, rows) keep their behaviour.
const DICT_METHODS: Record<string, (this: Record<string, unknown>, ...args: unknown[]) => unknown> =
  {
    items() {
      return Object.entries(this);
    },
    keys() {
      return Object.keys(this);
    },
    values() {
      return Object.values(this);
    },
    get(key, fallback = null) {
      return Object.hasOwn(this, key as string) ? this[key as string] : fallback;
    },
  };

/**
 * Patch the shared nunjucks runtime once: Markup passes unescaped; Jinja dict methods; a
 * `Frame.set` that does not split every name (`template_frames.ts`).
 */
export function patchRuntime(): void {
  if (runtime.__vitrinePatched) return;
  runtime.__vitrinePatched = true;
  patchFrameSet(runtime.Frame);
  const suppress = runtime.suppressValue;
  runtime.suppressValue = (value, autoescape) =>
    value instanceof Markup ? value.toString() : suppress(value, autoescape);
  const lookup = runtime.memberLookup;
  runtime.memberLookup = function (this: unknown, obj, key, ...rest) {
    if (
      rest.length === 0 && typeof key === "string" && isPlainObject(obj) &&
      Object.hasOwn(DICT_METHODS, key) && !(key in obj)
    ) {
      return DICT_METHODS[key].bind(obj);
    }
    return lookup.call(this, obj, key, ...rest);
  };
}

/** JSON text safe inside HTML and `<script>` (like Jinja's `tojson`). */
function toJson(value: unknown, indent?: number): string {
  const text = JSON.stringify(
    value === undefined ? null : value,
    (_key, v) => (typeof v === "bigint" ? Number(v) : v instanceof Markup ? v.toString() : v),
    indent,
  ) ?? "null";
  return text.replace(/[<>&']/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `1536` → `1.5 KB`; whole bytes below 1024. */
function formatBytes(bytes: number): string {
  let current = Number(bytes);
  const units = ["bytes", "KB", "MB", "GB", "TB"];
  let unit = 0;
  while (current >= 1024 && unit < units.length - 1) {
    current /= 1024;
    unit++;
  }
  return unit === 0 ? `${Math.trunc(current)} ${units[0]}` : `${current.toFixed(1)} ${units[unit]}`;
}

/** `1234567` → `1,234,567` (Python's `"{:,}"`). */
function numberFormat(value: unknown): string {
  if (value === null || value === undefined || value === "") return "";
  const number = typeof value === "bigint" ? value : Number(value);
  if (typeof number === "number" && !Number.isFinite(number)) return String(value);
  const [whole, fraction] = String(number).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/** Python's `urllib.parse.quote_plus`: spaces as `+`, everything else percent-encoded. */
export function quotePlus(value: unknown): string {
  return encodeURIComponent(String(value ?? "")).replace(/%20/g, "+");
}

/** Register the Jinja-compat filters and tests on an environment. */
export function installFilters(env: NunjucksEnvironment): void {
  env.addFilter("tojson", (value: never, indent?: never) => safe(toJson(value, indent)));
  env.addFilter("quote_plus", (value: never) => quotePlus(value));
  env.addFilter("escape", (value: never) => escapeValue(value));
  env.addFilter("e", (value: never) => escapeValue(value));
  env.addFilter("ascii_html", (value: never) => asciiHtml(value));
  env.addFilter("format_bytes", (value: never) => formatBytes(value));
  env.addFilter("number_format", (value: never) => numberFormat(value));
  env.addFilter("intcomma", (value: never) => numberFormat(value));
  env.addFilter(
    "length",
    (value: never) => lengthOf(value),
  );
  env.addTest("none", (value: never) => value === null || value === undefined);
  env.addTest("safe", (value: never) => isSafe(value));
}

function lengthOf(value: unknown): number {
  if (value === null || value === undefined) return 0;
  if (value instanceof Map || value instanceof Set) return value.size;
  if (typeof value === "string" || value instanceof String) return value.length;
  if (Array.isArray(value)) return value.length;
  const length = (value as { length?: unknown }).length;
  if (typeof length === "number") return length;
  return isPlainObject(value) ? Object.keys(value).length : 0;
}
