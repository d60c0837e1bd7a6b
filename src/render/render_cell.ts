/**
 * The HTML of one table cell. `render_cell` plugin hooks are asked first (the first non-null
 * answer wins: Markup is used as is, anything else is escaped); otherwise the built-in rules
 * apply: links to the row page for primary keys, links (with labels) for foreign keys, simple
 * and compound, download links for BLOBs, links for URLs, and truncation at
 * `truncate_cells_html` characters — where the row has a page, the ellipsis links to it, so the
 * rest of the value is one click away.
 *
 * @module
 */

import type { RenderHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import type { SqlValue } from "../sqlite/values.ts";
import { escapeHtml, Markup } from "../util/markup.ts";
import { rowPathOf } from "../util/tilde.ts";
import { type DisplayCell, type DisplayRow, displayRowOf, valueType } from "./display_row.ts";
import { type ColumnTypes, integralRealText, isIntegralReal } from "./json.ts";
import { numberText } from "../util/number_text.ts";
import { spatialiteGeometry } from "../util/spatialite_geometry.ts";
import type { ColumnType } from "../plugins/column_types.ts";

/** A foreign key over one or more columns, pointing at another table's key columns. */
export interface CellForeignKey {
  columns: string[];
  other_table: string;
  other_columns: string[];
}

/** Everything cell rendering needs about the page. */
export interface CellContext {
  svc: RenderHost;
  request: Request | null;
  database: string;
  /** Null for custom SQL. */
  table: string | null;
  /** `truncate_cells_html`; 0 disables truncation. */
  truncate: number;
  column_types?: ColumnTypes;
  /** Outgoing foreign keys of the table. */
  foreign_keys?: CellForeignKey[];
  /** Label of each referenced value, by column (single-column keys). */
  labels?: Map<string, Map<unknown, unknown>>;
  /** Columns whose cells link to the row page. */
  link_columns?: string[];
  /** Path of the row page for a row, or null. */
  rowUrl?: (row: Record<string, unknown>) => string | null;
  /** Path of a BLOB cell's download, or null. */
  blobUrl?: (row: Record<string, unknown>, column: string) => string | null;
  /** The column types configuration gives the table's columns (`column_types`). */
  typed_columns?: ReadonlyMap<string, ColumnType>;
  /** Query results: per result column, the page a value links to (a row it keys or points at). */
  column_links?: Map<string, (value: unknown) => string | null>;
}

const URL_PATTERN = /^https?:\/\/[^\s<>"']+$/;

/** The cell's HTML, after any `render_cell` hook. */
export async function renderCell(
  ctx: CellContext,
  row: Record<string, unknown>,
  column: string,
  value: unknown,
): Promise<Markup> {
  const type = ctx.typed_columns?.get(column);
  if (type && ctx.table !== null) {
    const answer = await type.render_cell({
      value,
      column,
      table: ctx.table,
      database: ctx.database,
      request: ctx.request,
    });
    if (answer !== null && answer !== undefined) {
      return answer instanceof Markup ? answer : Markup.escape(String(answer));
    }
  }
  if (ctx.svc.hooks.has("render_cell")) {
    const answer = await renderCellHook(ctx, row, column, value);
    if (answer !== null && answer !== undefined) {
      return answer instanceof Markup ? answer : Markup.escape(String(answer));
    }
  }
  return defaultCell(ctx, row, column, value);
}

/** The first `render_cell` hook's answer for one cell, or null. */
function renderCellHook(
  ctx: Pick<CellContext, "svc" | "request" | "database" | "table">,
  row: Record<string, unknown>,
  column: string,
  value: unknown,
): Promise<unknown> {
  return ctx.svc.hooks.first("render_cell", {
    row,
    value,
    column,
    table: ctx.table,
    database: ctx.database,
    request: ctx.request,
  });
}

/** The built-in cell HTML (no hooks). */
export function defaultCell(
  ctx: CellContext,
  row: Record<string, unknown>,
  column: string,
  value: unknown,
): Markup {
  if (value === null || value === undefined) return new Markup("&nbsp;");
  if (value instanceof Uint8Array) return blobCell(ctx, row, column, value);
  const columnLink = ctx.column_links?.get(column)?.(value);
  if (columnLink) return link(columnLink, plainText(ctx, column, value));
  if (ctx.link_columns?.includes(column) && ctx.rowUrl) {
    const href = ctx.rowUrl(row);
    if (href) return link(href, plainText(ctx, column, value));
  }
  const fk = ctx.foreign_keys?.find((key) => key.columns.includes(column));
  if (fk) {
    const href = foreignKeyHref(ctx, fk, row);
    if (href) {
      const label = fk.columns.length === 1 ? ctx.labels?.get(column)?.get(value) : undefined;
      const text = plainText(ctx, column, value);
      if (label === undefined || label === null || String(label) === String(value)) {
        return link(href, text);
      }
      return new Markup(`${link(href, truncate(ctx, String(label)))}&nbsp;<em>${text}</em>`);
    }
  }
  if (typeof value === "string" && URL_PATTERN.test(value)) {
    return link(value, truncate(ctx, value));
  }
  const text = plainText(ctx, column, value);
  if (typeof value === "string" && ctx.truncate > 0 && value.length > ctx.truncate) {
    return new Markup(text.slice(0, -1) + moreLink(ctx, row, value.length));
  }
  return new Markup(text);
}

/** The ellipsis of a cut value: a link to the row page when there is one. */
function moreLink(ctx: CellContext, row: Record<string, unknown>, length: number): string {
  const href = ctx.rowUrl?.(row);
  if (!href) return "\u2026";
  const label = `Show all ${length.toLocaleString("en")} characters on the row page`;
  return `<a class="truncated-more" href="${
    escapeHtml(href)
  }" title="${label}" aria-label="${label}">\u2026</a>`;
}

/** Escaped, truncated text of a value. */
function plainText(ctx: CellContext, column: string, value: unknown): string {
  if (isIntegralReal(value, ctx.column_types?.[column])) return integralRealText(value as number);
  return truncate(ctx, typeof value === "number" ? numberText(value) : String(value));
}

/** Escaped text cut at the truncation limit with an ellipsis. */
function truncate(ctx: CellContext, text: string): string {
  const cut = ctx.truncate > 0 && text.length > ctx.truncate
    ? `${text.slice(0, ctx.truncate)}\u2026`
    : text;
  return escapeHtml(cut);
}

function link(href: string, html: string): Markup {
  return new Markup(`<a href="${escapeHtml(href)}">${html}</a>`);
}

/** `/<db>/<other>/<v1>,<v2>` when every part of the key has a value. */
function foreignKeyHref(
  ctx: CellContext,
  fk: CellForeignKey,
  row: Record<string, unknown>,
): string | null {
  const values = fk.columns.map((c) => row[c]);
  if (values.some((v) => v === null || v === undefined || v instanceof Uint8Array)) return null;
  return `${tableUrl(ctx, fk.other_table)}/${rowPathOf(values)}`;
}

/** Table URLs by context and table: a page of rows links to the same few tables many times. */
const tableUrls = new WeakMap<CellContext, Map<string, string>>();

function tableUrl(ctx: CellContext, table: string): string {
  let urls = tableUrls.get(ctx);
  if (!urls) tableUrls.set(ctx, urls = new Map());
  let url = urls.get(table);
  if (url === undefined) urls.set(table, url = String(ctx.svc.urls.table(ctx.database, table)));
  return url;
}

function blobCell(
  ctx: CellContext,
  row: Record<string, unknown>,
  column: string,
  value: Uint8Array,
): Markup {
  // A SpatiaLite geometry reads as WKT (the bytes stay one click away, as for any BLOB).
  const geometry = spatialiteGeometry(value);
  if (geometry) {
    const href = ctx.blobUrl?.(row, column);
    const title = `SRID ${geometry.srid}`;
    const text = `<span class="geometry" title="${title}">${truncate(ctx, geometry.wkt)}</span>`;
    return new Markup(
      href ? `${text} <a class="blob-download" href="${escapeHtml(href)}">(bytes)</a>` : text,
    );
  }
  const size = value.length;
  const text = `&lt;Binary:&nbsp;${size}&nbsp;byte${size === 1 ? "" : "s"}&gt;`;
  const href = ctx.blobUrl?.(row, column);
  return new Markup(
    href ? `<a class="blob-download" href="${escapeHtml(href)}">${text}</a>` : text,
  );
}

/** Display rows (`display_rows` of `_table.html`) with every cell rendered. */
export async function displayRows(
  ctx: CellContext,
  columns: string[],
  rows: SqlValue[][],
): Promise<DisplayRow[]> {
  const out: DisplayRow[] = [];
  const rendered: DisplayCell[][] = [];
  // Without a render_cell hook every cell is rendered synchronously: no await per cell.
  const hooked = ctx.svc.hooks.has("render_cell") || Boolean(ctx.typed_columns?.size);
  for (const values of rows) {
    const row: Record<string, unknown> = {};
    for (let i = 0; i < columns.length; i++) {
      if (!Object.hasOwn(row, columns[i])) row[columns[i]] = values[i];
    }
    const cells: DisplayCell[] = new Array(columns.length);
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i];
      const value = hooked
        ? await renderCell(ctx, row, column, values[i])
        : defaultCell(ctx, row, column, values[i]);
      const raw = values[i];
      // A REAL column's whole number is still a float (`type-float`, as the reference shows).
      const value_type = isIntegralReal(raw, ctx.column_types?.[column]) ? "float" : valueType(raw);
      cells[i] = { column, value, raw, value_type, numeric_null: false };
    }
    rendered.push(cells);
  }
  markNumericNulls(ctx, columns, rendered);
  // The cells are complete: each row keeps them (no copy per cell, as makeDisplayRow makes).
  for (const cells of rendered) out.push(displayRowOf(cells));
  return out;
}

