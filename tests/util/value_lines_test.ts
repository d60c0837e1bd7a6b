import assert from "node:assert/strict";
import { textRows } from "../../src/util/text_rows.ts";
import { valueLines } from "../../src/util/value_lines.ts";

const decode = (bytes: Uint8Array | null) => bytes && new TextDecoder().decode(bytes);
/** textRows's text as it is sent: encoded (a lone surrogate becomes U+FFFD). */
const sent = (text: string | null) => text && decode(new TextEncoder().encode(text));

const columns = ["id", "name", "price", "note", "big"];
const rows = [
  [1, "plain", 12, null, 9007199254740993n],
  [2, 'comma, "quote"', 1.5, "line\r\nbreak\ttab", -5],
  [3, "émoji 🌳", Infinity, "", 0],
  [4, "", -Infinity, "x", 1e21],
  [5, "tab\there", NaN, "\\back", -0],
  [-2147483648, "lone \ud800 surrogate", 2147483648, "a\nb", -2147483649],
  [6, '"', 1e16, "é, quoted", 3.25],
  [7, "x".repeat(100_000), -7, null, 1e-7],
];

Deno.test("CSV and TSV lines written straight to bytes are textRows's text, byte for byte", () => {
  for (const format of ["csv", "tsv"] as const) {
    for (const real of [[], [2], [0, 2, 4]]) {
      const options = { format, real, limit: 100 };
      assert.equal(
        decode(valueLines(columns, rows, options)),
        sent(textRows(columns, rows, options)),
      );
    }
    // `limit` rows only; a lone empty field is `""`.
    const two = { format, real: [], limit: 2 };
    assert.equal(decode(valueLines(columns, rows, two)), sent(textRows(columns, rows, two)));
    const lone = { format, real: [], limit: 9 };
    assert.equal(decode(valueLines(["one"], [[""], [null], ["a"]], lone)), '""\r\n""\r\na\r\n');
  }
  // Many rows: the buffer grows past its first size.
  const many = Array.from({ length: 20_000 }, (_, i) => [i, `name ${i}`, i / 10, "2024-01-02", i]);
  const options = { format: "csv" as const, real: [2], limit: many.length };
  assert.equal(decode(valueLines(columns, many, options)), textRows(columns, many, options));
});

Deno.test("a BLOB cell: null, as textRows answers (the page writes it, with its download URL)", () => {
  const options = { format: "csv" as const, real: [], limit: 9 };
  assert.equal(valueLines(["a", "b"], [[1, new Uint8Array([1])]], options), null);
  assert.equal(textRows(["a", "b"], [[1, new Uint8Array([1])]], options), null);
});

Deno.test("NDJSON lines written straight to bytes are textRows's text, byte for byte", () => {
  const odd = [
    [1, "plain", 12, null, 9007199254740993n],
    [2, 'quote " and \\ back', 1.5, "line\r\nbreak\ttab\u0001\u001f\u007f", true],
    [3, "émoji 🌳 ünïcode", Infinity, "", false],
    [4, "lone \ud800 surrogate", -Infinity, new Uint8Array([0, 1, 254, 255]), 1e21],
    [5, "\u2028\u2029", NaN, undefined, -0],
    [-2147483648, "x".repeat(100_000), 2147483648, "y", -2147483649],
    [6, "", 1e16, "é", 3.25],
    [7, "</script>", -7, "a/b", 1e-7],
  ];
  const sameAs = (cols: string[], rows: unknown[][], real: number[], limit = 100) => {
    const options = { format: "ndjson" as const, real, limit };
    assert.equal(decode(valueLines(cols, rows, options)), sent(textRows(cols, rows, options)));
  };
  for (const real of [[], [2], [0, 2, 4]]) {
    sameAs(columns, [...rows, ...odd], real);
    // A repeated column name is one member, at its first place, with its last value.
    sameAs(["a", "b", "a"], [[1, 2, 3], ["x", null, "y"]], real);
  }
  sameAs(columns, odd, [2], 3);
  sameAs([], [[], []], []);
  // Random text: every UTF-16 code unit, escapes and all.
  const random = Array.from({ length: 2_000 }, (_, i) => [
    i,
    String.fromCharCode(...Array.from({ length: i % 40 }, () => Math.floor(Math.random() * 65536))),
    Math.random() * 1e6 - 5e5,
    String.fromCharCode(...Array.from({ length: i % 7 }, () => Math.floor(Math.random() * 128))),
    Math.floor(Math.random() * 2 ** 40) - 2 ** 39,
  ]);
  sameAs(columns, random, [2]);
  // Many rows: the buffer grows past its first size.
  const many = Array.from({ length: 20_000 }, (_, i) => [i, `name ${i}`, i / 10, "2024-01-02", i]);
  sameAs(columns, many, [2], many.length);
});
