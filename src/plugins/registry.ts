/**
 * The plugin registry: which modules implement which hooks, and how hooks are called.
 *
 * **Call order** (pluggy's, which Datasette plugins expect):
 * 1. implementations marked `tryfirst`, then unmarked ones, then those marked `trylast`;
 * 2. within each group, the plugin registered **last is called first**.
 *
 * The built-in default plugins are registered before any user plugin, so user plugins run before
 * the defaults, and a `trylast` default (such as the default `forbidden`) runs after everything.
 * `--plugins-dir` files are registered next (sorted by file name), then installed plugins
 * (`--plugin`, `VITRINE_PLUGINS`, the config `plugins` list) in that order.
 *
 * **Results** may be a value, a promise, or a function returning either; they are resolved
 * recursively (a function returning a promise of a function is fine). `null` and `undefined`
 * mean "no answer" and are dropped. `asgi_wrapper` results are functions by contract and are only
 * awaited, never called.
 *
 * **Time limit**: a promise an implementation returns must settle within `timeLimitMs` (the
 * `hook_time_limit_ms` setting), else the call fails with a {@link HookTimeout} naming the plugin
 * and the hook — a page then fails with a 500 instead of hanging, and the server goes on.
 * `startup` hooks are exempt (loading data at start-up may take as long as it takes), and so are
 * the built-in default plugins, whose own calls to other plugins' hooks are limited.
 *
 * @module
 */

import {
  FUNCTION_RESULT,
  HOOK_NAMES,
  type HookArgs,
  type HookName,
  isHookName,
} from "./hookspecs.ts";
import { hookimplOptions } from "./hookimpl.ts";
import { PluginError, type PluginInfo, type PluginListing, pluginListing } from "./plugin_info.ts";
import { withinTimeLimit } from "../util/time_limit.ts";

interface Impl {
  plugin: PluginInfo;
  hook: HookName;
  fn: (args: unknown) => unknown;
  /** 0 tryfirst, 1 normal, 2 trylast. */
  rank: number;
  /** Registration sequence number; larger is more recent. */
  seq: number;
}

/** Options for `call` / `callFirst` / `callSync`. */
export interface CallOptions {
  /** Only call implementations of plugins this returns true for. */
  filter?: (plugin: PluginInfo) => boolean;
  /**
   * Called with an error an implementation threw (or rejected with) and its plugin; whatever it
   * throws reaches the caller instead. Without it errors reach the caller unchanged, as in pluggy.
   */
  onError?: (error: unknown, plugin: PluginInfo) => never;
}

/** Export names that look like hooks: lower snake_case with at least one underscore. */
const HOOK_LIKE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$/;

/** Deep enough for any honest chain of functions and promises; stops a self-returning loop. */
const MAX_RESOLVE_DEPTH = 32;

/** Holds every plugin and calls hook implementations in the documented order. */
export class PluginRegistry {
  #plugins = new Map<string, PluginInfo>();
  /** How many of them are not Vitrine's own (asked on every request: `Service.pageCache`). */
  #others = 0;
  #impls = new Map<HookName, Impl[]>();
  #seq = 0;
  #changes = 0;
  /** Milliseconds an implementation's promise may take to settle; 0 for no limit. */
  timeLimitMs = 0;