/** SQLite's INTEGER and REAL affinities (`INT` anywhere; `REAL`, `FLOA`, `DOUB`). */
const NUMBER_TYPE = /INT|REAL|FLOA|DOUB/i;

/**
 * Marks the NULLs of columns of numbers, so that they line up with the numbers (`numeric_null`).
 * A column holds numbers when every value it shows on the page is a plain number (a linked one,
 * a foreign key, keeps to the left like text), or, with nothing but NULLs on the page, when its
 * declared type is an integer or real one and it is no foreign key.
 */
function markNumericNulls(ctx: CellContext, columns: string[], rows: DisplayCell[][]): void {
  for (let i = 0; i < columns.length; i++) {
    let numbers = 0;
    let nulls = 0;
    let other = false;
    for (const cells of rows) {
      const { raw, value } = cells[i];
      if (raw === null || raw === undefined) nulls++;
      else if ((typeof raw === "number" || typeof raw === "bigint") && !isLink(value)) numbers++;
      else {
        other = true;
        break;
      }
    }
    if (other || nulls === 0) continue;
    if (numbers === 0 && !numberColumn(ctx, columns[i])) continue;
    for (const cells of rows) {
      if (cells[i].raw === null || cells[i].raw === undefined) cells[i].numeric_null = true;
    }
  }
}

