/**
 * The import worker packs CSV rows (`encoded_rows.ts`) and tells each field's kind on the way,
 * mostly without `kindOfText`'s patterns: the kinds must be the patterns' answers, the text the
 * field's UTF-8, and NULL told from empty text.
 */
import assert from "node:assert/strict";
import { encodeRows } from "../../../src/db/import/encoded_rows.ts";
import { kindOfText } from "../../../src/db/import/column_types.ts";
import { Connection } from "../../../src/sqlite/connection.ts";

const ALPHABET = ["0", "1", "7", "9", "-", "+", ".", "e", "E", "x", " ", "é", "😀", ","];

function randomField(random: () => number): string {
  const length = Math.floor(random() * 8);
  let out = "";
  for (let i = 0; i < length; i++) out += ALPHABET[Math.floor(random() * ALPHABET.length)];
  return out;
}

/** A small seeded generator, so that a failure repeats. */
function seeded(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}

Deno.test("packed rows: each field's kind is kindOfText's, its text its UTF-8", () => {
  const random = seeded(40);
  const fields = [
    "0",
    "-0",
    "007",
    "123456789012345678",
    "1234567890123456789",
    "-",
    "1e5",
    "1e-5",
    "-1.5E+3",
    "2024-01-02",
    "+5",
    "5-",
    ".5",
    "1.",
    "e5",
    "1,000",
    "NaN",
    "Infinity",
    "1e999",
    "007.5",
    "0.5",
    "-.5",
    ".",
    "-.",
    "00.1",
    "10.25",
    "-0.0",
    "1.2.3",
  ];
  for (let i = 0; i < 20_000; i++) fields.push(randomField(random));
  const width = 4;
  const records = [];
  for (let r = 0; r * width < fields.length; r++) {
    records.push({ line: r + 2, values: fields.slice(r * width, r * width + width) });
  }
  const rows = encodeRows(records, width, true);
  const decoder = new TextDecoder();
  for (let k = 0; k < fields.length; k++) {
    const field = fields[k];
    assert.equal(rows.kinds[k], kindOfText(field), JSON.stringify(field));
    const bytes = rows.text.subarray(rows.starts[k], rows.starts[k] + rows.lengths[k]);
    assert.equal(decoder.decode(bytes), field);
    if (rows.kinds[k] === 2) assert.equal(rows.reals[k], Number(field));
  }
  assert.deepEqual([...rows.lines.subarray(0, 2)], [2, 3]);
  for (let i = 0; i < width; i++) {
    let widest = 0;
    for (let k = i; k < fields.length; k += width) widest = Math.max(widest, kindOfText(fields[k]));
    assert.equal(rows.widest[i], widest);
  }
});

Deno.test("packed rows: NULL, empty text, and text left unclassified", () => {
  const rows = encodeRows([{ line: 2, values: [null, "", "12", "ü"] }], 4, false);
  assert.deepEqual([...rows.lengths], [-1, 0, 2, 2]);
  assert.deepEqual([...rows.kinds], [0, 3, 3, 3]);
  assert.deepEqual([...rows.widest], [0, 3, 3, 3]);
  // A row shorter than the width (a header's column the row lacks) is NULL there.
  const short = encodeRows([{ line: 2, values: ["1"] }], 2, true);
  assert.deepEqual([...short.lengths], [1, -1]);
});

Deno.test("packed text is bound where it lies: a thousand rows read back as written", () => {
  const conn = Connection.open(":memory:");
  try {
    conn.exec("create table t (a, b)");
    const values = Array.from({ length: 1000 }, (_, i) => [`row ${i} é`, i % 3 ? `${i}` : ""]);
    const rows = encodeRows(values.map((v, i) => ({ line: i + 2, values: v })), 2, false);
    const statement = conn.prepare("insert into t values (?, ?)");
    const address = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(rows.text)));
    for (let r = 0; r < 1000; r++) {
      statement.bind();
      for (let i = 0; i < 2; i++) {
        const k = r * 2 + i;
        statement.bindTextAt(i + 1, address + BigInt(rows.starts[k]), rows.lengths[k]);
      }
      statement.step();
    }
    statement.finalize();
    assert.deepEqual(conn.query("select a, b from t order by rowid").rows, values);
    assert.equal(
      conn.query("select count(*) from t where b = '' and b is not null").rows[0][0],
      334,
    );
  } finally {
    conn.close();
  }
});
