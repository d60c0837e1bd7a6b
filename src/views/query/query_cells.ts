/**
 * HTML cells for query results (custom SQL and canned queries): each value goes through the
 * `render_cell` hooks first (the first non-null answer wins, with `table` null as the spec says),
 * otherwise it is shown escaped, long text cut at `truncate_cells_html`.
 */
import type { ViewHost } from "../host.ts";
import type { Request } from "../../http/request.ts";
import type { SqlValue } from "../../db/values.ts";
import { Markup } from "../../util/markup.ts";
import { type DisplayRow, makeDisplayRow } from "../../render/display_row.ts";

/** Display rows for `rows` of `columns` from a query on `database`. */
export async function queryDisplayRows(
  svc: ViewHost,
  request: Request,
  database: string,
  columns: string[],
  rows: SqlValue[][],
): Promise<DisplayRow[]> {
  const truncateAt = Number(svc.setting("truncate_cells_html") ?? 0);
  const hasHook = svc.hooks.has("render_cell");
  const out: DisplayRow[] = [];
  for (const values of rows) {
    const row = Object.fromEntries(columns.map((column, i) => [column, values[i]]));
    const cells = [];
    for (const [i, column] of columns.entries()) {
      const value = values[i];
      let rendered: Markup | string | null = null;
      if (hasHook) {
        const answer = await svc.hooks.first("render_cell", {
          row,
          value,
          column,
          table: null,
          database,
          request,
        });
        if (answer !== null && answer !== undefined) {
          rendered = answer instanceof Markup ? answer : String(answer);
        }
      }
      cells.push({ column, raw: value, value: rendered ?? defaultCell(value, truncateAt) });
    }
    out.push(makeDisplayRow(cells));
  }
  return out;
}

/** How a value looks without plugins: blank for NULL, a size note for BLOBs. */
function defaultCell(value: SqlValue, truncateAt: number): Markup | string {
  if (value === null) return new Markup("&nbsp;");
  if (value instanceof Uint8Array) {
    return `<Binary: ${value.length} byte${value.length === 1 ? "" : "s"}>`;
  }
  const text = String(value);
  if (truncateAt > 0 && text.length > truncateAt) return text.slice(0, truncateAt) + "…";
  return text;
}
