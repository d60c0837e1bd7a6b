/**
 * The varied mix, defined once: its kinds of request (random filters, sorts, row ids, searches,
 * deep `_next` pages, facets, HTML and JSON) and their weights, drawn by a seeded generator into a
 * list of URLs that wrk asks in order (`mixScript`, `urlListScript`), that a replay of their SQL
 * follows (`mix_floor.ts`) and that a client timing each kind asks (`mix_client.ts`). Also the
 * fast requests (row pages and small-table JSON) of the runaway scenario.
 *
 * @module
 */

import { DISTRICTS, SPECIES, STREETS } from "../bench_db.ts";

/** A seeded generator (mulberry32): the same seed gives the same URLs in every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a kind's URL is drawn with. */
interface Draw {
  int(lo: number, hi: number): number;
  pick<T>(list: readonly T[]): T;
  /** A row id of the trees table. */
  id(): number;
  date(): string;
}

const STATUSES = ["healthy", "fair", "poor", "dead"];
const COLUMNS = ["species", "planted", "height", "district_id", "address", "status"];
const q = encodeURIComponent;

/** The mix's kinds: a name (for tables by kind), a weight in percent, and how a URL is drawn. */
export const MIX_KINDS: { kind: string; weight: number; url(db: string, d: Draw): string }[] = [
  { kind: "row JSON", weight: 25, url: (db, d) => `/${db}/trees/${d.id()}.json` },
  { kind: "row HTML", weight: 8, url: (db, d) => `/${db}/trees/${d.id()}` },
  {
    kind: "species, sorted by a column",
    weight: 14,
    url: (db, d) =>
      `/${db}/trees.json?species=${q(d.pick(SPECIES))}&_sort=${d.pick(COLUMNS)}&_size=${
        d.int(10, 100)
      }`,
  },
  {
    kind: "height and district filters",
    weight: 8,
    url: (db, d) =>
      `/${db}/trees.json?height__gt=${d.int(0, 299) / 10}&district_id=${d.int(1, DISTRICTS)}`,
  },
  {
    kind: "full-text search",
    weight: 10,
    url: (db, d) => `/${db}/trees.json?_search=${q(d.pick(STREETS))}&_size=${d.int(5, 50)}`,
  },
  {
    kind: "deep page by id",
    weight: 8,
    url: (db, d) => `/${db}/trees.json?_next=${d.id()}&_size=${d.int(10, 100)}`,
  },
  {
    kind: "deep page sorted by date",
    weight: 6,
    url: (db, d) => `/${db}/trees.json?_sort=planted&_next=${d.date()},${d.id()}`,
  },
  {
    kind: "HTML: status, by height, deep",
    weight: 8,
    url: (db, d) =>
      `/${db}/trees?status=${d.pick(STATUSES)}&_sort_desc=height&_next=${
        d.int(0, 299) / 10
      },${d.id()}`,
  },
  {
    kind: "facet on a species",
    weight: 5,
    url: (db, d) =>
      `/${db}/trees.json?_facet=status&species=${q(d.pick(SPECIES))}&_size=${d.int(1, 20)}`,
  },
  {
    kind: "small table, filtered",
    weight: 8,
    url: (db, d) =>
      `/${db}/districts.json?_size=${d.int(1, 15)}&population__gt=${d.int(10000, 30000)}`,
  },
];

/** One URL of the mix and its kind. */
export interface MixUrl {
  kind: string;
  url: string;
}

/** `count` URLs of the mix on database `db` of `rows` trees, drawn from `seed`. */
export function mixUrls(count: number, rows: number, seed: number, db = "bench"): MixUrl[] {
  const next = seeded(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pad = (n: number) => String(n).padStart(2, "0");
  const draw: Draw = {
    int,
    pick: (list) => list[int(0, list.length - 1)],
    id: () => int(1, rows),
    date: () => `${int(1960, 2019)}-${pad(int(1, 12))}-${pad(int(1, 28))}`,
  };
  const total = MIX_KINDS.reduce((sum, k) => sum + k.weight, 0);
  const urls: MixUrl[] = [];
  while (urls.length < count) {
    let r = int(1, total);
    const kind = MIX_KINDS.find((k) => (r -= k.weight) <= 0)!;
    urls.push({ kind: kind.kind, url: kind.url(db, draw) });
  }
  return urls;
}

/**
 * A wrk script that asks `urls` in order, starting over past the end, read from a file written
 * next to the script (`dir`): a file, not a Lua table, so the list may be as long as a run needs.
 * Each wrk run starts at the first URL again.
 */
export function urlListScript(dir: string, name: string, urls: readonly MixUrl[]): string {
  const list = `${dir}/${name}.urls`;
  Deno.writeTextFileSync(list, urls.map((u) => u.url).join("\n") + "\n");
  const script = `${dir}/${name}.lua`;
  Deno.writeTextFileSync(
    script,
    `local urls = {}
for line in io.lines(${JSON.stringify(list)}) do urls[#urls + 1] = line end
local i = 0
request = function()
  i = i % #urls + 1
  return wrk.format("GET", urls[i])
end
`,
  );
  return script;
}

let scratchDir: string | null = null;

/**
 * A wrk script of the varied mix (every request a different URL): 50,000 URLs drawn from `seed`
 * (more than any line here asks), asked in order. Its URL list is written to a scratch folder
 * removed when the benchmark ends.
 */
export function mixScript(db: string, rows: number, seed = 1): string {
  if (scratchDir === null) {
    const made = Deno.makeTempDirSync({ prefix: "vitrine-mix-" });
    scratchDir = made;
    globalThis.addEventListener("unload", () => Deno.removeSync(made, { recursive: true }));
  }
  const path = urlListScript(
    scratchDir,
    `mix-${db}-${rows}-${seed}`,
    mixUrls(50_000, rows, seed, db),
  );
  return Deno.readTextFileSync(path);
}

function prelude(db: string, rows: number, seed: number): string {
  return `
math.randomseed(${seed})
local db = "/${db}"
local rows = ${rows}
local function id() return math.random(rows) end
`;
}

/** Fast requests only: row pages (JSON and HTML) and the 15-row table's JSON. */
export function fastScript(db: string, rows: number, seed = 2): string {
  return prelude(db, rows, seed) + `
request = function()
  local r = math.random(3)
  if r == 1 then return wrk.format("GET", db .. "/trees/" .. id() .. ".json") end
  if r == 2 then return wrk.format("GET", db .. "/districts.json?_size=" .. math.random(1, 15)) end
  return wrk.format("GET", db .. "/districts/" .. math.random(${DISTRICTS}) .. ".json")
end
`;
}
