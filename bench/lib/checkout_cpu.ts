/**
 * CPU per request of another checkout's `Service`, in-process (`svc.client`, no HTTP): run with
 * that checkout's configuration, so its own imports resolve, and print one JSON line of
 * microseconds per request for each URL. `bench/engine_ab.ts --in-process` runs it for both
 * checkouts in turn.
 *
 *   deno run -A --config ROOT/deno.json bench/lib/checkout_cpu.ts ROOT DB REQUESTS URL...
 *
 * @module
 */

import process from "node:process";

const [root, path, requests, ...urls] = Deno.args;
const { Service } = await import(`${root}/src/service.ts`);
const svc = new Service({ immutables: [path] });
await svc.invoke_startup?.();
const cpu = () => {
  const used = process.cpuUsage(); // every thread: the read workers' too
  return (used.user + used.system) / 1000;
};
const out: Record<string, number> = {};
for (const url of urls) {
  for (let i = 0; i < 50; i++) {
    const response = await svc.client.get(url);
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
  }
  const count = Number(requests);
  const start = cpu();
  for (let i = 0; i < count; i++) await svc.client.get(url);
  out[url] = ((cpu() - start) * 1000) / count;
}
console.log(JSON.stringify(out));
await svc.close();
Deno.exit(0);
