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
