/**
 * `?_trace=1` (with the `trace_debug` setting on): the request runs inside a trace, and every SQL
 * query and `trace()` block it caused is added to the response:
 *
 * - JSON: a `_trace` key on the top-level object (an array body becomes `{"rows": [...],
 *   "_trace": ...}`), spliced into the text so big integers stay exact;
 * - HTML: a panel at the end of `<body>`;
 * - CSV: wrapped in an HTML page (API-DETAILS §10) that ends with the same panel.
 *
 * Other responses (redirects, images, files) pass through untouched.
 *
 * @module
 */

import type { AppHost } from "./host.ts";
import { traceClock, type TraceEntry, withTrace } from "../util/trace.ts";
import { jsonText } from "../http/json_text.ts";
import { escapeHtml } from "../util/markup.ts";

/** What `_trace` holds: totals, then every recorded entry in the order they finished. */
export interface TraceReport {
  request_duration_ms: number;
  sum_trace_duration_ms: number;
  num_traces: number;
  traces: TraceEntry[];
}

const OFF = new Set(["", "0", "off", "false"]);

/** True when `raw` asks for a trace and the service allows it. */
function wantsTrace(svc: AppHost, raw: globalThis.Request): boolean {
  if (!svc.setting("trace_debug") || !raw.url.includes("_trace")) return false;
  const value = new URL(raw.url).searchParams.get("_trace");
  return value !== null && !OFF.has(value.toLowerCase());
}

/** Runs `next` traced when the request asks for it, and adds the trace to its response. */
export async function traceRequest(
  svc: AppHost,
  raw: globalThis.Request,
  next: () => Promise<globalThis.Response>,
): Promise<globalThis.Response> {
  if (!wantsTrace(svc, raw)) return await next();
  const start = traceClock();
  const { result, traces } = await withTrace(next);
  // Streamed bodies finish after `next` resolved: read them inside the trace's lifetime.
  const body = await result.arrayBuffer();
  const report: TraceReport = {
    request_duration_ms: (traceClock() - start) * 1000,
    sum_trace_duration_ms: traces.reduce((sum, entry) => sum + entry.duration_ms, 0),
    num_traces: traces.length,
    traces,
  };
  return addTrace(raw, result, new TextDecoder().decode(body), report, body);
}

function addTrace(
  raw: globalThis.Request,
  response: globalThis.Response,
  text: string,
  report: TraceReport,
  bytes: ArrayBuffer,
): globalThis.Response {
  const contentType = (response.headers.get("content-type") ?? "").toLowerCase();
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  const init = { status: response.status, statusText: response.statusText, headers };
  if (contentType.startsWith("application/json")) {
    return new globalThis.Response(addTraceToJson(text, report), init);
  }
  if (contentType.startsWith("text/html")) {
    return new globalThis.Response(addTraceToHtml(text, report), init);
  }
  if (isCsv(raw, contentType)) {
    headers.set("content-type", "text/html; charset=utf-8");
    headers.delete("content-disposition");
    const page = `<html><head><title>CSV trace</title></head><body><pre>${
      escapeHtml(text)
    }</pre></body></html>`;
    return new globalThis.Response(addTraceToHtml(page, report), init);
  }
  return new globalThis.Response(bytes, init);
}

/** The JSON text with `_trace` added as the last key of its top-level object. */
export function addTraceToJson(text: string, report: TraceReport): string {
  const trimmed = text.trimEnd();
  const value = jsonText(report);
  if (trimmed.startsWith("{") && trimmed.endsWith("}")) {
    const inner = trimmed.slice(1, -1).trimEnd();
    return inner.trim() ? `{${inner}, "_trace": ${value}}` : `{"_trace": ${value}}`;
  }
  if (trimmed.startsWith("[") && trimmed.endsWith("]")) {
    return `{"rows": ${trimmed}, "_trace": ${value}}`;
  }
  return text;
}

/** The page with the trace panel inserted just before its closing `</body>`. */
export function addTraceToHtml(html: string, report: TraceReport): string {
  const panel = tracePanel(report);
  const at = html.toLowerCase().lastIndexOf("</body>");
  return at === -1 ? html + panel : html.slice(0, at) + panel + html.slice(at);
}

/** The HTML panel: a summary line, then the report as indented JSON. */
function tracePanel(report: TraceReport): string {
  const summary = `Trace: ${report.num_traces} ${report.num_traces === 1 ? "entry" : "entries"}, ` +
    `${report.sum_trace_duration_ms.toFixed(2)} ms of ${report.request_duration_ms.toFixed(2)} ms`;
  return `<section class="trace-debug" id="_trace"><details open><summary>${
    escapeHtml(summary)
  }</summary><pre>${escapeHtml(jsonText(report, { indent: 2 }))}</pre></details></section>\n`;
}

function isCsv(raw: globalThis.Request, contentType: string): boolean {
  return contentType.startsWith("text/csv") ||
    (contentType.startsWith("text/plain") && new URL(raw.url).pathname.endsWith(".csv"));
}
