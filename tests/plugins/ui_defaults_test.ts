import assert from "node:assert/strict";
import { scriptJson } from "../../src/plugins/defaults/ui_assets.ts";
import { coordinateColumns } from "../../src/plugins/defaults/maps.ts";

Deno.test("scriptJson cannot close its <script> or break the statement", () => {
  const text = scriptJson({
    name: "</script><script>alert(1)</script>",
    sep: "a\u2028b",
    amp: "&",
  });
  assert.doesNotMatch(text, /<|>|&|\u2028/);
  // It is still the same value to JavaScript.
  assert.deepEqual(JSON.parse(text), {
    name: "</script><script>alert(1)</script>",
    sep: "a\u2028b",
    amp: "&",
  });
});

Deno.test("maps: latitude and longitude columns by their usual names, any case", () => {
  assert.deepEqual(coordinateColumns(["id", "lat", "lng"]), ["lat", "lng"]);
  assert.deepEqual(coordinateColumns(["Latitude", "x", "LONGITUDE"]), ["Latitude", "LONGITUDE"]);
  assert.deepEqual(coordinateColumns(["latitude", "lon"]), ["latitude", "lon"]);
  assert.deepEqual(coordinateColumns(["lat", "long"]), ["lat", "long"]);
  assert.equal(coordinateColumns(["lat"]), null);
  assert.equal(coordinateColumns(["latitude_deg", "lng"]), null);
  assert.equal(coordinateColumns(null), null);
});
