import assert from "node:assert/strict";
import nunjucks from "nunjucks";
import { tableCells } from "../../src/render/table_cells.ts";
import { makeDisplayRow } from "../../src/render/display_row.ts";
import { patchRuntime } from "../../src/render/template_filters.ts";
import { cssClass } from "../../src/render/css_class.ts";
import { Markup } from "../../src/util/markup.ts";

// The loop `_table.html` had before `table_cells`: the filter must write exactly this.
// (plus `numeric` on a NULL among numbers).
const LOOP = `{% for cell in row.cells %}<td class="col-{{ cell.column | to_css_class }} ` +
  `type-{{ cell.value_type }}{% if cell.numeric_null %} numeric{% endif %}"` +
  `{% if stacked_rows %} role="cell" data-column="{{ cell.column }}"` +
  `{% endif %}>{{ cell.value }}</td>{% endfor %}`;

Deno.test("table_cells writes a row's cells exactly as the template loop did", () => {
  patchRuntime();
  const env = new nunjucks.Environment(null, { autoescape: true });
  env.addFilter("to_css_class", (name: string) => cssClass(String(name ?? "")));
  const row = makeDisplayRow([
    { column: "id", value: new Markup('<a href="/db/t/1">1</a>'), raw: 1 },
    { column: `odd "name" <b>&'\\`, value: Markup.escape(`a "quoted" <tag> & \\`), raw: "x" },
    { column: "height m", value: new Markup("12.5"), raw: 12.5 },
    { column: "émoji 🌳", value: new Markup("&nbsp;"), raw: null },
    { column: "-lead", value: "plain <text>", raw: "plain <text>" },
    { column: "price", value: new Markup("&nbsp;"), raw: null, numeric_null: true },
  ]);
  for (const stacked_rows of [false, true, "", 1]) {
    const expected = env.renderString(LOOP, { row, stacked_rows });
    assert.equal(tableCells(row, stacked_rows), expected, `stacked_rows=${stacked_rows}`);
  }
});

Deno.test("table_cells keeps opening tags apart by column, type, numeric NULL and stacking", () => {
  patchRuntime();
  const env = new nunjucks.Environment(null, { autoescape: true });
  env.addFilter("to_css_class", (name: string) => cssClass(String(name ?? "")));
  const long = "c".repeat(300); // not kept: written afresh each time
  const rows = [
    [{ column: "v", value: new Markup("1"), raw: 1 }, { column: long, value: "a", raw: "a" }],
    [{ column: "v", value: new Markup("x"), raw: "x" }, { column: long, value: "1", raw: 1 }],
    [
      { column: "v", value: new Markup("&nbsp;"), raw: null, numeric_null: true },
      { column: long, value: new Markup("&nbsp;"), raw: null },
    ],
    [{ column: "v", value: new Markup("2.5"), raw: 2.5 }, { column: "V", value: "b", raw: "b" }],
  ].map((cells) => makeDisplayRow(cells));
  // Twice over, alternating stacked and not: what the first round kept must fit the second.
  for (let round = 0; round < 2; round++) {
    for (const row of rows) {
      for (const stacked_rows of [true, false]) {
        const expected = env.renderString(LOOP, { row, stacked_rows });
        assert.equal(tableCells(row, stacked_rows), expected);
      }
    }
  }
});
