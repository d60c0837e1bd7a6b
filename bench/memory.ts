/**
 * Memory per request: the server's RSS before and after six requests for a 20 MB value
 * (`select zeroblob(20000000)`), with the default `max_returned_bytes` (refused with a 400) and
 * with the cap removed (`-s max_returned_bytes 0`), sequential and six at a time.
 *
 *     deno run -A bench/memory.ts
 *
 * Prints figures; never fails a test run.
 */
import { startFuzzTarget } from "../tests/security/fuzz_target.ts";
import { rssMiB } from "../tests/security/server_process.ts";

const SQL = "/shop.json?sql=" + encodeURIComponent("select zeroblob(20000000) as b");

async function measure(label: string, args: string[], parallel: boolean): Promise<void> {
  const target = await startFuzzTarget(args);
  try {
    const url = target.server.url + SQL.slice(1);
    await fetch(target.server.url + "shop.json").then((r) => r.body?.cancel());
    const before = rssMiB(target.server.pid);
    let peak = before;
    const timer = setInterval(() => peak = Math.max(peak, rssMiB(target.server.pid)), 20);
    const statuses: number[] = [];
    const one = async () => {
      const response = await fetch(url);
      await response.arrayBuffer();
      statuses.push(response.status);
    };
    if (parallel) await Promise.all(Array.from({ length: 6 }, one));
    else for (let i = 0; i < 6; i++) await one();
    clearInterval(timer);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = rssMiB(target.server.pid);
    console.log(
      `${label.padEnd(44)} | ${[...new Set(statuses)].join(",").padEnd(6)} | ` +
        `${String(before).padStart(6)} | ${String(peak).padStart(6)} | ${
          String(after).padStart(6)
        }`,
    );
  } finally {
    await target.close();
  }
}

console.log(
  "six requests for select zeroblob(20000000)     | status | before |   peak | after (MiB RSS)",
);
await measure("default max_returned_bytes (10 MiB), one by one", [], false);
await measure("default max_returned_bytes (10 MiB), six at once", [], true);
await measure(
  "max_returned_bytes 0 (no cap), one by one",
  ["-s", "max_returned_bytes", "0"],
  false,
);
await measure(
  "max_returned_bytes 0 (no cap), six at once",
  ["-s", "max_returned_bytes", "0"],
  true,
);