/** Declared INTEGER or REAL, and no link to other rows (a foreign key's values are links). */
function numberColumn(ctx: CellContext, column: string): boolean {
  if (!NUMBER_TYPE.test(ctx.column_types?.[column] ?? "")) return false;
  if (ctx.column_links?.has(column)) return false;
  return !ctx.foreign_keys?.some((fk) => fk.columns.includes(column));
}

function isLink(value: Markup): boolean {
  return String(value).includes("<a ");
}

/**
 * The `render_cell` extra (API-DETAILS §2.1): one object per row holding, for each cell a
 * `render_cell` hook answered with something truthy, that answer as a string. Empty objects when
 * no plugin implements the hook.
 */
export async function pluginRenderedCells(
  ctx: Pick<CellContext, "svc" | "request" | "database" | "table">,
  columns: string[],
  rows: SqlValue[][],
): Promise<Record<string, string>[]> {
  if (!ctx.svc.hooks.has("render_cell")) return rows.map(() => ({}));
  const out: Record<string, string>[] = [];
  for (const values of rows) {
    const row: Record<string, unknown> = {};
    columns.forEach((c, i) => {
      if (!Object.hasOwn(row, c)) row[c] = values[i];
    });
    const rendered: Record<string, string> = {};
    for (const [i, column] of columns.entries()) {
      const answer = await renderCellHook(ctx, row, column, values[i]);
      if (answer) rendered[column] = String(answer);
    }
    out.push(rendered);
  }
  return out;
}
