/**
 * Example plugin: copy the rows of the current page as TSV, Markdown or LaTeX, as the well-known
 * `datasette-copyable` does.
 *
 * Every table, view, row and query page gains a `.copyable` format: a page with the rows in a text
 * area, links to switch between the formats (`?_table_format=tsv|markdown|latex`) and a "Copy to
 * clipboard" button. `?_raw=1` answers the text alone (`text/plain`), for scripts. The rows are
 * those of the page the link came from: its filters, sort and page size apply.
 *
 * Run: `vitrine serve data.db --plugin examples/plugins/copyable.ts`
 */
import {
  type HookArgs,
  type OutputRenderer,
  type RenderArgs,
  Response,
  type SqlRow,
} from "../../mod.ts";

export const version = "0.1.0";

/** The formats, by the name `_table_format` takes. */
export const FORMATS: Record<string, (columns: string[], rows: unknown[][]) => string> = {
  tsv: toTsv,
  markdown: toMarkdown,
  latex: toLatex,
};

export function register_output_renderer(_: HookArgs<"register_output_renderer">): OutputRenderer {
  return { extension: "copyable", render: (args) => renderCopyable(args) };
}

async function renderCopyable(args: RenderArgs): Promise<Response> {
  const { columns, rows: given, request, svc, error } = args;
  // Without `stream: true` a renderer gets the page's rows as an array.
  const rows = given as SqlRow[];
  if (error) return new Response(`Error: ${error}\n`, { status: 400, content_type: "text/plain" });
  const format = String(request.args.get("_table_format") ?? "tsv");
  const write = FORMATS[format];
  if (!write) {
    return new Response(
      `Unknown _table_format "${format}": use ${Object.keys(FORMATS).join(", ")}\n`,
      { status: 400, content_type: "text/plain; charset=utf-8" },
    );
  }
  const text = write(columns, rows.map((row) => columns.map((_, i) => row[i])));
  if (request.args.get("_raw")) {
    return new Response(text, { content_type: "text/plain; charset=utf-8" });
  }
  const links = Object.keys(FORMATS).map((name) => {
    const params = new URLSearchParams(request.query_string ?? "");
    params.set("_table_format", name);
    return { name, href: `${request.path}?${params}`, current: name === format };
  });
  const html = await svc.render_template("copyable.html", {
    text,
    format,
    links,
    back: request.path.replace(/\.copyable$/, "") +
      (request.query_string ? `?${removeFormatArgs(request.query_string)}` : ""),
  }, request);
  return Response.html(html);
}

function removeFormatArgs(query: string): string {
  const params = new URLSearchParams(query);
  params.delete("_table_format");
  params.delete("_raw");
  return params.toString();
}

function text(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (value instanceof Uint8Array) return `<${value.length} bytes>`;
  return String(value);
}

/** Tab-separated values; tabs and line breaks inside a value become spaces. */
export function toTsv(columns: string[], rows: unknown[][]): string {
  const line = (cells: unknown[]) => cells.map((cell) => text(cell).replace(/[\t\r\n]+/g, " "));
  return [columns, ...rows].map((cells) => line(cells).join("\t")).join("\n") + "\n";
}

/** A GitHub-flavoured Markdown table; pipes are escaped. */
export function toMarkdown(columns: string[], rows: unknown[][]): string {
  const line = (cells: unknown[]) =>
    `| ${
      cells.map((cell) => text(cell).replaceAll("|", "\\|").replace(/\r?\n/g, " ")).join(" | ")
    } |`;
  return [line(columns), line(columns.map(() => "---")), ...rows.map(line)].join("\n") + "\n";
}

const LATEX_SPECIALS: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "&": "\\&",
  "%": "\\%",
  "$": "\\$",
  "#": "\\#",
  "_": "\\_",
  "{": "\\{",
  "}": "\\}",
  "~": "\\textasciitilde{}",
  "^": "\\textasciicircum{}",
};

/** A LaTeX `tabular`; LaTeX's special characters are escaped. */
export function toLatex(columns: string[], rows: unknown[][]): string {
  const escape = (value: unknown) =>
    text(value).replace(/[\\&%$#_{}~^]/g, (c) => LATEX_SPECIALS[c]).replace(/\r?\n/g, " ");
  const line = (cells: unknown[]) => `${cells.map(escape).join(" & ")} \\\\`;
  return [
    `\\begin{tabular}{${"l".repeat(columns.length)}}`,
    line(columns),
    "\\hline",
    ...rows.map(line),
    "\\end{tabular}",
  ].join("\n") + "\n";
}
