/** Cell HTML: escaping, truncation, links, BLOBs, foreign keys and the render_cell hook. */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { Markup } from "../../src/util/markup.ts";
import {
  type CellContext,
  defaultCell,
  displayRows,
  renderCell,
} from "../../src/render/render_cell.ts";

function context(svc: Service, extra: Partial<CellContext> = {}): CellContext {
  return { svc, request: null, database: "shop", table: "products", truncate: 10, ...extra };
}

Deno.test("built-in cells escape, truncate, link URLs and describe BLOBs", async () => {
  await using svc = new Service();
  const ctx = context(svc, {
    blobUrl: (_row, column) => `/shop/products/1.blob?_blob_column=${column}`,
    column_types: { price: "REAL" },
  });
  const cell = (column: string, value: unknown) => String(defaultCell(ctx, {}, column, value));
  assert.equal(cell("name", "<b>hi</b>"), "&lt;b&gt;hi&lt;/b&gt;");
  assert.equal(cell("name", "a very long text indeed"), "a very lon\u2026");
  assert.equal(cell("notes", null), "&nbsp;");
  assert.equal(cell("price", 12), "12.0");
  assert.equal(
    cell("url", "https://example.com/a?b=1&c=2"),
    '<a href="https://example.com/a?b=1&amp;c=2">https://ex\u2026</a>',
  );
  assert.equal(
    cell("data", new Uint8Array([1, 2, 3])),
    '<a class="blob-download" href="/shop/products/1.blob?_blob_column=data">' +
      "&lt;Binary:&nbsp;3&nbsp;bytes&gt;</a>",
  );
  const untruncated = context(svc, { truncate: 0 });
  assert.equal(String(defaultCell(untruncated, {}, "name", "x".repeat(50))), "x".repeat(50));
});

Deno.test("foreign-key cells link to the referenced row with its label; compound keys too", async () => {
  await using svc = new Service();
  const ctx = context(svc, {
    foreign_keys: [
      { columns: ["category_id"], other_table: "categories", other_columns: ["id"] },
      { columns: ["a", "b"], other_table: "pairs", other_columns: ["x", "y"] },
    ],
    labels: new Map([["category_id", new Map<unknown, unknown>([[1, "Kitchen"]])]]),
  });
  assert.equal(
    String(defaultCell(ctx, { category_id: 1 }, "category_id", 1)),
    '<a href="/shop/categories/1">Kitchen</a>&nbsp;<em>1</em>',
  );
  assert.equal(
    String(defaultCell(ctx, { category_id: 2 }, "category_id", 2)),
    '<a href="/shop/categories/2">2</a>',
  );
  assert.equal(
    String(defaultCell(ctx, { a: "x/y", b: 2 }, "b", 2)),
    '<a href="/shop/pairs/x~2Fy,2">2</a>',
  );
  assert.equal(String(defaultCell(ctx, { a: null, b: 2 }, "b", 2)), "2");
});

Deno.test("render_cell: the first non-null answer wins; Markup is kept, strings are escaped", async () => {
  await using svc = new Service();
  await svc.ready();
  svc.pm.register({ render_cell: () => null }, { name: "silent" });
  svc.pm.register({
    render_cell: ({ value, column }: { value: unknown; column: string }) =>
      column === "html" ? new Markup(`<i>${value}</i>`) : column === "text" ? "<x>" : null,
  }, { name: "answers" });
  const ctx = context(svc);
  assert.equal(String(await renderCell(ctx, {}, "html", "hi")), "<i>hi</i>");
  assert.equal(String(await renderCell(ctx, {}, "text", "hi")), "&lt;x&gt;");
  assert.equal(String(await renderCell(ctx, {}, "other", "a&b")), "a&amp;b");
  const [row] = await displayRows(ctx, ["html", "other"], [["hi", 3]]);
  assert.equal(String(row.display("html")), "<i>hi</i>");
  assert.equal(row["other"], 3);
});
