/**
 * Example plugin: a custom output format through `register_output_renderer`.
 *
 * Every table, row and query page gains a `.md` representation: the rows as a Markdown table,
 * e.g. `/fixtures/facetable.md`.
 *
 * Run: `vitrine serve data.db --plugin examples/plugins/markdown_output.ts`
 */
// Published plugins import the same names from the vitrine package instead of a path.
import { type HookArgs, type OutputRenderer, Response } from "../../mod.ts";

export const version = "0.1.0";

/** The named values `render` receives (a subset; see docs/plugins.md). */
interface RenderArgs {
  columns: string[];
  rows: Iterable<unknown>;
  error?: string | null;
}

/** One format, `.md`. `can_render` is omitted, so every page offers it. */
export function register_output_renderer(_: HookArgs<"register_output_renderer">): OutputRenderer {
  return { extension: "md", render: (args) => renderMarkdown(args as unknown as RenderArgs) };
}

function renderMarkdown({ columns, rows, error }: RenderArgs): Response {
  if (error) return new Response(`Error: ${error}\n`, { status: 400, content_type: "text/plain" });
  const lines = [row(columns), row(columns.map(() => "---"))];
  for (const item of rows) {
    lines.push(row(columns.map((column, i) => cellOf(item, column, i))));
  }
  return new Response(lines.join("\n") + "\n", {
    content_type: "text/markdown; charset=utf-8",
  });
}

/** Rows may be arrays (by position) or objects (by column name). */
function cellOf(item: unknown, column: string, index: number): unknown {
  return Array.isArray(item) ? item[index] : (item as Record<string, unknown>)[column];
}

function row(cells: unknown[]): string {
  return `| ${cells.map(escapeCell).join(" | ")} |`;
}

function escapeCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  return String(value).replaceAll("|", "\\|").replace(/\r?\n/g, " ");
}
