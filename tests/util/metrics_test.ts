import assert from "node:assert/strict";
import { familiesText, MetricsRegistry } from "../../src/util/metrics.ts";
import { parsePrometheus, sumOf, valueOf } from "../scale/prometheus.ts";

Deno.test("counters, histograms and gauges in the Prometheus text format", () => {
  const registry = new MetricsRegistry();
  const requests = registry.counter("t_requests_total", "Requests\nby kind", ["kind"]);
  const latency = registry.histogram("t_seconds", "Latency", ["kind"], [0.1, 0.01, 1]);
  registry.gauge("t_depth", "Depth", () => [[{ db: 'a "quoted"\\name' }, 3]]);
  requests.inc({ kind: "table" });
  requests.inc({ kind: "table" }, 2);
  requests.inc({ kind: "row" });
  for (const seconds of [0.005, 0.05, 0.5, 5]) latency.observe({ kind: "table" }, seconds);
  const text = registry.text();
  assert.match(
    text,
    /^# HELP t_requests_total Requests\\nby kind\n# TYPE t_requests_total counter\n/,
  );
  assert.match(text, /t_depth\{db="a \\"quoted\\"\\\\name"\} 3\n/);
  assert.ok(text.endsWith("\n"));
  const families = parsePrometheus(text);
  assert.equal(valueOf(families, "t_requests_total", { kind: "table" }), 3);
  assert.equal(valueOf(families, "t_requests_total", { kind: "row" }), 1);
  // Buckets sorted and cumulative: 0.01 → 1, 0.1 → 2, 1 → 3, +Inf → 4.
  const buckets = families.get("t_seconds")!.samples.filter((s) => s.name === "t_seconds_bucket");
  assert.deepEqual(buckets.map((s) => [s.labels.le, s.value]), [
    ["0.01", 1],
    ["0.1", 2],
    ["1", 3],
    ["+Inf", 4],
  ]);
  assert.equal(valueOf(families, "t_seconds_sum", { kind: "table" }), 5.555);
  assert.equal(valueOf(families, "t_depth"), 3);
  assert.equal(families.get("t_depth")!.samples[0].labels.db, 'a "quoted"\\name');
});

Deno.test("the test's parser refuses what Prometheus would refuse", () => {
  assert.throws(() => parsePrometheus("no_type 1\n"), /undeclared/);
  assert.throws(() => parsePrometheus("# TYPE x counter\nx{a=b} 1\n"), /bad label/);
  assert.throws(() => parsePrometheus("# TYPE x counter\nx one\n"), /not a number/);
  assert.throws(() => parsePrometheus("# TYPE x counter\nx 1"), /newline/);
});

Deno.test("open connections: the process's sockets less its listener", async () => {
  // In a child process of its own: the test runner's other files open and close sockets in this
  // one while the test counts.
  const script = `
    import { openConnections } from ${
    JSON.stringify(import.meta.resolve("../../src/app/connections.ts"))
  };
    const before = openConnections(0);
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const client = await Deno.connect({ hostname: "127.0.0.1", port: listener.addr.port });
    const server = await listener.accept();
    console.log(JSON.stringify([openConnections(0) - before, openConnections(1) - before]));
    client.close(); server.close(); listener.close();
  `;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--no-config", script],
    stderr: "inherit",
  }).output();
  assert.ok(output.success);
  // One listener and two ends of one connection (both in that process); less the listener, two.
  assert.deepEqual(JSON.parse(new TextDecoder().decode(output.stdout)), [3, 2]);
});

Deno.test("several processes' metrics merge into one text: each metric once, every series labelled", () => {
  const copies = [1, 2].map((process) => {
    const registry = new MetricsRegistry();
    registry.counter("hits_total", "Hits", ["kind"]).inc({ kind: "row" }, process * 10);
    registry.histogram("took_seconds", "Time", [], [0.1]).observe({}, 0.05);
    registry.gauge("up", "Up", () => [[{}, 1]]);
    return registry.families({ process: String(process) });
  });
  const text = familiesText(copies);
  assert.equal(text.match(/# TYPE hits_total counter/g)?.length, 1);
  assert.match(
    text,
    /hits_total\{process="1",kind="row"\} 10\nhits_total\{process="2",kind="row"\} 20/,
  );
  assert.match(text, /took_seconds_bucket\{process="2",le="0.1"\} 1/);
  assert.match(text, /up\{process="1"\} 1\nup\{process="2"\} 1\n$/);
  const parsed = parsePrometheus(text);
  assert.equal(sumOf(parsed, "hits_total"), 30);
  assert.equal(sumOf(parsed, "took_seconds_count"), 2);
});
