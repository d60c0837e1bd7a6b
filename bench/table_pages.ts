/**
 * Table pages on a 500k-row table: JSON page, sorted+filtered page, facet page, search page and
 * the streamed CSV of every row (time and peak RSS). Run: `deno run -A bench/table_pages.ts`.
 */
import { Connection } from "../src/sqlite/mod.ts";
import { Service } from "../src/service.ts";

const ROWS = Number(Deno.args[0] ?? 500_000);
const dir = Deno.makeTempDirSync({ prefix: "vitrine-bench-" });
const path = `${dir}/big.db`;
const conn = Connection.open(path, { mode: "rwc" });
conn.exec(`
  create table items (id integer primary key, name text, category text, price real, added text);
  with recursive n(i) as (select 1 union all select i + 1 from n where i < ${ROWS})
  insert into items select i, 'item ' || i || ' ' || substr('alphabetagammadelta', 1 + i % 15, 5),
    'cat' || (i % 20), (i * 7919 % 10000) / 10.0, date('2024-01-01', '+' || (i % 365) || ' days')
  from n;
  create virtual table items_fts using fts5(name, content="items", content_rowid="id");
  insert into items_fts (items_fts) values ('rebuild');
`);
conn.close();

const svc = new Service({ files: [path] });
async function time(label: string, url: string, runs = 5): Promise<void> {
  await (await svc.client.get(url)).text; // warm up
  const start = performance.now();
  for (let i = 0; i < runs; i++) {
    const response = await svc.client.get(url);
    if (response.status !== 200) throw new Error(`${url}: ${response.status} ${response.text}`);
  }
  console.log(`${label.padEnd(24)} ${((performance.now() - start) / runs).toFixed(1)} ms`);
}

await time("JSON page", "/big/items.json");
await time("sorted+filtered page", "/big/items.json?price__gt=500&_sort_desc=price");
await time("facet page", "/big/items.json?_facet=category&_size=10");
await time("search page", "/big/items.json?_search=gamma");
await time("HTML page", "/big/items");

let peak = Deno.memoryUsage().rss;
const sampler = setInterval(() => peak = Math.max(peak, Deno.memoryUsage().rss), 5);
const before = Deno.memoryUsage().rss;
const start = performance.now();
const response = await svc.handler()(new Request("http://localhost/big/items.csv?_stream=on"));
let bytes = 0;
for await (const chunk of response.body!) bytes += chunk.length;
clearInterval(sampler);
console.log(
  `CSV stream ${ROWS} rows    ${(performance.now() - start).toFixed(0)} ms, ` +
    `${(bytes / 1e6).toFixed(1)} MB, RSS ${(before / 1e6).toFixed(0)} → peak ${
      (peak / 1e6).toFixed(0)
    } MB`,
);
await svc.close();
Deno.removeSync(dir, { recursive: true });
