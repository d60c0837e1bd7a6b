/**
 * A router of precompiled RegExp routes. Matching is a linear scan, first match wins: RegExp tests
 * cost about 0.3 µs each, where URLPattern costs 12–30 µs (notes/deno-tech.md §6).
 */

/** A registered route. `view` is opaque to the router. */
export interface Route<View = unknown> {
  /** Uppercase methods, or "*" for any. */
  methods: ReadonlySet<string> | "*";
  pattern: RegExp;
  view: View;
  name: string | null;
  /** Text every path the pattern matches starts with (`/-/` for most built-in pages), or "". */
  prefix: string;
  /** Text every path it matches ends with (`/-/insert` for the write API's), or "". */
  suffix: string;
}

/** A successful match. */
export interface RouteMatch<View = unknown> {
  view: View;
  /** Named groups that took part in the match (unmatched optional groups are left out). */
  url_vars: Record<string, string>;
  route: Route<View>;
}

/** The path matched some route, but none for this method (answer 405 with `Allow`). */
export interface MethodMismatch {
  allowedMethods: string[];
}

/** Options of {@link Router.add}. */
export interface AddRouteOptions {
  name?: string | null;
}

/** Ordered routes; plugin routes are prepended so they win over built-ins. */
export class Router<View = unknown> {
  #routes: Route<View>[] = [];

  /** Append a route. A string pattern is compiled as `^pattern$`. */
  add(
    methods: string[] | "*",
    pattern: RegExp | string,
    view: View,
    options: AddRouteOptions = {},
  ): this {
    this.#routes.push(makeRoute(methods, pattern, view, options));
    return this;
  }

  /** Insert a route before every existing route. */
  prepend(
    methods: string[] | "*",
    pattern: RegExp | string,
    view: View,
    options: AddRouteOptions = {},
  ): this {
    this.#routes.unshift(makeRoute(methods, pattern, view, options));
    return this;
  }

  /** The routes in matching order. */
  get routes(): readonly Route<View>[] {
    return this.#routes;
  }

  /**
   * The first route whose pattern matches `pathname` and accepts `method` (HEAD is accepted by GET
   * routes). When only the method is wrong, `{ allowedMethods }`; when nothing matches, null.
   *
   * The first matching pattern decides what the path *is*: after a method mismatch only routes with
   * the same pattern (the same path registered for other methods) are still considered, so
   * `GET /-/logout` is a 405, never a fall-through to `/<db>/<table>`.
   */
  match(method: string, pathname: string): RouteMatch<View> | MethodMismatch | null {
    const wanted = method.toUpperCase();
    let allowed: Set<string> | null = null;
    let claimedBy: string | null = null;
    for (const route of this.#routes) {
      if (claimedBy !== null && route.pattern.source !== claimedBy) continue;
      // Most routes are told apart by their first characters: a data page skips the twenty
      // `/-/…` patterns without running them.
      if (route.prefix && !pathname.startsWith(route.prefix)) continue;
      if (route.suffix && !pathname.endsWith(route.suffix)) continue;
      const found = route.pattern.exec(pathname);
      if (!found) continue;
      if (accepts(route.methods, wanted)) {
        return { view: route.view, url_vars: definedGroups(found.groups), route };
      }
      claimedBy = route.pattern.source;
      allowed ??= new Set();
      for (const m of route.methods as ReadonlySet<string>) allowed.add(m);
      if ((route.methods as ReadonlySet<string>).has("GET")) allowed.add("HEAD");
    }
    return allowed ? { allowedMethods: [...allowed] } : null;
  }

  /** The first route whose pattern matches `pathname`, whatever its methods: what the path is. */
  claimant(pathname: string): Route<View> | null {
    return this.#routes.find((route) =>
      pathname.startsWith(route.prefix) && pathname.endsWith(route.suffix) &&
      route.pattern.test(pathname)
    ) ?? null;
  }
}

