/** `parseTableRequest` / `columnFilters`: a table page's query string read once (issue 37 item 12). */
import assert from "node:assert/strict";
import { columnFilters, parseTableRequest } from "../../src/table/table_request.ts";
import type { TableArgsError } from "../../src/table/errors.ts";

const pairs = (query: string) => [...new URLSearchParams(query)];

Deno.test("the typed request holds every option the page reads", () => {
  const request = parseTableRequest(
    pairs(
      "state=CA&_next=5&_timelimit=20&_search=x&_fts_table=t&_facet=state&_nocount=1&" +
        "_where=1&_where=2&_extra=count,columns&_extra=+next_url&_shape=arrays&_json=tags&_nl=on",
    ),
    { format: "json", full_export: false },
  );
  assert.equal(request.next, "5");
  assert.equal(request.timelimit, 20);
  assert.equal(request.search, "x");
  assert.equal(request.fts_table, "t");
  assert.equal(request.fts_pk, null);
  assert.equal(request.facets_asked, true);
  assert.equal(request.nocount, true);
  assert.equal(request.nofacet, false);
  assert.deepEqual(request.where, ["1", "2"]);
  assert.deepEqual(request.extras, ["count", "columns", "next_url"]);
  assert.deepEqual(request.json, {
    shape: "arrays",
    json_columns: ["tags"],
    nl: true,
    infinity: false,
    extras: ["count", "columns", "next_url"],
  });
  assert.deepEqual(request.filters.pairs, [["state", "CA"]]);
});

Deno.test("JSON arguments are read for JSON only: a bad _shape is an error there alone", () => {
  const html = parseTableRequest(pairs("_shape=nope"), { format: null, full_export: false });
  assert.equal(html.json, null);
  assert.throws(
    () => parseTableRequest(pairs("_shape=nope"), { format: "json", full_export: false }),
    { message: "Invalid _shape: nope" },
  );
});

Deno.test("a streamed export reads every row without facets or counts", () => {
  const request = parseTableRequest(pairs("_size=5&_stream=on"), {
    format: "csv",
    full_export: true,
  });
  assert.equal(request.args.get("_size"), "max");
  assert.equal(request.nofacet, true);
  assert.equal(request.nocount, true);
  // Links to other pages keep what the client sent.
  assert.deepEqual(request.pairs, [["_size", "5"], ["_stream", "on"]]);
});

Deno.test("filters: someone else's argument is dropped, an unknown operator refused", () => {
  const request = parseTableRequest(pairs("q=x&utm_source=y&state__not=CA&pk__gt=2"), {
    format: null,
    full_export: false,
  });
  const filters = columnFilters(request, ["pk", "state"]);
  assert.deepEqual(filters.pairs, [["pk__gt", "2"], ["state__not", "CA"]]);
  const bad = parseTableRequest(pairs("state__near=CA"), { format: null, full_export: false });
  assert.throws(() => columnFilters(bad, ["state"]), (error: Error) => {
    assert.equal((error as TableArgsError).status, 400);
    assert.match(
      error.message,
      /^Invalid filter state__near: unknown operator "near" \(use one of /,
    );
    return true;
  });
});
