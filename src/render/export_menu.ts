/**
 * The export menu of table, view and query pages (`_export_menu.html`): the rows of this page or
 * every row (streamed), as CSV, TSV, newline-delimited JSON or JSON, plus plugin formats. Each
 * link carries the page's own arguments (filters, sort, search, parameters), so an export holds
 * exactly what the page shows, and the menu says how many rows that is of how many.
 *
 * Links start out as downloads (`_dl=on`); the menu's options, applied by static/app.js, add
 * `_labels=on` or drop `_dl`. `data-export-url` keeps each link's URL without those options.
 *
 * @module
 */

import type { Request } from "../http/request.ts";
import { formatPath } from "./output_format.ts";

/** One link of the menu. */
export interface ExportLink {
  format: string;
  label: string;
  /** The URL without the menu's options (`_dl`, `_labels`). */
  base_url: string;
  /** The URL with the default options (downloads for the text formats). */
  url: string;
}

/** What `_export_menu.html` renders. */
export interface ExportMenu {
  /** This page's rows, in every format. */
  page: ExportLink[];
  /** Every row, streamed; null when streaming is switched off (`allow_csv_stream`). */
  all: ExportLink[] | null;
  /** Rows on this page. */
  page_rows: number;
  /** Rows in all; null when unknown (no count, or it timed out). */
  total_rows: number | null;
  /** True when `total_rows` is a lower bound (the count stopped early). */
  total_at_least: boolean;
  /** Whether "expand labels" applies (the table has foreign keys). */
  labels: boolean;
}

/** Inputs from the view. */
export interface ExportMenuInput {
  page_rows: number;
  total_rows?: number | null;
  total_at_least?: boolean;
  /** `allow_csv_stream` and the page can fetch further rows. */
  can_stream: boolean;
  labels?: boolean;
  /** Plugin output formats offered for this page: extension → URL (from `rendererPaths`). */
  plugin_formats?: Record<string, string>;
}

const TEXT_FORMATS: [string, string][] = [["csv", "CSV"], ["tsv", "TSV"], [
  "ndjson",
  "NDJSON",
]];

/** The formats the menu writes its own links for. */
const BUILT_IN: ReadonlySet<string> = new Set([...TEXT_FORMATS.map(([format]) => format), "json"]);

/** The export menu for the page `request` shows. */
export function exportMenu(request: Request, input: ExportMenuInput): ExportMenu {
  const current = new URLSearchParams(request.query_string);
  for (const option of ["_dl", "_labels", "_stream"]) current.delete(option);
  const everything = new URLSearchParams(current);
  everything.delete("_next");
  everything.delete("_size");
  everything.set("_stream", "on");
  const link = (format: string, label: string, args: URLSearchParams, download: boolean) => {
    const base_url = formatPath(request, format, args);
    const withDownload = new URLSearchParams(args);
    if (download) withDownload.set("_dl", "on");
    return { format, label, base_url, url: formatPath(request, format, withDownload) };
  };
  const page = [
    ...TEXT_FORMATS.map(([format, label]) => link(format, label, current, true)),
    link("json", "JSON", current, false),
    // Callers may pass every format link they have (the query page's `renderers` holds `csv`):
    // a format the menu already lists is not listed again.
    ...Object.entries(input.plugin_formats ?? {}).filter(([format]) => !BUILT_IN.has(format)).map((
      [format, url],
    ) => ({ format, label: format, base_url: url, url })),
  ];
  return {
    page,
    all: input.can_stream
      ? TEXT_FORMATS.map(([format, label]) => link(format, label, everything, true))
      : null,
    page_rows: input.page_rows,
    total_rows: input.total_rows ?? null,
    total_at_least: input.total_at_least ?? false,
    labels: input.labels ?? false,
  };
}
