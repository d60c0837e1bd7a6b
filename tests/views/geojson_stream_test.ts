/**
 * Streaming output renderers (`stream: true`): the example GeoJSON plugin writes a 500,000-row
 * table with `_stream=on` in bounded memory; without `_stream` it renders one page as before.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";

const PLUGIN = new URL("../../examples/plugins/geojson_output.ts", import.meta.url).href;

Deno.test("the GeoJSON plugin streams a 500,000-row table under a 48 MB heap", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-geojson-" });
  const script = new URL("../fixtures/scripts/stream_geojson.ts", import.meta.url).pathname;
  const output = await new Deno.Command(Deno.execPath(), {
    // The document below is about 70 MB: it cannot be built whole in a 48 MB old space.
    args: [
      "run",
      "-A",
      "--no-lock",
      "--v8-flags=--max-old-space-size=48",
      script,
      `${dir}/data.db`,
      "500000",
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr.slice(-2000));
  const result = JSON.parse(new TextDecoder().decode(output.stdout).trim());
  assert.equal(result.features, 500_000);
  assert.ok(result.bytes > 48 * 1024 * 1024, `${result.bytes} bytes`);
  assert.equal(result.type, "application/geo+json");
  Deno.removeSync(dir, { recursive: true });
});

Deno.test("without _stream a streaming renderer gets the page's rows; _stream needs allow_csv_stream", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-geojson-" });
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`create table places (id integer primary key, name text, lat real, lng real);
    insert into places (name, lat, lng) values ('a', 51.5, -0.1), ('b', 48.9, 2.35), ('c', 40.7, -74);`);
  conn.close();
  {
    await using svc = new Service({
      immutables: [path],
      plugins: [PLUGIN],
      settings: { default_page_size: 2 },
    });
    const page = await svc.client.get("/data/places.geojson");
    assert.equal(page.status, 200);
    const body = page.json() as { features: { properties: { name: string } }[] };
    assert.deepEqual(body.features.map((f) => f.properties.name), ["a", "b"]);
    const all = (await svc.client.get("/data/places.geojson?_stream=on")).json() as {
      features: { geometry: { coordinates: number[] } }[];
    };
    assert.equal(all.features.length, 3);
    assert.deepEqual(all.features[2].geometry.coordinates, [-74, 40.7]);
    // Custom SQL streams too.
    const sql = encodeURIComponent("select name, lat, lng from places order by name desc");
    const query = (await svc.client.get(`/data/-/query.geojson?sql=${sql}&_stream=on`)).json() as {
      features: unknown[];
    };
    assert.equal(query.features.length, 3);
  }
  await using off = new Service({
    immutables: [path],
    plugins: [PLUGIN],
    settings: { allow_csv_stream: false },
  });
  const refused = await off.client.get("/data/places.geojson?_stream=on");
  assert.equal(refused.status, 400);
  assert.match(refused.text, /streaming is disabled/i);
  Deno.removeSync(dir, { recursive: true });
});
