import assert from "node:assert/strict";
import { Request } from "../../src/http/request.ts";
import { exportMenu } from "../../src/render/export_menu.ts";

Deno.test("export menu: this page keeps its arguments; all rows drop paging and stream", () => {
  const request = Request.fake("/db/trees?condition=poor&_size=20&_next=40&_dl=on");
  const menu = exportMenu(request, {
    page_rows: 20,
    total_rows: 200,
    can_stream: true,
    labels: true,
    plugin_formats: { atom: "/db/trees.atom?condition=poor" },
  });
  const urls = Object.fromEntries(menu.page.map((link) => [link.format, link.url]));
  assert.deepEqual(urls, {
    csv: "/db/trees.csv?condition=poor&_size=20&_next=40&_dl=on",
    tsv: "/db/trees.tsv?condition=poor&_size=20&_next=40&_dl=on",
    ndjson: "/db/trees.ndjson?condition=poor&_size=20&_next=40&_dl=on",
    json: "/db/trees.json?condition=poor&_size=20&_next=40",
    atom: "/db/trees.atom?condition=poor",
  });
  // The option-free URL the page script adds `_dl` / `_labels` to.
  assert.equal(menu.page[0].base_url, "/db/trees.csv?condition=poor&_size=20&_next=40");
  assert.deepEqual(menu.all?.map((link) => link.url), [
    "/db/trees.csv?condition=poor&_stream=on&_dl=on",
    "/db/trees.tsv?condition=poor&_stream=on&_dl=on",
    "/db/trees.ndjson?condition=poor&_stream=on&_dl=on",
  ]);
  assert.equal(menu.total_rows, 200);
  assert.equal(menu.labels, true);
});

Deno.test("export menu: no streamed links when streaming is off; a .json page maps back", () => {
  const request = Request.fake("/db/trees.json?_size=5", { url_vars: { format: "json" } });
  const menu = exportMenu(request, { page_rows: 5, can_stream: false });
  assert.equal(menu.all, null);
  assert.equal(menu.total_rows, null);
  assert.equal(
    menu.page.find((link) => link.format === "csv")?.url,
    "/db/trees.csv?_size=5&_dl=on",
  );
});
