/**
 * `?_trace=1` with `trace_debug`: JSON gets a `_trace` key, HTML a panel, CSV an HTML wrapper;
 * plugins add their own entries with `trace()`.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import type { Service, ServiceOptions } from "../../src/service.ts";
import {
  addTraceToHtml,
  addTraceToJson,
  type TraceReport,
  traceRequest,
} from "../../src/app/trace_page.ts";
import { trace, type TraceEntry, withTrace } from "../../src/util/trace.ts";
import { fromFileUrl } from "../plugins/test_paths.ts";

const kitchenSink = fromFileUrl(new URL("../fixtures/plugins/kitchen_sink.ts", import.meta.url));

async function withService(
  fn: (svc: Service) => Promise<void>,
  options: ServiceOptions = {},
): Promise<void> {
  await using svc = shopService({
    plugins: [kitchenSink],
    settings: { trace_debug: true },
    ...options,
  });
  await fn(svc);
}

const report: TraceReport = {
  request_duration_ms: 2,
  sum_trace_duration_ms: 1,
  num_traces: 1,
  traces: [{
    type: "sql",
    start: 1,
    end: 1.001,
    duration_ms: 1,
    traceback: ["at view (file:///x.ts:1:1)"],
    sql: "select <b>",
    params: null,
  }],
};

Deno.test("JSON: a traced request lists every SQL query with sql, params, timing, traceback", async () => {
  await withService(async (svc) => {
    const response = await svc.client.get("/-/kitchen-sink/traced?_trace=1");
    assert.equal(response.status, 200);
    const body = response.json();
    assert.equal(body.count, 9);
    const trace = body._trace;
    assert.equal(trace.num_traces, trace.traces.length);
    assert.ok(trace.request_duration_ms >= trace.sum_trace_duration_ms * 0);
    const sql = trace.traces.filter((t: TraceEntry) => t.type === "sql");
    const count = sql.find((t: TraceEntry) => t.sql === "select count(*) from products");
    assert.ok(count, JSON.stringify(trace.traces.map((t: TraceEntry) => t.sql ?? t.type)));
    assert.equal(count.database, "shop");
    assert.equal(count.params, null);
    assert.ok(count.end >= count.start);
    assert.equal(typeof count.duration_ms, "number");
    assert.ok(Array.isArray(count.traceback) && count.traceback.length > 0);
    assert.ok(sql.some((t: TraceEntry) => t.sql === "select 'kitchen sink using'"));
  });
});

Deno.test("plugins record their own entries with trace(), in both forms", async () => {
  await withService(async (svc) => {
    const { traces } = (await svc.client.get("/-/kitchen-sink/traced?_trace=1")).json()._trace;
    const block = traces.find((t: TraceEntry) => t.type === "kitchen_sink");
    assert.equal(block.step, "count");
    assert.ok(block.duration_ms >= 0);
    const using = traces.find((t: TraceEntry) => t.type === "kitchen_sink_using");
    assert.equal(using.step, "using");
    assert.equal(using.extra, "added while running", "keys added while the block runs");
    // The query inside the block finished before the block did.
    const inner = traces.findIndex((t: TraceEntry) => t.sql === "select count(*) from products");
    assert.ok(inner < traces.indexOf(block));
  });
});

Deno.test("HTML: the trace is a panel at the end of <body>", async () => {
  await withService(async (svc) => {
    const response = await svc.client.get("/?_trace=1");
    assert.equal(response.status, 200);
    const html = response.text;
    const panel = html.indexOf('<section class="trace-debug" id="_trace">');
    assert.ok(panel > 0);
    assert.ok(panel < html.lastIndexOf("</body>"));
    assert.match(html, /Trace: \d+ entries/);
    assert.match(html, /&quot;type&quot;: &quot;sql&quot;/);
  });
});

Deno.test("without trace_debug, or without _trace, responses are untouched", async () => {
  await withService(async (svc) => {
    const body = (await svc.client.get("/-/kitchen-sink/traced?_trace=1")).json();
    assert.deepEqual(body, { count: 9 });
    assert.doesNotMatch((await svc.client.get("/?_trace=1")).text, /trace-debug/);
  }, { settings: { trace_debug: false } });
  await withService(async (svc) => {
    assert.deepEqual((await svc.client.get("/-/kitchen-sink/traced")).json(), { count: 9 });
    assert.deepEqual((await svc.client.get("/-/kitchen-sink/traced?_trace=0")).json(), {
      count: 9,
    });
  });
});

Deno.test("the asgi_wrapper still wraps traced responses; errors are traced too", async () => {
  await withService(async (svc) => {
    const response = await svc.client.get("/-/kitchen-sink/not-found?_trace=1", {
      headers: { accept: "application/json" },
    });
    assert.equal(response.status, 404);
    assert.equal(response.headers.get("x-kitchen-sink"), "wrapped");
    const body = response.json();
    assert.equal(body.ok, false);
    assert.equal(typeof body._trace.num_traces, "number");
  });
});

Deno.test("CSV: a traced CSV response becomes an HTML page ending with the panel", async () => {
  const svc = { setting: (key: string) => key === "trace_debug" } as unknown as Service;
  const raw = new Request("http://localhost/shop/products.csv?_trace=1&_dl=1");
  const response = await traceRequest(svc, raw, () =>
    Promise.resolve(
      new Response("id,name\r\n1,<knife>\r\n", {
        headers: {
          "content-type": "text/csv; charset=utf-8",
          "content-disposition": 'attachment; filename="products.csv"',
        },
      }),
    ));
  assert.equal(response.headers.get("content-type"), "text/html; charset=utf-8");
  assert.equal(response.headers.get("content-disposition"), null);
  const html = await response.text();
  assert.match(
    html,
    /^<html><head><title>CSV trace<\/title><\/head><body><pre>id,name\r\n1,&lt;knife&gt;/,
  );
  assert.match(html, /<section class="trace-debug"[\s\S]*<\/section>\n<\/body><\/html>$/);
});

Deno.test("traceRequest records what `next` runs, including trace() blocks", async () => {
  const svc = { setting: () => true } as unknown as Service;
  const raw = new Request("http://localhost/x.json?_trace=on");
  const response = await traceRequest(
    svc,
    raw,
    () => trace("work", { n: 1 }, () => Promise.resolve(Response.json({ ok: true }))),
  );
  const body = await response.json();
  assert.equal(body.ok, true);
  assert.deepEqual(body._trace.traces.map((t: TraceEntry) => [t.type, t.n]), [["work", 1]]);
});

Deno.test("addTraceToJson: adds _trace last, keeps big integers exact, wraps arrays", () => {
  const added = addTraceToJson('{"id": 9007199254740993}', report);
  assert.ok(added.startsWith('{"id": 9007199254740993, "_trace": {'));
  assert.equal(JSON.parse(added)._trace.num_traces, 1);
  assert.equal(JSON.parse(addTraceToJson("{}", report))._trace.num_traces, 1);
  assert.equal(JSON.parse(addTraceToJson('{\n  "a": 1\n}\n', report)).a, 1);
  const rows = JSON.parse(addTraceToJson("[1, 2]", report));
  assert.deepEqual(rows.rows, [1, 2]);
  assert.equal(rows._trace.num_traces, 1);
  assert.equal(addTraceToJson("not json", report), "not json");
});

Deno.test("addTraceToHtml: the panel escapes the SQL and goes before the last </body>", () => {
  const html = addTraceToHtml("<html><body><p>page</p></body></html>", report);
  assert.match(
    html,
    /<p>page<\/p><section class="trace-debug"[\s\S]*<\/section>\n<\/body><\/html>$/,
  );
  assert.match(html, /select &lt;b&gt;/);
  assert.match(addTraceToHtml("fragment", report), /^fragment<section/);
});

Deno.test("trace() without a function is a `using` block; outside a trace it records nothing", async () => {
  const { traces } = await withTrace(() => {
    using info = trace("block", { a: 1 });
    info.b = 2;
  });
  assert.equal(traces.length, 1);
  assert.equal(traces[0].type, "block");
  assert.equal(traces[0].a, 1);
  assert.equal(traces[0].b, 2);
  assert.ok(traces[0].duration_ms >= 0);
  {
    using untraced = trace("ignored", {});
    untraced.x = 1;
  }
});

Deno.test("data pages: table JSON, HTML and CSV list the table's queries", async () => {
  await withService(async (svc) => {
    const json = (await svc.client.get("/shop/products.json?_trace=1&_size=2")).json();
    assert.equal(json.rows.length, 2);
    const sql: string[] = json._trace.traces.map((t: TraceEntry) => t.sql);
    assert.ok(sql.some((s) => /from products/.test(s)), sql.join("\n"));

    const html = (await svc.client.get("/shop/products?_trace=1")).text;
    assert.match(html, /<section class="trace-debug"[\s\S]*from products[\s\S]*<\/body>/);

    const csv = await svc.client.get("/shop/products.csv?_trace=1&_dl=1");
    assert.equal(csv.headers.get("content-type"), "text/html; charset=utf-8");
    assert.equal(csv.headers.get("content-disposition"), null);
    assert.match(csv.text, /<pre>id,name,category_id,price,tags,added,notes\r?\n1,Chef knife/);
    assert.match(csv.text, /<section class="trace-debug"/);
  });
});

Deno.test("SQL entries say when the query cache answered (cached) or the time limit stopped the query (interrupted)", async () => {
  await withService(async (svc) => {
    const pageSql = (body: { _trace: { traces: TraceEntry[] } }) =>
      body._trace.traces.find((t) => t.type === "sql" && /from products/.test(String(t.sql)))!;
    const first = pageSql((await svc.client.get("/shop/products.json?_trace=1&_size=3")).json());
    assert.equal(first.cached, undefined, "the first ask runs its query");
    assert.equal(first.interrupted, undefined);
    const again = pageSql((await svc.client.get("/shop/products.json?_trace=1&_size=3")).json());
    assert.equal(again.cached, true, "the second is answered from the query cache");

    const slow = "with recursive n(i) as (select 1 union all select i + 1 from n) " +
      "select count(*) from n";
    const response = await svc.client.get(
      `/shop/-/query.json?sql=${encodeURIComponent(slow)}&_timelimit=20&_trace=1`,
    );
    assert.equal(response.status, 400);
    const traces: TraceEntry[] = response.json()._trace.traces;
    // The page runs it wrapped (`select * from (…)`).
    const stopped = traces.find((t) => String(t.sql).includes(`(\n${slow}\n)`))!;
    assert.equal(stopped.interrupted, true, JSON.stringify(stopped));
    assert.equal(stopped.cached, undefined);
  });
});
