/**
 * `--load-extension` reaches every connection: the read workers that answer query and table
 * pages as well as the write connection. With Debian's SpatiaLite module, a SpatiaLite file
 * browses, spatial SQL runs on query pages and geometry cells read as WKT. Each test is ignored
 * when what it needs (a C compiler, the module) is absent.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { Connection } from "../../src/sqlite/mod.ts";
import { makeSpatialiteFile, SPATIALITE, SPATIALITE_READY } from "../fixtures/spatialite.ts";

type Entry = { name: string; hidden: boolean; unavailable?: string };

const HELLO_SOURCE = `
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
static void hello(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, "hello from C", -1, SQLITE_STATIC);
}
int sqlite3_extension_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_function(db, "hello", 0, SQLITE_UTF8, 0, hello, 0, 0);
}
`;

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

function haveCompiler(): boolean {
  try {
    return new Deno.Command("cc", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success && exists("/usr/include/sqlite3ext.h");
  } catch {
    return false;
  }
}

/** Builds the hello() extension in `dir`; returns its path. */
function buildHello(dir: string): string {
  Deno.writeTextFileSync(`${dir}/hello.c`, HELLO_SOURCE);
  const built = new Deno.Command("cc", {
    args: ["-shared", "-fPIC", "-o", `${dir}/hello.so`, `${dir}/hello.c`],
  }).outputSync();
  assert.ok(built.success, new TextDecoder().decode(built.stderr));
  return `${dir}/hello.so`;
}

Deno.test({
  name: "--load-extension: a query page (read worker) and a write both see the function",
  ignore: !haveCompiler(),
}, async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-ext-" });
  const extension = buildHello(dir);
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec("create table t (id integer primary key, note text); insert into t values (1, 'a');");
  conn.close();
  await using svc = new Service({
    files: [path],
    load_extensions: [extension],
    settings: { num_sql_threads: 2 },
  });
  // Several requests so more than one worker connection answers.
  for (let i = 0; i < 4; i++) {
    const response = await svc.client.get(`/data/-/query.json?sql=select+hello()+as+h,+${i}+as+i`);
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(response.json().rows, [{ h: "hello from C", i }]);
  }
  const table = await svc.client.get("/data/t.json?_where=note+!%3D+hello()&_shape=array");
  assert.equal(table.status, 200, table.text);
  assert.deepEqual(table.json(), [{ id: 1, note: "a" }]);
  await svc.get_database("data").execute_write("update t set note = hello() where id = 1");
  const after = await svc.client.get("/data/t/1.json?_shape=array");
  assert.equal(after.json()[0].note, "hello from C");
});

Deno.test({
  name: "SpatiaLite: tables browse, geometry reads as WKT, spatial SQL runs on query pages",
  ignore: !SPATIALITE_READY,
}, async () => {
  const path = makeSpatialiteFile();
  await using svc = new Service({ files: [path], load_extensions: [SPATIALITE] });
  for (const page of ["/", "/.json", "/geo", "/geo.json", "/geo/areas", "/geo/places/1"]) {
    const response = await svc.client.get(page);
    assert.equal(response.status, 200, `${page}: ${response.text.slice(0, 300)}`);
  }
  const html = (await svc.client.get("/geo/places")).text;
  assert.match(html, /<span class="geometry" title="SRID 4326">POINT\(1\.5 2\.5\)<\/span>/);
  assert.match(html, />POINT\(-3 51\)</);
  assert.doesNotMatch(html, /Binary:/);
  assert.match(
    (await svc.client.get("/geo/areas")).text,
    />POLYGON\(\(0 0, 1 0, 1 1, 0 1, 0 0\)\)</,
  );
  const sql = "select name, AsText(geom) as wkt, round(ST_Distance(geom, MakePoint(0, 0)), 3) " +
    "as d from places where MbrWithin(geom, BuildMbr(-10, 0, 10, 60)) order by id";
  const query = await svc.client.get(`/geo/-/query.json?sql=${encodeURIComponent(sql)}`);
  assert.equal(query.status, 200, query.text);
  assert.deepEqual(query.json().rows, [
    { name: "Mill", wkt: "POINT(1.5 2.5)", d: 2.915 },
    { name: "Quay", wkt: "POINT(-3 51)", d: 51.088 },
  ]);
  // SpatiaLite's own tables are listed as hidden, not among the data.
  const tables = (await svc.client.get("/geo.json")).json().tables as Entry[];
  const shown = tables.filter((table) => !table.hidden).map((table) => table.name);
  assert.deepEqual(shown.sort(), ["areas", "places"]);
});

Deno.test({
  name: "SpatiaLite without the extension: every page still answers, geometry still reads",
  ignore: !SPATIALITE_READY,
}, async () => {
  const path = makeSpatialiteFile();
  await using svc = new Service({ files: [path] });
  for (const page of ["/", "/.json", "/geo", "/geo.json", "/geo/places", "/geo/areas.json"]) {
    const response = await svc.client.get(page);
    assert.equal(response.status, 200, `${page}: ${response.text.slice(0, 300)}`);
  }
  assert.match((await svc.client.get("/geo/places")).text, />POINT\(1\.5 2\.5\)</);
  const tables = (await svc.client.get("/geo.json?_show_hidden=1")).json().tables as Entry[];
  const index = tables.find((table) => table.name === "SpatialIndex");
  assert.equal(index?.unavailable, "no such module: VirtualSpatialIndex");
});
