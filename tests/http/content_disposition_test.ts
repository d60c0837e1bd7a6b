import assert from "node:assert/strict";
import { asciiFilename, attachment } from "../../src/http/content_disposition.ts";

Deno.test("a plain ASCII name is a quoted filename alone", () => {
  assert.equal(attachment("categories.csv"), 'attachment; filename="categories.csv"');
});

Deno.test("a name outside Latin-1 gets an ASCII stand-in and the whole name as filename*", () => {
  assert.equal(
    attachment("𝐜𝐢𝐭𝐢𝐞𝐬.csv"),
    "attachment; filename=\"cities.csv\"; filename*=UTF-8''%F0%9D%90%9C%F0%9D%90%A2%F0%9D%90%AD%F0%9D%90%A2%F0%9D%90%9E%F0%9D%90%AC.csv",
  );
  assert.equal(asciiFilename("café 東京.tsv"), "cafe __.tsv");
  // Quotes, backslashes and line breaks cannot end the quoted string or the header.
  assert.equal(asciiFilename('a"b\\c\r\nd'), "a_b_c__d");
  assert.match(attachment("it's (1)* é"), /filename\*=UTF-8''it%27s%20%281%29%2A%20%C3%A9$/);
});
