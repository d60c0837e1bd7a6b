/**
 * Content-Security-Policy for HTML pages: scripts only from this site or carrying the page's
 * nonce (no `'unsafe-inline'`), so markup that slips into a page cannot run script.
 *
 * The nonce is made per request the first time a template asks for it (`csp_nonce` in every
 * page's context); every `<script>` the templates emit carries it, including the hooks'
 * `extra_js_urls` and `extra_body_script`. Other origins a page legitimately uses (a plugin's
 * stylesheet on a CDN, map tiles) are added to the policy through {@link allowCspSource} while
 * the page renders.
 *
 * @module
 */

import { randomBytes } from "node:crypto";
import type { Request } from "./request.ts";

/** The directives a page may widen. */
export type CspDirective = "script-src" | "style-src" | "img-src" | "connect-src" | "font-src";

interface CspState {
  nonce: string | null;
  sources: Map<CspDirective, Set<string>>;
}

const states = new WeakMap<Request, CspState>();

function stateOf(request: Request): CspState {
  let state = states.get(request);
  if (!state) {
    state = { nonce: null, sources: new Map() };
    states.set(request, state);
  }
  return state;
}

/** The request's script nonce (128 random bits, base64), made on first use. */
export function cspNonce(request: Request): string {
  const state = stateOf(request);
  state.nonce ??= randomBytes(16).toString("base64");
  return state.nonce;
}

/** True once a template of this request asked for the nonce: the body is one of our pages. */
export function usedCspNonce(request: Request): boolean {
  return states.get(request)?.nonce != null;
}

/**
 * Lets this request's page load `directive` resources from the origin of `url` (relative URLs
 * are this site and need nothing). A `{s}` subdomain placeholder, as in tile URL templates,
 * becomes a `*.` wildcard.
 */
export function allowCspSource(request: Request, directive: CspDirective, url: string): void {
  const source = sourceOf(url);
  if (source === null) return;
  const state = stateOf(request);
  let set = state.sources.get(directive);
  if (!set) state.sources.set(directive, set = new Set());
  set.add(source);
}

/** `https://a.example:8080` for an absolute http(s) URL; null for relative or other URLs. */
function sourceOf(url: string): string | null {
  const match = /^(https?):\/\/([^/?#]+)/i.exec(url.trim());
  if (!match) return null;
  const host = match[2].replace(/^\{s\}\./, "*.").replace(/[{}]/g, "");
  // Only characters a CSP host source may hold: anything else would end the directive.
  if (!/^(?:\*\.)?[A-Za-z0-9.-]+(?::\d+)?$/.test(host)) return null;
  return `${match[1].toLowerCase()}://${host.toLowerCase()}`;
}

/** Options of {@link contentSecurityPolicy}. */
export interface CspOptions {
  /** The `frame_ancestors` setting: who may frame the page (`'self'`, `'none'`, origins). */
  frameAncestors: string;
}

/**
 * The policy for an HTML page of `request`. Styles keep `'unsafe-inline'` (style attributes and
 * the editor's injected styles); scripts never do.
 */
export function contentSecurityPolicy(request: Request, options: CspOptions): string {
  const state = stateOf(request);
  const extra = (directive: CspDirective) => {
    const sources = state.sources.get(directive);
    return sources ? [...sources].map((source) => ` ${source}`).join("") : "";
  };
  const directives = [
    "default-src 'self'",
    // The origins of `extra_js_urls` as well as the nonce: a module from a CDN imports its
    // siblings, and those imports carry no nonce.
    `script-src 'self' 'nonce-${cspNonce(request)}'${extra("script-src")}`,
    `style-src 'self' 'unsafe-inline'${extra("style-src")}`,
    `img-src 'self' data: blob:${extra("img-src")}`,
    `font-src 'self' data:${extra("font-src")}`,
    `connect-src 'self'${extra("connect-src")}`,
    "object-src 'none'",
    "base-uri 'self'",
    `frame-ancestors ${options.frameAncestors}`,
  ];
  return directives.join("; ");
}
