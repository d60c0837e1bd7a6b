/**
 * What the rendering layer needs from the service: the same pattern as `db/host.ts`. `Service`
 * implements it; a page is rendered with nothing else.
 *
 * @module
 */
import type { HookCaller } from "../plugins/hooks.ts";
import type { Signer } from "../auth/signer.ts";
import type { Settings } from "../config/settings.ts";
import type { Metadata } from "../config/metadata.ts";
import type { Urls } from "../http/urls.ts";
import type { Request } from "../http/request.ts";
import type { TemplateEnvironment } from "./environment.ts";

/** The slice of `svc` that renders pages, cells and streams. */
export interface RenderHost {
  /** Calls plugin hooks (`svc` supplied). */
  readonly hooks: HookCaller;
  /** The template environment (defaults, `--template-dir`, plugin templates). */
  readonly templates: TemplateEnvironment;
  /** Signs cookies and tokens (CSRF, flash messages). */
  readonly signer: Signer;
  /** Every setting. */
  readonly settings: Settings;
  /** URL builders honouring `base_url`. */
  readonly urls: Urls;
  /** One setting's value. */
  setting(key: string): unknown;
  /** Metadata merged from `get_metadata` hooks and the local file. */
  metadata(): Metadata;
  /** An absolute URL for a path on this site. */
  absolute_url(request: Request, path: string): string;
}
