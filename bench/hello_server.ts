/**
 * The floor for engine overhead: the smallest useful Deno HTTP server.
 * `deno run -A bench/hello_server.ts PORT`
 *
 * `/` answers `{"ok":true}`. `/row` answers a body and headers the size of a Vitrine row page
 * (`/bench/trees/1.json`, about 530 bytes in all): Deno writes a fixed-length response whose head and
 * body pass 512 bytes in two `send` calls instead of one (libs/http_h1 in Deno's source, a
 * 512-byte write buffer per connection), and on this machine that second call costs a
 * hello-world about a third of its rate. A row page pays it too, so it is measured against a
 * floor that does.
 *
 * With `--worker` it also starts one idle worker thread, as Vitrine's read pool does at start-up:
 * run with Vitrine's V8 flags, its resident memory is the floor a Vitrine server's is compared with
 * (a Deno runtime, one more isolate, an HTTP server).
 */

const port = Number(Deno.args[0] ?? 8400);
const withWorker = Deno.args.includes("--worker");
if (withWorker) {
  new Worker("data:text/javascript,self.onmessage = () => {};", { type: "module" });
}

const rowBody = new TextEncoder().encode(JSON.stringify({
  database: "bench",
  table: "trees",
  rows: [{
    id: 7,
    species: "Ginkgo",
    planted: "1977-05-19",
    height: 0.8,
    district_id: 3,
    address: "375 Mill Grove Road",
    status: "healthy",
  }],
  primary_keys: ["id"],
  primary_key_values: ["7"],
  query_ms: 0.0123,
  ok: true,
  truncated: false,
}));
const rowHeaders: [string, string][] = [
  ["content-type", "application/json; charset=utf-8"],
  ["cache-control", "max-age=5"],
  ["referrer-policy", "no-referrer"],
  ["etag", 'W/"6fba520d1376aa6f7fd859de17de9946"'],
  ["x-content-type-options", "nosniff"],
  ["content-length", String(rowBody.byteLength)],
];

Deno.serve({ hostname: "127.0.0.1", port, onListen() {} }, (request) => {
  if (request.url.endsWith("/row")) return new Response(rowBody, { headers: rowHeaders });
  return Response.json({ ok: true });
});
