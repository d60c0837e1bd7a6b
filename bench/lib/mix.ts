/**
 * Lua scripts for wrk that make every request a different URL: the varied mix (random filters,
 * sorts, row ids, searches, deep `_next` pages, facets, HTML and JSON) and the fast requests
 * (row pages and small-table JSON) of the runaway scenario.
 *
 * @module
 */

import { DISTRICTS, SPECIES, STREETS } from "../bench_db.ts";

const luaList = (items: string[]) => `{${items.map((s) => JSON.stringify(s)).join(", ")}}`;

function prelude(db: string, rows: number, seed: number): string {
  return `
math.randomseed(${seed})
local db = "/${db}"
local rows = ${rows}
local species = ${luaList(SPECIES)}
local streets = ${luaList(STREETS)}
local statuses = {"healthy", "fair", "poor", "dead"}
local columns = {"species", "planted", "height", "district_id", "address", "status"}
local function pick(list) return list[math.random(#list)] end
local function id() return math.random(rows) end
local function date() return string.format("%04d-%02d-%02d", math.random(1960, 2019), math.random(12), math.random(28)) end
`;
}

/** Every request a different URL; weights are the share of each kind, in percent. */
export function mixScript(db: string, rows: number, seed = 1): string {
  return prelude(db, rows, seed) + `
local kinds = {
  {25, function() return db .. "/trees/" .. id() .. ".json" end},
  {8, function() return db .. "/trees/" .. id() end},
  {14, function() return db .. "/trees.json?species=" .. pick(species) .. "&_sort=" .. pick(columns) .. "&_size=" .. math.random(10, 100) end},
  {8, function() return db .. "/trees.json?height__gt=" .. math.random(0, 299) / 10 .. "&district_id=" .. math.random(${DISTRICTS}) end},
  {10, function() return db .. "/trees.json?_search=" .. pick(streets) .. "&_size=" .. math.random(5, 50) end},
  {8, function() return db .. "/trees.json?_next=" .. id() .. "&_size=" .. math.random(10, 100) end},
  {6, function() return db .. "/trees.json?_sort=planted&_next=" .. date() .. "," .. id() end},
  {8, function() return db .. "/trees?status=" .. pick(statuses) .. "&_sort_desc=height&_next=" .. math.random(0, 299) / 10 .. "," .. id() end},
  {5, function() return db .. "/trees.json?_facet=status&species=" .. pick(species) .. "&_size=" .. math.random(1, 20) end},
  {8, function() return db .. "/districts.json?_size=" .. math.random(1, 15) .. "&population__gt=" .. math.random(10000, 30000) end},
}
request = function()
  local r = math.random(100)
  for _, kind in ipairs(kinds) do
    r = r - kind[1]
    if r <= 0 then return wrk.format("GET", kind[2]()) end
  end
  return wrk.format("GET", kinds[1][2]())
end
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
