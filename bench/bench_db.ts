/**
 * The benchmark database, generated (never committed): `trees`, 500k street trees with a skewed
 * species column, dates, heights, a foreign key to the 15-row `districts` table and a full-text
 * index on addresses; `oaks`, a view. No secondary indexes, as a freshly published file has none.
 *
 * @module
 */

import { Connection } from "../src/sqlite/mod.ts";

/** The 40 species; the first ones are much more common (a Zipf-like skew). */
export const SPECIES = [
  "Oak",
  "Maple",
  "Plane",
  "Lime",
  "Birch",
  "Ash",
  "Beech",
  "Chestnut",
  "Hornbeam",
  "Cherry",
  "Elm",
  "Willow",
  "Poplar",
  "Alder",
  "Rowan",
  "Hawthorn",
  "Yew",
  "Holly",
  "Pine",
  "Spruce",
  "Larch",
  "Cedar",
  "Walnut",
  "Magnolia",
  "Ginkgo",
  "Sweetgum",
  "Catalpa",
  "Hazel",
  "Juniper",
  "Fir",
  "Cypress",
  "Sequoia",
  "Laburnum",
  "Mulberry",
  "Olive",
  "Medlar",
  "Quince",
  "Pear",
  "Apple",
  "Plum",
]; // deno-fmt-ignore

/** Words street names are made of (also the full-text search terms of the mix). */
export const STREETS = [
  "Mill", "Church", "Station", "Park", "Victoria", "Green", "Manor", "Queen", "Kings", "Grove",
  "North", "South", "High", "School", "Orchard", "Bridge", "Meadow", "Chapel", "Castle", "Forest",
]; // deno-fmt-ignore

export const DISTRICTS = 15;

/** Writes the database to `path` (about 50 MB for 500k rows; a few seconds). */
export function buildBenchDatabase(path: string, rows = 500_000): void {
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`
    pragma journal_mode = off; pragma synchronous = off;
    create table districts (id integer primary key, name text, population integer);
    create table trees (
      id integer primary key, species text, planted text, height real,
      district_id integer references districts(id), address text, status text);
    create view oaks as select * from trees where species = 'Oak';
    begin;`);
  const district = conn.prepare("insert into districts values (?, ?, ?)");
  for (let i = 1; i <= DISTRICTS; i++) district.bind([i, `District ${i}`, 10_000 + i * 977]).step();
  district.finalize();
  const tree = conn.prepare("insert into trees values (?, ?, ?, ?, ?, ?, ?)");
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const statuses = ["healthy", "healthy", "healthy", "fair", "poor", "dead"];
  for (let i = 1; i <= rows; i++) {
    // Zipf-ish: index ~ 40 * r^3 puts about a quarter of the rows on the first species.
    const species = SPECIES[Math.floor(SPECIES.length * random() ** 3)];
    const day = Math.floor(random() * 365 * 60);
    const planted = new Date(Date.UTC(1960, 0, 1) + day * 86_400_000).toISOString().slice(0, 10);
    const street = `${STREETS[Math.floor(random() * STREETS.length)]} ${
      STREETS[Math.floor(random() * STREETS.length)]
    } Road`;
    tree.bind([
      i,
      species,
      planted,
      Math.round(random() * 300) / 10,
      1 + Math.floor(random() * DISTRICTS),
      `${1 + Math.floor(random() * 400)} ${street}`,
      statuses[Math.floor(random() * statuses.length)],
    ]).step();
  }
  tree.finalize();
  conn.exec(`commit;
    create virtual table trees_fts using fts5(address, content="trees", content_rowid="id");
    insert into trees_fts (trees_fts) values ('rebuild');
    vacuum;`);
  conn.close();
}

if (import.meta.main) {
  const path = Deno.args[0] ?? "bench.db";
  const started = performance.now();
  buildBenchDatabase(path, Number(Deno.args[1] ?? 500_000));
  console.log(`${path}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
