/**
 * Example plugin: an Atom feed of any table or query, as the well-known `datasette-atom` does.
 *
 * A page whose columns include `atom_id`, `atom_title` and `atom_updated` gains a `.atom` link:
 * each row becomes an entry. Optional columns: `atom_content` (text), `atom_content_html` (HTML,
 * sent as escaped HTML content), `atom_link` (the entry's link) and `atom_author_name`. For
 * example, a canned query
 *
 * ```sql
 * select id as atom_id, title as atom_title, published as atom_updated,
 *        body as atom_content, url as atom_link from posts order by published desc
 * ```
 *
 * is a feed at `/blog/recent.atom`. The feed's title is the query's or table's title from the
 * metadata, else its name.
 *
 * Run: `vitrine serve blog.db --plugin examples/plugins/atom_feed.ts`
 */
import {
  type HookArgs,
  type OutputRenderer,
  type RenderArgs,
  Response,
  type SqlRow,
} from "../../mod.ts";

export const version = "0.1.0";

const REQUIRED = ["atom_id", "atom_title", "atom_updated"];

export function register_output_renderer(_: HookArgs<"register_output_renderer">): OutputRenderer {
  return {
    extension: "atom",
    render: (args) => renderAtom(args),
    can_render: ({ columns }) => REQUIRED.every((column) => columns.includes(column)),
  };
}

function renderAtom(args: RenderArgs): Response {
  const { columns, rows: given, error, request, svc, database, table, query_name } = args;
  // Without `stream: true` a renderer gets the page's rows as an array.
  const rows = given as SqlRow[];
  if (error) {
    return new Response(`Error: ${error}\n`, { status: 400, content_type: "text/plain" });
  }
  const missing = REQUIRED.filter((column) => !columns.includes(column));
  if (missing.length) {
    return new Response(`An Atom feed needs the columns ${missing.join(", ")}\n`, {
      status: 400,
      content_type: "text/plain; charset=utf-8",
    });
  }
  const name = query_name ?? table ?? database;
  const queries = (svc.metadata().database(database) as { queries?: Record<string, unknown> })
    .queries ?? {};
  const metadata =
    (query_name ? queries[query_name] : table ? svc.metadata().table(database, table) : {}) as {
      title?: unknown;
    } | undefined;
  const title = String(metadata?.title ?? name);
  const self = svc.absolute_url(request, request.full_path);
  const entries = rows.map((row) => {
    const value = (column: string) => columns.includes(column) ? row[column] : null;
    const parts = [
      `    <id>${xml(value("atom_id"))}</id>`,
      `    <title>${xml(value("atom_title"))}</title>`,
      `    <updated>${xml(isoTime(value("atom_updated")))}</updated>`,
    ];
    if (value("atom_link")) parts.push(`    <link href="${xml(value("atom_link"))}"/>`);
    if (value("atom_author_name")) {
      parts.push(`    <author><name>${xml(value("atom_author_name"))}</name></author>`);
    }
    if (value("atom_content_html")) {
      parts.push(`    <content type="html">${xml(value("atom_content_html"))}</content>`);
    } else if (value("atom_content")) {
      parts.push(`    <content type="text">${xml(value("atom_content"))}</content>`);
    }
    return `  <entry>\n${parts.join("\n")}\n  </entry>`;
  });
  const updated = rows.map((row) => isoTime(row.atom_updated)).sort().at(-1) ??
    new Date(0).toISOString();
  const body = [
    `<?xml version="1.0" encoding="utf-8"?>`,
    `<feed xmlns="http://www.w3.org/2005/Atom">`,
    `  <id>${xml(self)}</id>`,
    `  <title>${xml(title)}</title>`,
    `  <updated>${xml(updated)}</updated>`,
    `  <link rel="self" href="${xml(self)}"/>`,
    ...entries,
    `</feed>`,
  ].join("\n") + "\n";
  return new Response(body, { content_type: "application/atom+xml; charset=utf-8" });
}

/** Atom wants RFC 3339 times: a date alone or a SQLite `YYYY-MM-DD HH:MM:SS` is completed. */
function isoTime(value: unknown): string {
  const text = String(value ?? "");
  const date = new Date(/^\d{4}-\d{2}-\d{2} /.test(text) ? text.replace(" ", "T") + "Z" : text);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

function xml(value: unknown): string {
  return String(value ?? "").replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
