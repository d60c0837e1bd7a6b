/**
 * Builds demo/demo.db from demo/schema.sql and deterministic generated rows.
 * Run with `deno run -A demo/build.ts [target.db]`; `deno task start` calls it.
 */
import { Connection } from "../src/sqlite/mod.ts";

const here = new URL(".", import.meta.url);
const target = Deno.args[0] ?? new URL("demo.db", here).pathname;

const NEIGHBORHOODS: [string, string][] = [
  ["Old Mill", "North"],
  ["Riverside", "North"],
  ["Harbour Flats", "West"],
  ["Juniper Hill", "West"],
  ["Cathedral Quarter", "Central"],
  ["Station Road", "Central"],
  ["Orchard Park", "East"],
  ["Kestrel Green", "East"],
];
/** Where each neighbourhood's trees stand (latitude, longitude): an invented town on a river. */
const CENTRES: [number, number][] = [
  [51.468, -2.602],
  [51.462, -2.584],
  [51.449, -2.621],
  [51.441, -2.607],
  [51.452, -2.589],
  [51.447, -2.575],
  [51.458, -2.556],
  [51.439, -2.561],
];
const SPECIES: [string, string, number][] = [
  ["Red maple", "Acer rubrum", 0],
  ["English oak", "Quercus robur", 1],
  ["Silver birch", "Betula pendula", 1],
  ["London plane", "Platanus × acerifolia", 0],
  ["Rowan", "Sorbus aucuparia", 1],
  ["Ginkgo", "Ginkgo biloba", 0],
  ["Small-leaved lime", "Tilia cordata", 1],
  ["Wild cherry", "Prunus avium", 1],
  ["Hornbeam", "Carpinus betulus", 1],
  ["Sweetgum", "Liquidambar styraciflua", 0],
];
const STREETS = [
  "Mill Lane",
  "High Street",
  "Quay Road",
  "Juniper Walk",
  "Abbey Close",
  "Station Road",
  "Orchard Way",
  "Kestrel Drive",
  "Bridge Street",
  "Chapel Row",
];
const CONDITIONS = ["good", "good", "good", "fair", "fair", "poor", "dead"];
const TAGS = ["shade", "flowering", "autumn-colour", "fruit", "memorial", "young"];
const INSPECTORS = ["R. Okafor", "M. Lindqvist", "S. Patel"];

/** A small deterministic generator, so every build makes the same database. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

function pick<T>(next: () => number, items: T[]): T {
  return items[Math.floor(next() * items.length)];
}

/**
 * Builds the database next to `target` and moves it into place, taking the old file's `-wal`,
 * `-shm` and `-journal` with it: left behind, they would be read as the new file's own and a
 * server would answer "disk I/O error".
 */
function build(target: string): void {
  const path = `${target}.building`;
  for (const file of [path, `${path}-journal`]) {
    try {
      Deno.removeSync(file);
    } catch { /* not there */ }
  }
  fill(path);
  for (const suffix of ["-wal", "-shm", "-journal"]) {
    try {
      Deno.removeSync(target + suffix);
    } catch { /* not there */ }
  }
  Deno.renameSync(path, target);
}

function fill(path: string): void {
  const conn = Connection.open(path, { mode: "rwc" });
  try {
    conn.exec(Deno.readTextFileSync(new URL("schema.sql", here)));
    conn.exec("begin");
    NEIGHBORHOODS.forEach(([name, district], i) =>
      conn.run("insert into neighborhoods values (?, ?, ?)", [i + 1, name, district])
    );
    SPECIES.forEach(([common, latin, native], i) =>
      conn.run("insert into species values (?, ?, ?, ?)", [i + 1, common, latin, native])
    );
    const next = random(42);
    // Positions come from a second generator, so the other columns stay as they always were.
    const scatter = random(7);
    for (let id = 1; id <= 1500; id++) {
      const year = 1950 + Math.floor(next() * 74);
      const month = String(1 + Math.floor(next() * 12)).padStart(2, "0");
      const tags = TAGS.filter(() => next() < 0.2);
      const condition = pick(next, CONDITIONS);
      const species = 1 + Math.floor(next() * SPECIES.length);
      const neighborhood = 1 + Math.floor(next() * NEIGHBORHOODS.length);
      const [lat, lon] = CENTRES[neighborhood - 1];
      conn.run("insert into trees values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [
        id,
        species,
        neighborhood,
        `${1 + Math.floor(next() * 240)} ${pick(next, STREETS)}`,
        `${year}-${month}-01`,
        Math.round((2 + next() * 28) * 10) / 10,
        condition,
        JSON.stringify(tags),
        condition === "poor" ? "Crown dieback noted; schedule a closer look" : null,
        Math.round((lat + (scatter() - 0.5) * 0.012) * 1e5) / 1e5,
        Math.round((lon + (scatter() - 0.5) * 0.018) * 1e5) / 1e5,
      ]);
      if (next() < 0.4) {
        conn.run("insert into inspections values (?, ?, ?, ?)", [
          id,
          `2024-${String(1 + Math.floor(next() * 12)).padStart(2, "0")}-15`,
          pick(next, INSPECTORS),
          condition === "dead" ? "remove" : "ok",
        ]);
      }
    }
    conn.exec("insert into trees_fts (trees_fts) values ('rebuild'); commit;");
  } finally {
    conn.close();
  }
}

if (import.meta.main) {
  build(target);
  console.log(`Built ${target}`);
}
