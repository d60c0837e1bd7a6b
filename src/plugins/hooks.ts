/**
 * `svc.hooks`: the one way Vitrine calls plugin hooks.
 *
 * ```ts
 * const menus = await svc.hooks.call("table_actions", { actor, database, table, request });
 * const actor = await svc.hooks.first("actor_from_request", { request });
 * const pieces = svc.hooks.callSync("get_metadata", { actor: null, key: null, ... });
 * ```
 *
 * Arguments and results are typed from `hookspecs.ts`, and `svc` is supplied here, so call sites
 * neither pass it nor cast what comes back. Which method a hook is called with is part of its
 * contract: first-result hooks (`forbidden`, `render_cell`, ...) only through `first`,
 * synchronous hooks (`prepare_connection`, `get_metadata`) only through `callSync`, every other
 * hook through `call`. The compiler enforces that for literal names, and each method checks it at
 * run time too.
 *
 * @module
 */

import { FIRST_RESULT, type HookArgs, type HookName, type Hooks, SYNC_ONLY } from "./hookspecs.ts";
import type { Service } from "./hookspecs.ts";
import type { CallOptions, PluginRegistry } from "./registry.ts";

/** Hooks whose first non-null answer is the result. */
export type FirstResultHook =
  | "actors_from_ids"
  | "render_cell"
  | "actor_from_request"
  | "forbidden"
  | "handle_exception"
  | "jinja2_environment_from_request";

/** Hooks that must answer synchronously. */
export type SyncHook = "prepare_connection" | "get_metadata";

/** Hooks whose every non-null answer is collected. */
export type CollectingHook = Exclude<HookName, FirstResultHook | SyncHook>;

/** What one implementation of hook `N` answers, once its promise or function is resolved. */
export type HookResult<N extends HookName> = NonNullable<Unwrapped<ReturnType<Hooks[N]>>>;

/** A hook's answer with its laziness removed: the value a function or promise resolves to. */
export type Unwrapped<T> = T extends () => infer R ? Awaited<R> : Awaited<T>;

/** A hook's arguments without `svc`, which the caller supplies. */
export type HookCallArgs<N extends HookName> = Omit<HookArgs<N>, "svc">;

/** Calls hooks on a registry on behalf of one service. */
export class HookCaller {
  readonly #registry: PluginRegistry;
  readonly #svc: () => Service | null;

  /** `svc` is a function so the caller can be built inside the service's constructor. */
  constructor(registry: PluginRegistry, svc: () => Service | null) {
    this.#registry = registry;
    this.#svc = svc;
  }

  /** Calls every implementation in order; returns their non-null answers. */
  call<N extends CollectingHook>(
    name: N,
    args: HookCallArgs<N>,
    options: CallOptions = {},
  ): Promise<HookResult<N>[]> {
    // Not async: a promise layer per hook call adds up over the dozen calls of a page.
    if (!isKind(name, "call")) return Promise.reject(wrongKind(name, "call"));
    return this.#registry.call(name, this.#withSvc(name, args), options) as Promise<
      HookResult<N>[]
    >;
  }

  /** Calls implementations until one answers non-null; returns that answer or null. */
  first<N extends FirstResultHook>(
    name: N,
    args: HookCallArgs<N>,
    options: CallOptions = {},
  ): Promise<HookResult<N> | null> {
    if (!isKind(name, "first")) return Promise.reject(wrongKind(name, "first"));
    return this.#registry.callFirst(name, this.#withSvc(name, args), options) as Promise<
      HookResult<N> | null
    >;
  }

  /** Calls a synchronous hook; returns the non-null answers. */
  callSync<N extends SyncHook>(name: N, args: HookCallArgs<N>): HookResult<N>[] {
    expectKind(name, "callSync");
    return this.#registry.callSync(name, this.#withSvc(name, args)) as HookResult<N>[];
  }

  /** True when at least one plugin (built-in defaults included) implements `name`. */
  has(name: HookName): boolean {
    return this.#registry.hasImpl(name);
  }

  #withSvc<N extends HookName>(_name: N, args: HookCallArgs<N>): HookArgs<N> {
    return { ...args, svc: this.#svc() } as HookArgs<N>;
  }
}

type CallKind = "call" | "first" | "callSync";

function kindOf(name: HookName): CallKind {
  return FIRST_RESULT.has(name) ? "first" : SYNC_ONLY.has(name) ? "callSync" : "call";
}

function isKind(name: HookName, method: CallKind): boolean {
  return kindOf(name) === method;
}

function wrongKind(name: HookName, method: CallKind): TypeError {
  return new TypeError(
    `Hook "${name}" is called with hooks.${kindOf(name)}(), not hooks.${method}()`,
  );
}

function expectKind(name: HookName, method: CallKind): void {
  if (!isKind(name, method)) throw wrongKind(name, method);
}