  /**
   * Registers a plugin module's hook implementations. Exported functions named as hooks (or
   * marked with `hookimpl({ specname })`) are implementations; an exported function whose name
   * looks like a hook but is not one throws `PluginError`; other exports are ignored.
   */
  register(module: Record<string, unknown>, info: PluginInfo): void {
    if (this.#plugins.has(info.name)) {
      throw new PluginError(
        info.name,
        `Cannot load plugin "${info.name}": a plugin with that name is already registered`,
      );
    }
    const impls: Impl[] = [];
    for (const [exportName, value] of Object.entries(module)) {
      if (typeof value !== "function") continue;
      const options = hookimplOptions(value);
      const hook = options?.specname ?? exportName;
      if (!isHookName(hook)) {
        if (options || HOOK_LIKE.test(exportName)) {
          throw new PluginError(
            info.name,
            `Cannot load plugin "${info.name}": unknown hook "${hook}"${
              unknownHookHint(hook, !options?.specname)
            }`,
          );
        }
        continue;
      }
      const rank = options?.tryfirst ? 0 : options?.trylast ? 2 : 1;
      impls.push({ plugin: info, hook, fn: value as Impl["fn"], rank, seq: ++this.#seq });
    }
    this.#plugins.set(info.name, { ...info });
    this.#changes++;
    if (!info.builtin) this.#others++;
    for (const impl of impls) {
      const list = this.#impls.get(impl.hook) ?? [];
      list.push(impl);
      list.sort((a, b) => a.rank - b.rank || b.seq - a.seq);
      this.#impls.set(impl.hook, list);
    }
  }

  /** Removes a plugin and its implementations; returns false when it was not registered. */
  unregister(name: string): boolean {
    const info = this.#plugins.get(name);
    if (!info) return false;
    this.#plugins.delete(name);
    this.#changes++;
    if (!info.builtin) this.#others--;
    for (const [hook, list] of this.#impls) {
      const kept = list.filter((impl) => impl.plugin.name !== name);
      if (kept.length) this.#impls.set(hook, kept);
      else this.#impls.delete(hook);
    }
    return true;
  }

  /** How many times a plugin was registered or removed: what hooks answer may change with it. */
  get generation(): number {
    return this.#changes;
  }

  /** True when every implementation of `name` (if any) is one of Vitrine's own. */
  onlyBuiltin(name: HookName): boolean {
    return (this.#impls.get(name) ?? []).every((impl) => impl.plugin.builtin);
  }

  /** True when at least one plugin implements `name`. */
  hasImpl(name: HookName): boolean {
    return (this.#impls.get(name)?.length ?? 0) > 0;
  }

  /** Facts about one registered plugin. */
  get(name: string): PluginInfo | undefined {
    const info = this.#plugins.get(name);
    return info ? { ...info } : undefined;
  }

  /** True while any plugin other than Vitrine's own is registered. */
  get hasOthers(): boolean {
    return this.#others > 0;
  }

  /** Every registered plugin, in registration order. */
  list(): PluginInfo[] {
    return [...this.#plugins.values()].map((info) => ({ ...info }));
  }

  /**
   * Every hook implementation as text — plugin, version, hook, order and the function's source —
   * for fingerprints of what a process serves: two processes whose plugins differ in any of it
   * disagree.
   */
  implementationsText(): string {
    const lines: string[] = [];
    for (const [hook, list] of this.#impls) {
      for (const impl of list) {
        const { name, version } = impl.plugin;
        lines.push(`${name}@${version ?? ""} ${hook} ${impl.rank}\n${impl.fn.toString()}`);
      }
    }
    return lines.sort().join("\n");
  }

  /** Template directories bundled by plugins, most recently registered first (call order). */
  templateDirs(): string[] {
    return this.list().reverse().flatMap((info) => info.templatesDir ? [info.templatesDir] : []);
  }

  /** The `/-/plugins` listing, sorted by name; built-in plugins only with `includeBuiltin`. */
  plugins({ includeBuiltin = false }: { includeBuiltin?: boolean } = {}): PluginListing[] {
    const hooksByPlugin = new Map<string, string[]>();
    for (const list of this.#impls.values()) {
      for (const impl of list) {
        const hooks = hooksByPlugin.get(impl.plugin.name) ?? [];
        hooks.push(impl.hook);
        hooksByPlugin.set(impl.plugin.name, hooks);
      }
    }
    return [...this.#plugins.values()]
      .filter((info) => includeBuiltin || !info.builtin)
      .map((info) => pluginListing(info, hooksByPlugin.get(info.name) ?? []))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Calls every implementation in order; returns the non-null results, each resolved. */
  call<N extends HookName>(
    name: N,
    args: HookArgs<N>,
    options: CallOptions = {},
  ): Promise<unknown[]> {
    return this.#collect(name, args, options, false) as Promise<unknown[]>;
  }

  /** Calls implementations in order until one answers non-null; returns it, or null. */
  callFirst<N extends HookName>(
    name: N,
    args: HookArgs<N>,
    options: CallOptions = {},
  ): Promise<unknown> {
    return this.#collect(name, args, options, true);
  }

  /**
   * Calls a synchronous hook (`prepare_connection`, `get_metadata`); returns the non-null results.
   * A promise result is a programmer error: it is rejected with the plugin's name.
   */
  callSync<N extends HookName>(name: N, args: HookArgs<N>, options: CallOptions = {}): unknown[] {
    const results: unknown[] = [];
    for (const impl of this.#ordered(name, options)) {
      const value = impl.fn(args);
      if (isThenable(value)) {
        value.then(undefined, () => {}); // the result is unusable; avoid an unhandled rejection
        throw new TypeError(
          `Plugin "${impl.plugin.name}": hook "${name}" must be synchronous but returned a Promise`,
        );
      }
      if (value !== null && value !== undefined) results.push(value);
    }
    return results;
  }

  /** The plugins implementing `name`, in call order (to tell whose answer is whose). */
  implementers(name: HookName): PluginInfo[] {
    return this.#ordered(name, {}).map((impl) => impl.plugin);
  }

  #ordered(name: HookName, { filter }: CallOptions): Impl[] {
    const list = this.#impls.get(name) ?? [];
    return filter ? list.filter((impl) => filter(impl.plugin)) : [...list];
  }

  /**
   * `call` (every answer) or `callFirst` (the first). Most implementations answer at once, with a
   * plain value: those are taken without a promise each, and the loop turns asynchronous only at
   * the first answer that needs waiting for (a promise, or a function returning one). A page asks
   * a dozen hooks, each through several awaits per implementation when they were all async.
   */
  #collect(
    name: HookName,
    args: unknown,
    options: CallOptions,
    firstOnly: boolean,
  ): Promise<unknown[] | unknown> {
    try {
      const impls = this.#ordered(name, options);
      const results: unknown[] = [];
      for (let i = 0; i < impls.length; i++) {
        const value = this.#answerNow(name, impls[i], args, options);
        if (isThenable(value)) {
          return this.#collectLater(name, args, options, firstOnly, impls, i, value, results);
        }
        if (value === null || value === undefined) continue;
        if (firstOnly) return Promise.resolve(value);
        results.push(value);
      }
      return Promise.resolve(firstOnly ? null : results);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The rest of {@link #collect} once implementation `from` answered with `pending`. */
  async #collectLater(
    name: HookName,
    args: unknown,
    options: CallOptions,
    firstOnly: boolean,
    impls: Impl[],
    from: number,
    pending: PromiseLike<unknown>,
    results: unknown[],
  ): Promise<unknown[] | unknown> {
    for (let i = from; i < impls.length; i++) {
      const value = i === from
        ? await pending
        : await this.#answerNow(name, impls[i], args, options);
      if (value === null || value === undefined) continue;
      if (firstOnly) return value;
      results.push(value);
    }
    return firstOnly ? null : results;
  }

  /**
   * What `impl` answers: the value itself when it is ready now, else a promise of it (which
   * settles within the time limit). Errors go to `onError` when there is one.
   */
  #answerNow(name: HookName, impl: Impl, args: unknown, { onError }: CallOptions): unknown {
    const callable = !FUNCTION_RESULT.has(name);
    try {
      let value = impl.fn(args);
      for (let depth = 0; depth < MAX_RESOLVE_DEPTH; depth++) {
        if (callable && typeof value === "function") value = value();
        else if (isThenable(value)) return this.#resolveLater(name, impl, value, depth, onError);
        else return value;
      }
      throw new TypeError(`Hook "${name}" returned functions or promises nested too deeply`);
    } catch (error) {
      if (!onError) throw error;
      onError(error, impl.plugin);
    }
  }

  /** Waits for a promise an implementation answered with, and for what it resolves to. */
  async #resolveLater(
    name: HookName,
    impl: Impl,
    value: unknown,
    depth: number,
    onError: CallOptions["onError"],
  ): Promise<unknown> {
    const callable = !FUNCTION_RESULT.has(name);
    // Core's own implementations are exempt: the user hooks they call are limited themselves.
    const limit = name === "startup" || impl.plugin.builtin ? 0 : this.timeLimitMs;
    try {
      for (; depth < MAX_RESOLVE_DEPTH; depth++) {
        if (callable && typeof value === "function") value = value();
        else if (isThenable(value)) {
          value = await withinTimeLimit(
            value,
            limit,
            () => new HookTimeout(impl.plugin, name, limit),
          );
        } else return value;
      }
      throw new TypeError(`Hook "${name}" returned functions or promises nested too deeply`);
    } catch (error) {
      if (!onError) throw error;
      onError(error, impl.plugin);
    }
  }
}

/** A hook implementation's promise did not settle within the registry's time limit. */
export class HookTimeout extends PluginError {
  override name = "HookTimeout";
  /** The hook that was called. */
  readonly hook: string;

  constructor(plugin: PluginInfo, hook: string, ms: number) {
    super(
      plugin.name,
      `Plugin "${plugin.name}" did not answer the ${hook} hook within ${ms} ms ` +
        "(the hook_time_limit_ms setting)",
    );
    this.hook = hook;
  }
}

/**
 * For an unknown hook-like name: the hook it was probably meant to be (a typo within a few
 * letters), else how to keep a helper that is not a hook.
 */
function unknownHookHint(name: string, isExportName: boolean): string {
  let best: { hook: string; distance: number } | null = null;
  for (const hook of HOOK_NAMES) {
    const distance = editDistance(name, hook);
    if (!best || distance < best.distance) best = { hook, distance };
  }
  if (best && best.distance <= Math.max(2, Math.floor(name.length / 5))) {
    return ` (did you mean "${best.hook}"?)`;
  }
  if (!isExportName) return "";
  return " (a helper that is not a hook needs a camelCase name, or no export)";
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length];
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === "object" || typeof value === "function") && value !== null &&
    typeof (value as { then?: unknown }).then === "function";
}
