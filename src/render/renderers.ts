/**
 * Output renderers from `register_output_renderer`: each adds a URL extension (`.atom`, `.geojson`)
 * to table, row, query and database pages. `render` gets one object of named values and returns a
 * Response, the deprecated `{body, content_type, status_code, headers}` dict, or null.
 */
import { Response } from "../http/response.ts";
import { awaitMeMaybe } from "../util/await_me_maybe.ts";

/** The named values a renderer's `render` and `can_render` receive. */
export interface RenderArgs {
  svc: unknown;
  columns: string[];
  rows: unknown[];
  sql: string | null;
  query_name: string | null;
  database: string;
  table: string | null;
  request: unknown;
  error: string | null;
  truncated: boolean | null;
  view_name: string;
  data?: Record<string, unknown>;
}

/** One registered renderer. */
export interface OutputRenderer {
  extension: string;
  render: (args: RenderArgs) => unknown;
  can_render?: (args: RenderArgs) => unknown;
}

/** Flattens hook results (a dict or a list of dicts each) into extension → renderer. */
export function collectRenderers(results: unknown[]): Map<string, OutputRenderer> {
  const renderers = new Map<string, OutputRenderer>();
  for (const entry of results.flat()) {
    const renderer = entry as OutputRenderer;
    if (
      !renderer || typeof renderer.extension !== "string" || typeof renderer.render !== "function"
    ) {
      throw new Error("register_output_renderer must return {extension, render, can_render?}");
    }
    renderers.set(renderer.extension, renderer);
  }
  return renderers;
}

/** True when the renderer accepts this data (no `can_render` means it accepts everything). */
export async function canRender(renderer: OutputRenderer, args: RenderArgs): Promise<boolean> {
  if (!renderer.can_render) return true;
  return Boolean(await awaitMeMaybe(renderer.can_render(args)));
}

/** Runs a renderer and normalises its answer to a Response (null: it declined). */
export async function runRenderer(
  renderer: OutputRenderer,
  args: RenderArgs,
): Promise<Response | null> {
  const result = await awaitMeMaybe(renderer.render(args));
  if (result === null || result === undefined) return null;
  if (result instanceof Response) return result;
  if (result instanceof globalThis.Response) return Response.fromWeb(result);
  const legacy = result as {
    body?: string | Uint8Array;
    content_type?: string;
    status_code?: number;
    headers?: Record<string, string>;
  };
  return new Response(legacy.body ?? "", {
    status: legacy.status_code ?? 200,
    headers: legacy.headers ?? {},
    content_type: legacy.content_type ?? "text/plain",
  });
}
