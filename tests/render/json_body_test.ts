/**
 * Bodies of JSON pages whose rows were written ahead (`RawJson`, render/json.ts): the text around
 * the rows must be what JSON.stringify would make of the same object with the rows in place.
 */
import assert from "node:assert/strict";
import { jsonBody, jsonBodyText, markIntegralReals, RawJson } from "../../src/render/json.ts";

const rows = '[{"id":1,"name":"Ash \\"tall\\"","h":2.0},{"id":2,"name":"Oak","h":null}]';

Deno.test("a page around written rows has every member in order, as JSON.stringify writes it", () => {
  const page = {
    database: "trees",
    'a key with "quotes"': "x\u2028y",
    rows: new RawJson(rows),
    skipped: undefined,
    primary_keys: ["id"],
    nested: { deep: [1, "two", null, true] },
    query_ms: 0.25,
    ok: true,
  };
  const text = jsonBodyText(page);
  const expected = JSON.stringify({ ...page, rows: "ROWS" }).replace('"ROWS"', rows);
  assert.equal(text, expected);
  // The rows' text is kept as written: `2.0` stays a float's text.
  assert.ok(text.includes('"h":2.0'));
});

Deno.test("members that need Vitrine's own writer keep it beside written rows", () => {
  const [marked] = markIntegralReals(["h"], [[12]], { h: "REAL" });
  const text = jsonBodyText({
    big: 2n ** 63n - 1n,
    blob: new Uint8Array([1, 2]),
    real: marked[0],
    infinite: Infinity,
    rows: new RawJson("[]"),
  });
  assert.equal(
    text,
    '{"big":9223372036854775807,"blob":{"$base64":true,"encoded":"AQI="},"real":12.0,' +
      '"infinite":null,"rows":[]}',
  );
});

Deno.test("rows written as bytes are joined to the same text", () => {
  const page = { ok: true, rows: new RawJson(new TextEncoder().encode(rows)), truncated: false };
  const body = jsonBody(page);
  assert.ok(body instanceof Uint8Array);
  assert.equal(new TextDecoder().decode(body), jsonBodyText({ ...page, rows: new RawJson(rows) }));
});
