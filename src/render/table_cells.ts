/**
 * The `<td>` cells of one display row, as `_table.html` writes them, in one call instead of a
 * template loop: the loop ran eight nunjucks frame updates and three escapes per cell, the
 * largest cost of an HTML table page. The output is the loop's exactly (a test compares them):
 *
 * ```jinja
 * {% for cell in row.cells %}<td class="col-{{ cell.column | to_css_class }} type-{{ cell.value_type }}
 *   {%- if cell.numeric_null %} numeric{% endif %}"
 *   {%- if stacked_rows %} role="cell" data-column="{{ cell.column }}"{% endif %}>{{ cell.value }}</td>{% endfor %}
 * ```
 *
 * @module
 */

import nunjucks from "nunjucks";
import { Markup } from "../util/markup.ts";
import { cssClass } from "./css_class.ts";
import type { DisplayRow } from "./display_row.ts";

const escape = (nunjucks as unknown as { lib: { escape(text: string): string } }).lib.escape;

/**
 * Column name → its class attribute part, for the names seen so far (a page repeats them). Names
 * come from visitors' SQL too (`select 1 as "…"`), so only short ones are remembered.
 */
const classes = new Map<string, string>();
const REMEMBERED_NAME_CHARS = 256;

function columnClass(column: string): string {
  let css = classes.get(column);
  if (css === undefined) {
    css = escape(cssClass(column));
    if (column.length > REMEMBERED_NAME_CHARS) return css;
    if (classes.size > 10_000) classes.clear();
    classes.set(column, css);
  }
  return css;
}

/** Value types (`int`, `str`, …: a handful) → escaped. */
const types = new Map<string, string>();

function typeClass(type: string): string {
  let css = types.get(type);
  if (css === undefined) {
    css = escape(type);
    if (types.size > 1000) types.clear();
    types.set(type, css);
  }
  return css;
}

/**
 * Opening tags made so far, by variant (numeric NULL, stacked), column and value type: a page
 * writes the same few for every row, and building each from its parts left several strings of
 * garbage per cell (about 180 KB of a 100-row page's 1.2 MB).
 */
const openTags = [0, 1, 2, 3].map(() => new Map<string, Map<string, string>>());
/** Value types kept per column: a handful exist (`int`, `str`, …), more only from plugins. */
const TYPES_PER_COLUMN = 16;

function openTag(column: string, type: string, numeric: boolean, stacked: boolean): string {
  const byColumn = openTags[(numeric ? 1 : 0) + (stacked ? 2 : 0)];
  let byType = byColumn.get(column);
  const kept = byType?.get(type);
  if (kept !== undefined) return kept;
  let tag = `<td class="col-${columnClass(column)} type-${typeClass(type)}${
    numeric ? " numeric" : ""
  }"`;
  if (stacked) tag += ` role="cell" data-column="${escape(column)}"`;
  tag += ">";
  if (column.length > REMEMBERED_NAME_CHARS) return tag;
  if (!byType) {
    if (byColumn.size > 10_000) byColumn.clear();
    byColumn.set(column, byType = new Map());
  }
  if (byType.size < TYPES_PER_COLUMN) byType.set(type, tag);
  return tag;
}

/** The row's cells as HTML, nunjucks-escaped exactly like the template loop. */
export function tableCells(row: DisplayRow, stacked: unknown): string {
  let html = "";
  for (const cell of row.cells) {
    const value = cell.value instanceof Markup ? cell.value.toString() : escape(String(cell.value));
    const type = typeof cell.value_type === "string" ? cell.value_type : String(cell.value_type);
    html += openTag(cell.column, type, Boolean(cell.numeric_null), Boolean(stacked));
    html += value;
    html += "</td>";
  }
  return html;
}
