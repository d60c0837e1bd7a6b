import assert from "node:assert/strict";
import { TemplateEnvironment } from "../../src/render/environment.ts";

Deno.test("a for loop sets its loop variables without splitting their names each time", () => {
  const env = new TemplateEnvironment();
  const rows = Array.from({ length: 100 }, (_, i) => i);
  const split = String.prototype.split;
  let calls = 0;
  String.prototype.split = function (this: string, ...args: Parameters<typeof split>) {
    calls++;
    return split.apply(this, args);
  } as typeof split;
  let html: string;
  try {
    html = env.renderString(
      "{% for row in rows %}{{ loop.index }}{% if loop.last %}.{% endif %} {% endfor %}",
      { rows },
    );
  } finally {
    String.prototype.split = split;
  }
  // Each iteration set eight variables, each name split on "." first: 800 calls.
  assert.ok(calls < 10, `split ${calls} times`);
  assert.equal(html.trim(), rows.map((i) => i + 1).join(" ") + ".");
});

Deno.test("set, dotted names, loops and nested scopes render as before", () => {
  const env = new TemplateEnvironment();
  const source = [
    "{% set a = 1 %}{% set b = 2 %}",
    "{% for x in [1, 2] %}{% set a = a + x %}{{ a }}/{{ loop.index0 }}/{{ loop.revindex }},{% endfor %}",
    "{% if true %}{% set b = 5 %}{% endif %}",
    "{{ a }} {{ b }}",
    "{% macro m(v) %}{% set inner = v * 2 %}[{{ inner }}]{% endmacro %}{{ m(3) }}{{ inner }}",
    "{% for k, v in {'p': 1, 'q': 2} %}{{ k }}={{ v }}{% if not loop.last %};{% endif %}{% endfor %}",
    "{% for r in [[1, 2], [3]] %}{% for c in r %}{{ loop.index }}{{ loop.length }}{% endfor %}",
    "|{{ loop.first }}{% endfor %}{% set x %}cap{{ a }}{% endset %}{{ x }}",
  ].join("");
  // What nunjucks' own Frame.set renders (checked before the patch).
  assert.equal(
    env.renderString(source, {}),
    "2/0/2,4/1/1,4 5[6]p=1;q=21222|true11|falsecap4",
  );
});
