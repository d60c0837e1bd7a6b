/**
 * `/-/metrics`: the service's metrics in the Prometheus text format, for actors with
 * `view-metrics` (root, or a token made for the scraper; docs/scaling.md#metrics).
 *
 * @module
 */
import type { AppHost } from "./host.ts";
import type { Request } from "../http/request.ts";
import { Response } from "../http/response.ts";
import { PROMETHEUS_CONTENT_TYPE } from "../util/metrics.ts";

/** GET `/-/metrics`. */
export async function metricsView(svc: AppHost, request: Request): Promise<Response> {
  await svc.ensure_permissions(request.actor ?? null, ["view-metrics"]);
  return new Response(svc.metrics.text(), {
    content_type: PROMETHEUS_CONTENT_TYPE,
    headers: { "cache-control": "no-store" },
  });
}
