/**
 * Cold start of the three ways to run Vitrine that work here: from source (`deno run -A cli.ts`)
 * and from the bundle (`deno run -A dist/vitrine.js`), both against the same database, against a
 * floor (`deno run` of a script that only starts `Deno.serve`). For each: time from spawning the
 * process to (1) the "serving on" line, (2) the first answered JSON request, (3) a query that
 * goes through a read worker, (4) an HTML page. Medians of several runs, alternating the forms.
 *
 *   deno task bundle && deno run -A bench/cold_start.ts [runs=7]
 *
 * Deno's own caches (compiled TypeScript, npm packages) are warm, as on any second start.
 */
import { buildShopDb } from "../tests/fixtures/shop.ts";

const runs = Number(Deno.args[0] ?? 7);
const root = new URL("../", import.meta.url).pathname;
const dir = Deno.makeTempDirSync({ prefix: "vitrine-cold-" });
const db = buildShopDb(dir);
const floorScript = `${dir}/floor.ts`;
Deno.writeTextFileSync(
  floorScript,
  `Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) =>
     console.log("serving on http://127.0.0.1:" + port + "/") }, () => Response.json({ ok: 1 }));`,
);

interface Timing {
  listening: number;
  json: number;
  worker: number;
  html: number;
}

async function coldStart(script: string, args: string[]): Promise<Timing> {
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", script, ...args],
    cwd: dir,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  const pattern = /http:\/\/127\.0\.0\.1:\d+\//;
  while (!pattern.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${script} exited early`);
    text += value;
  }
  const listening = performance.now() - started;
  const url = pattern.exec(text)![0];
  const at = async (path: string) => {
    await (await fetch(url + path)).arrayBuffer();
    return performance.now() - started;
  };
  const floor = script === floorScript;
  const json = await at("shop/categories.json");
  const worker = floor ? json : await at("shop/-/query.json?sql=select+count(*)+from+products");
  const html = floor ? json : await at("shop/products");
  child.kill("SIGTERM");
  await child.status;
  await reader.cancel().catch(() => {});
  return { listening, json, worker, html };
}

const forms: [string, string, string[]][] = [
  ["floor: Deno.serve only", floorScript, []],
  ["source: deno run -A cli.ts", `${root}cli.ts`, [db, "-p", "0"]],
  ["bundle: deno run -A dist/vitrine.js", `${root}dist/vitrine.js`, [db, "-p", "0"]],
];
const results = new Map<string, Timing[]>(forms.map(([name]) => [name, []]));
for (const [, script, args] of forms) await coldStart(script, args); // warm Deno's caches
for (let i = 0; i < runs; i++) {
  for (const [name, script, args] of forms) results.get(name)!.push(await coldStart(script, args));
}

const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const size = Deno.statSync(`${root}dist/vitrine.js`).size;
console.log(`dist/vitrine.js: ${(size / 1024).toFixed(0)} KB; ${runs} runs, median ms from spawn`);
console.log("| form | listening | first JSON | + worker query | + HTML page |");
console.log("|---|---|---|---|---|");
const sourceJson = median(results.get(forms[1][0])!.map((t) => t.json));
for (const [name] of forms) {
  const timings = results.get(name)!;
  const cell = (key: keyof Timing) => median(timings.map((t) => t[key])).toFixed(0);
  const ratio = median(timings.map((t) => t.json)) / sourceJson;
  console.log(
    `| ${name} | ${cell("listening")} | ${cell("json")} (${ratio.toFixed(2)}x source) | ` +
      `${cell("worker")} | ${cell("html")} |`,
  );
}
Deno.removeSync(dir, { recursive: true });
