/**
 * static/upload-parts.js, the browser's cutting of a CSV file into upload parts: every part ends
 * at a record's end, so each part read alone by the server's parser gives the same records as the
 * whole file read at once (quoted line breaks, doubled quotes and stray quotes included).
 */
import assert from "node:assert/strict";
// @ts-types="./upload_parts.d.ts"
import { countLineBreaks, FileParts, lastRecordEnd } from "../../static/upload-parts.js";
import { CsvParser, type CsvRecord } from "../../src/db/import/csv_parser.ts";

Deno.test("lastRecordEnd: the last line break outside quotes", () => {
  assert.equal(lastRecordEnd("a,b\n1,2\n3,"), 8);
  assert.equal(lastRecordEnd('a,b\n1,"x\ny"\n3'), 12);
  // The quoted field is still open at the end: the row it is in waits for the next part.
  assert.equal(lastRecordEnd('a,b\n1,"x\ny'), 4);
  assert.equal(lastRecordEnd('a\n"say ""hi""\nthere"\n'), 21);
  assert.equal(lastRecordEnd('a\n"x""'), 2);
  // A quote inside an unquoted field is an ordinary character.
  assert.equal(lastRecordEnd('size,n\n5" screen,1\n7" screen,2\n'), 31);
  assert.equal(lastRecordEnd("no break yet"), 0);
  assert.equal(lastRecordEnd('a\tb\n1\t"x\ny"\n', { delimiter: "\t" }), 12);
  assert.equal(lastRecordEnd("a,b\r\n1,2\r\n"), 10);
  assert.equal(lastRecordEnd('a,b\r1,"2\r"\r3', { lineBreak: "\r" }), 11);
  assert.equal(countLineBreaks('1,"a\nb"\n2,c\n'), 3);
});

function records(parser: CsvParser, text: string): CsvRecord[] {
  return [...parser.push(text), ...parser.end()];
}

/** A random CSV: quoted fields with line breaks, doubled quotes, delimiters; stray quotes. */
function randomCsv(rows: number, seed: number): string {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pieces = ["a", "bc", "é", "日本", " ", ",", "\n", '"', '5" x', "x\r\ny"];
  const lines = ["id,text,n"];
  for (let i = 1; i <= rows; i++) {
    let text = "";
    for (let k = Math.floor(random() * 6); k > 0; k--) {
      text += pieces[Math.floor(random() * pieces.length)];
    }
    // Unquoted, a quote that does not start the field is an ordinary character.
    const quote = /[,\n\r]/.test(text) || text.startsWith('"') || random() < 0.3;
    lines.push(`${i},${quote ? `"${text.replaceAll('"', '""')}"` : text},${random()}`);
  }
  return lines.join("\n") + (seed % 2 ? "\n" : "");
}

Deno.test("FileParts: parts read one by one give the whole file's records, lines and all", async () => {
  for (const seed of [1, 2, 3, 4]) {
    const text = randomCsv(3000, seed);
    const whole = records(new CsvParser(",", '"'), text);
    const parts: string[] = [];
    const reader = new FileParts(new Blob([text]), { maxBytes: 1500 + seed * 777 });
    for (let part = await reader.next(); part; part = await reader.next()) {
      assert.ok(part.body.length <= 1500 + seed * 777);
      assert.equal(new TextDecoder().decode(part.body), part.text);
      parts.push(part.text);
    }
    assert.ok(parts.length > 10, `${parts.length} parts`);
    assert.equal(parts.join(""), text);
    // Each part alone, started at its line, as the server reads it.
    let line = 1;
    const read: CsvRecord[] = [];
    for (const part of parts) {
      const parser = new CsvParser(",", '"', line);
      read.push(...records(parser, part));
      assert.equal(parser.line, line + countLineBreaks(part));
      line = parser.line;
    }
    assert.deepEqual(read, whole);
  }
});

Deno.test("FileParts: a row longer than a part may be, and a file that is not UTF-8", async () => {
  const long = new FileParts(new Blob([`a\n"${"x".repeat(5000)}"\n`]), { maxBytes: 1024 });
  assert.equal((await long.next())?.text, "a\n");
  await assert.rejects(() => long.next(), /A row is longer than the 1,024 bytes a part may have/);
  const latin1 = new Uint8Array([0x61, 0x0a, 0x4a, 0x6f, 0xeb, 0x6c, 0x0a]);
  // UTF-8 text (an é) and then a byte that is not: no encoding reads the whole file.
  const mixed = new Uint8Array([0x61, 0x0a, 0x4a, 0x6f, 0xc3, 0xa9, 0x0a, ...latin1.slice(2)]);
  const strict = new FileParts(new Blob([mixed]));
  await assert.rejects(() => strict.next(), /The file is not UTF-8 text/);
  const decoded = new FileParts(new Blob([latin1]), { encoding: "windows-1252" });
  assert.deepEqual((await decoded.next())?.text, "a\nJoël\n");
  assert.equal(await decoded.next(), null);
});

Deno.test("FileParts: plain ASCII first and Windows-1252 after the preview's bytes is read as such", async () => {
  // The preview read the first bytes, all ASCII, and said UTF-8; the accents come parts later.
  const ascii = "id,city\n" + Array.from({ length: 200 }, (_, i) => `${i},Koln\n`).join("");
  const latin1 = new Uint8Array([
    ...new TextEncoder().encode(ascii),
    0x31,
    0x2c,
    0x4b,
    0xf6,
    0x6c,
    0x6e,
    0x0a,
  ]);
  const parts = new FileParts(new Blob([latin1]), { maxBytes: 1024 });
  const texts: string[] = [];
  for (let part = await parts.next(); part; part = await parts.next()) texts.push(part.text);
  assert.ok(texts.length > 1, "several parts");
  assert.equal(texts.join(""), ascii + "1,Köln\n");
  assert.equal(parts.encoding, "windows-1252");
  // A UTF-8 file stays UTF-8.
  const utf8 = new FileParts(new Blob([ascii + "1,Köln\n"]), { maxBytes: 1024 });
  while (await utf8.next());
  assert.equal(utf8.encoding, "utf-8");
});
