/** A SpatiaLite table's POINT geometries on the map, read from the geometry BLOBs in the page. */
import assert from "node:assert/strict";
import { browserTest } from "./browser.ts";
import { textOf } from "./pages.ts";
import { Service } from "../../src/service.ts";
import { makeSpatialiteFile, SPATIALITE_READY } from "../fixtures/spatialite.ts";

if (SPATIALITE_READY) {
  browserTest(
    "SpatiaLite: the map shows the points of a geometry column",
    async (page, base) => {
      await page.goto(`${base}/geo/places`);
      const panel = page.locator(".map-panel[data-ready]");
      // The map library is a large script: a loaded machine can take a while to run it.
      await panel.waitFor({ timeout: 90_000 });
      assert.equal(await panel.getAttribute("data-points"), "2");
      assert.equal(await textOf(page, ".map-note"), "2 rows on the map.");
      // The cells read as WKT, not as binary sizes.
      assert.equal(await textOf(page, "td.col-geom .geometry"), "POINT(1.5 2.5)");
      // A polygon table gets no map.
      await page.goto(`${base}/geo/areas`);
      await page.locator("td.col-shape .geometry").waitFor();
      assert.equal(await page.locator(".map-panel").count(), 0);
    },
    () => new Service({ files: [makeSpatialiteFile()] }),
  );
}
