/**
 * A small Markdown renderer for cell values (the `markdown` column type). Safe by construction:
 * the text is HTML-escaped first and only then given the markup of a common subset (headings,
 * paragraphs, lists, block quotes, code, emphasis, links), so no tag or attribute in a cell
 * reaches the page; links keep only http(s) and mailto addresses.
 *
 * @module
 */

import { escapeHtml } from "./markup.ts";

/** Inline markup of escaped text: code spans, links, bold, italics. */
function inline(escaped: string): string {
  const codes: string[] = [];
  // Code spans first, set aside (behind private-use marks) so nothing inside them becomes markup.
  let text = escaped.replace(/`([^`]+)`/g, (_, code: string) => {
    codes.push(`<code>${code}</code>`);
    return `\uE000${codes.length - 1}\uE000`;
  });
  text = text.replace(
    /\[([^\]]+)\]\(((?:https?:\/\/|mailto:)[^\s)]+)\)/gi,
    (_, label: string, href: string) => `<a href="${href}" rel="nofollow">${label}</a>`,
  );
  text = text.replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>");
  text = text.replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>");
  return text.replace(/\uE000(\d+)\uE000/g, (mark, i: string) => codes[Number(i)] ?? mark);
}

/** The HTML of `source`: blocks separated by blank lines, every character of the text escaped. */
export function markdownToHtml(source: string): string {
  const out: string[] = [];
  const blocks = source.replace(/\r\n?/g, "\n").split(/\n\s*\n/);
  for (const block of blocks) {
    const trimmed = block.trim();
    if (!trimmed) continue;
    const lines = trimmed.split("\n");
    const heading = /^(#{1,6})\s+(.*)$/.exec(trimmed);
    if (heading && lines.length === 1) {
      const level = heading[1].length;
      out.push(`<h${level}>${inline(escapeHtml(heading[2]))}</h${level}>`);
    } else if (trimmed.startsWith("```")) {
      const body = lines.slice(1, lines.at(-1)?.startsWith("```") ? -1 : undefined).join("\n");
      out.push(`<pre><code>${escapeHtml(body)}</code></pre>`);
    } else if (lines.every((line) => /^\s*[-*+]\s+/.test(line))) {
      const items = lines.map((line) => line.replace(/^\s*[-*+]\s+/, ""));
      out.push(`<ul>${items.map((item) => `<li>${inline(escapeHtml(item))}</li>`).join("")}</ul>`);
    } else if (lines.every((line) => /^\s*\d+[.)]\s+/.test(line))) {
      const items = lines.map((line) => line.replace(/^\s*\d+[.)]\s+/, ""));
      out.push(`<ol>${items.map((item) => `<li>${inline(escapeHtml(item))}</li>`).join("")}</ol>`);
    } else if (lines.every((line) => line.startsWith(">"))) {
      const quoted = lines.map((line) => line.replace(/^>\s?/, "")).join("\n");
      out.push(`<blockquote>${markdownToHtml(quoted)}</blockquote>`);
    } else {
      out.push(`<p>${lines.map((line) => inline(escapeHtml(line))).join("<br>")}</p>`);
    }
  }
  return out.join("\n");
}
