import assert from "node:assert/strict";
import { decodeMessages, encodeMessages, ERROR, INFO, WARNING } from "../../src/auth/messages.ts";
import { Signer } from "../../src/auth/signer.ts";

const signer = new Signer("secret");

Deno.test("message types are INFO=1, WARNING=2, ERROR=3", () => {
  assert.deepEqual([INFO, WARNING, ERROR], [1, 2, 3]);
});

Deno.test("the ds_messages cookie round-trips messages in order", () => {
  const messages: [string, number][] = [["Saved", INFO], ["Größe ≥ 3", WARNING], ["Nope", ERROR]];
  assert.deepEqual(decodeMessages(signer, encodeMessages(signer, messages)), messages);
});

Deno.test("the ds_messages cookie is the value Datasette signs", () => {
  // itsdangerous 2.2: URLSafeSerializer("secret", "messages").dumps([["Hello", 1]])
  assert.equal(
    encodeMessages(signer, [["Hello", 1]]),
    "W1siSGVsbG8iLDFdXQ.QKCGq-SmGFK_s5fmOy9nOf0D_Us",
  );
});

Deno.test("a missing, tampered or malformed ds_messages cookie yields no messages", () => {
  assert.deepEqual(decodeMessages(signer, undefined), []);
  assert.deepEqual(decodeMessages(signer, ""), []);
  assert.deepEqual(decodeMessages(signer, "garbage"), []);
  const other = encodeMessages(new Signer("other"), [["Hi", 1]]);
  assert.deepEqual(decodeMessages(signer, other), []);
  assert.deepEqual(decodeMessages(signer, signer.sign({ not: "a list" }, "messages")), []);
  assert.deepEqual(
    decodeMessages(signer, signer.sign([["ok", 1], ["bad"], [2, "x"]], "messages")),
    [["ok", 1]],
  );
});
