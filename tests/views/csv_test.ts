/** CSV, TSV and NDJSON exports: headers, labels, streaming across pages, the size cap, BLOBs. */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";

Deno.test("_stream=on follows the next tokens and returns every row in one CSV", async () => {
  await using svc = shopService({ settings: { max_returned_rows: 2 } });
  const paged = await svc.client.get("/shop/products.csv?_size=2&_col=name");
  assert.equal(paged.text, "id,name\r\n1,Chef knife\r\n2,Wooden spoon\r\n");
  const streamed = await svc.client.get(
    "/shop/products.csv?_stream=on&_col=name&_sort_desc=price",
  );
  assert.equal(streamed.status, 200);
  const lines = streamed.text.trimEnd().split("\r\n");
  assert.equal(lines.length, 10);
  assert.deepEqual(lines.slice(0, 3), ["id,name", "1,Chef knife", "4,Garden hose"]);
  // NULL prices sort last in descending order and are still reached.
  assert.equal(lines[9], "3,Mystery box");
  const view = await svc.client.get("/shop/cheap_products.csv?_stream=1");
  assert.equal(view.text.trimEnd().split("\r\n").length, 5);
});

Deno.test("_stream is refused when disabled or combined with _next", async () => {
  {
    await using svc = shopService({ settings: { allow_csv_stream: false } });
    const disabled = await svc.client.get("/shop/products.csv?_stream=on");
    assert.equal(disabled.status, 400);
    assert.match(disabled.text, /CSV streaming is disabled/);
  }
  await using open = shopService();
  assert.equal((await open.client.get("/shop/products.csv?_stream=on&_next=3")).status, 400);
});

Deno.test("_header=off, _labels=on label columns, TSV and NDJSON", async () => {
  await using svc = shopService();
  const labelled = await svc.client.get("/shop/products.csv?_labels=on&_col=category_id&_size=3");
  assert.equal(
    labelled.text,
    "id,category_id,category_id_label\r\n1,1,Kitchen\r\n2,1,Kitchen\r\n3,,\r\n",
  );
  const bare = await svc.client.get("/shop/categories.csv?_header=off");
  assert.equal(bare.text, "1,Kitchen\r\n2,Garden\r\n3,Tools\r\n");
  const tsv = await svc.client.get("/shop/categories.tsv?_dl=on");
  assert.equal(tsv.headers.get("content-type"), "text/tab-separated-values; charset=utf-8");
  assert.equal(tsv.headers.get("content-disposition"), 'attachment; filename="categories.tsv"');
  assert.equal(tsv.text, "id\tname\r\n1\tKitchen\r\n2\tGarden\r\n3\tTools\r\n");
  const ndjson = await svc.client.get("/shop/products.ndjson?_col=price&_size=3&_sort=id");
  assert.equal(
    ndjson.text,
    '{"id":1,"price":34.5}\n{"id":2,"price":4.25}\n{"id":3,"price":null}\n',
  );
});

Deno.test("max_csv_mb ends a long stream with a notice, BLOB cells become download URLs", async () => {
  await using svc = shopService({ settings: { max_csv_mb: 1 } });
  const db = svc.get_database("shop");
  await db.execute_write_script(`
    create table big (id integer primary key, body text, data blob);
    with recursive n(i) as (select 1 union all select i + 1 from n where i < 12000)
    insert into big select i, printf('%.100c', 'x'), null from n;
    update big set data = x'00ff10' where id = 1;
  `);
  const capped = await svc.client.get("/shop/big.csv?_stream=on");
  assert.equal(capped.status, 200);
  assert.ok(capped.text.endsWith(`CSV contains more than ${1024 * 1024} bytes`));
  assert.ok(capped.text.length < 1024 * 1024 + 200);
  // Each format ends in its own words; NDJSON's last line is JSON like every other.
  const tsv = await svc.client.get("/shop/big.tsv?_stream=on");
  assert.ok(tsv.text.endsWith(`TSV contains more than ${1024 * 1024} bytes`));
  const ndjson = (await svc.client.get("/shop/big.ndjson?_stream=on")).text;
  const lines = ndjson.trimEnd().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(lines.at(-1), { error: `NDJSON contains more than ${1024 * 1024} bytes` });
  assert.deepEqual(Object.keys(lines[0]), ["id", "body", "data"]);
  assert.ok(ndjson.endsWith("\n"));
  const blob = await svc.client.get("/shop/big.csv?_size=1");
  assert.equal(
    blob.text.split("\r\n")[1],
    `1,${"x".repeat(100)},http://localhost/shop/big/1.blob?_blob_column=data`,
  );
  const download = await svc.client.get("/shop/big/1.blob?_blob_column=data");
  assert.equal(download.status, 200);
  assert.equal(download.headers.get("content-disposition"), 'attachment; filename="big-1.blob"');
});