/** True when a match result is a 405 rather than a route. */
export function isMethodMismatch<View>(
  result: RouteMatch<View> | MethodMismatch | null,
): result is MethodMismatch {
  return result !== null && "allowedMethods" in result;
}

function makeRoute<View>(
  methods: string[] | "*",
  pattern: RegExp | string,
  view: View,
  options: AddRouteOptions,
): Route<View> {
  const compiled = typeof pattern === "string" ? compilePattern(pattern) : pattern;
  return {
    methods: methods === "*" ? "*" : new Set(methods.map((m) => m.toUpperCase())),
    pattern: compiled,
    view,
    name: options.name ?? null,
    prefix: literalPrefix(compiled),
    suffix: literalSuffix(compiled),
  };
}

/** Characters that stand for themselves in a pattern (and, escaped, `.` `/` `-` too). */
const LITERAL = /[A-Za-z0-9\/_-]/;

/**
 * The text every match of `pattern` starts with: the plain characters after its leading `^`,
 * less a last one that a quantifier makes optional. "" when there is none, or when the pattern
 * ignores case, is multi-line or has a top-level alternative (`^/a|^/b`).
 */
export function literalPrefix(pattern: RegExp): string {
  const source = pattern.source;
  if (!source.startsWith("^") || /[im]/.test(pattern.flags) || hasTopLevelBar(source)) return "";
  let prefix = "";
  let i = 1;
  while (i < source.length) {
    const char = source[i];
    if (char === "\\" && /[./-]/.test(source[i + 1] ?? "")) {
      prefix += source[i + 1];
      i += 2;
    } else if (char !== "\\" && LITERAL.test(char)) {
      prefix += char;
      i++;
    } else break;
  }
  return /^[?*+{]/.test(source.slice(i)) ? prefix.slice(0, -1) : prefix;
}

/**
 * The text every match of `pattern` ends with: the plain characters before its final `$`. "" when
 * there is none (the pattern ends with a group, a class or a quantifier), or when the pattern
 * ignores case, is multi-line or has a top-level alternative.
 */
export function literalSuffix(pattern: RegExp): string {
  const source = pattern.source;
  const end = source.length - 1;
  if (!source.endsWith("$") || source[end - 1] === "\\") return "";
  if (/[im]/.test(pattern.flags) || hasTopLevelBar(source)) return "";
  let suffix = "";
  let i = end - 1;
  while (i >= 0) {
    const char = source[i];
    const escaped = source[i - 1] === "\\" && source[i - 2] !== "\\";
    if (escaped && /[./-]/.test(char)) {
      suffix = char + suffix;
      i -= 2;
    } else if (!escaped && char !== "\\" && LITERAL.test(char)) {
      suffix = char + suffix;
      i--;
    } else break;
  }
  return suffix;
}

/** True when `source` has a `|` outside every group and character class. */
function hasTopLevelBar(source: string): boolean {
  let depth = 0;
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i];
    if (char === "\\") i++;
    else if (inClass) inClass = char !== "]";
    else if (char === "[") inClass = true;
    else if (char === "(") depth++;
    else if (char === ")") depth--;
    else if (char === "|" && depth === 0) return true;
  }
  return false;
}

/** `"/foo/(?P<id>\d+)"` → `/^\/foo\/(?<id>\d+)$/`; Python's `(?P<name>` is accepted for ports. */
function compilePattern(source: string): RegExp {
  let body = source.replaceAll("(?P<", "(?<");
  if (!body.startsWith("^")) body = "^" + body;
  if (!body.endsWith("$")) body += "$";
  return new RegExp(body);
}

function accepts(methods: ReadonlySet<string> | "*", method: string): boolean {
  if (methods === "*") return true;
  return methods.has(method) || (method === "HEAD" && methods.has("GET"));
}

function definedGroups(groups: Record<string, string | undefined> | undefined) {
  const vars: Record<string, string> = {};
  if (groups) {
    for (const key in groups) {
      const value = groups[key];
      if (value !== undefined) vars[key] = value;
    }
  }
  return vars;
}
