/** The store of metadata edited while serving, on its own: its overlay, and an unreadable file. */
import assert from "node:assert/strict";
import { MetadataEdits } from "../../src/db/metadata_edits.ts";
import { openInternalDatabase } from "../../src/db/internal_db.ts";

Deno.test("MetadataEdits: edits read back in the metadata's shape; blank drops one", async () => {
  const { db, ready } = openInternalDatabase(undefined);
  try {
    const edits = new MetadataEdits(db, ready);
    await edits.refresh();
    assert.deepEqual(edits.overlay, {});
    await edits.apply("shop", "products", [
      { column: null, key: "description", value: "Products" },
      { column: "price", key: "description", value: "Price" },
      { column: "price", key: "unit", value: "EUR" },
    ]);
    await edits.apply("shop", null, [{ column: null, key: "title", value: "Shop" }]);
    assert.deepEqual(edits.overlay, {
      databases: {
        shop: {
          title: "Shop",
          tables: {
            products: {
              description: "Products",
              description_html: null,
              columns: { price: "Price" },
              units: { price: "EUR" },
            },
          },
        },
      },
    });
    await edits.apply("shop", null, [{ column: null, key: "title", value: " " }]);
    assert.equal(
      (edits.overlay.databases as Record<string, { title?: string }>).shop.title,
      undefined,
    );
    await assert.rejects(
      edits.apply("shop", null, [{ column: null, key: "hidden", value: "1" }]),
      /Cannot edit "hidden"/,
    );
  } finally {
    db.close();
  }
});

Deno.test("MetadataEdits: an unreadable internal file leaves the overlay empty, no error", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vitrine-metadata-edits-" });
  const path = `${dir}/internal.db`;
  await Deno.writeTextFile(path, "not a database ".repeat(100));
  const { db, ready } = openInternalDatabase(undefined, path);
  ready.catch(() => {});
  const errors: string[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args.join(" "));
  try {
    const edits = new MetadataEdits(db, ready);
    await edits.refresh();
    await edits.refresh();
    assert.deepEqual(edits.overlay, {});
    assert.ok(
      errors.some((line) => /Could not read the edited metadata/.test(line)),
      errors.join(),
    );
  } finally {
    console.error = original;
    db.close();
    await Deno.remove(dir, { recursive: true });
  }
});
