import assert from "node:assert/strict";
import { batchedLines, withAccessLog } from "../../src/app/access_log.ts";

const info = {
  remoteAddr: { hostname: "10.0.0.7", port: 1, transport: "tcp" },
} as unknown as Deno.ServeHandlerInfo;

Deno.test("the access log gives bytes sent for bodies of known length and for streams", async () => {
  const lines: string[] = [];
  const fixed = withAccessLog(
    () => Promise.resolve(new Response("hello", { headers: { "content-length": "5" } })),
    (line) => lines.push(line),
  );
  assert.equal(await (await fixed(new Request("http://x/a?b=1"), info)).text(), "hello");
  const streamed = withAccessLog(
    () => Promise.resolve(new Response(new Blob(["12345", "678"]).stream())),
    (line) => lines.push(line),
  );
  await (await streamed(new Request("http://x/s"), info)).text();
  assert.match(lines[0], /^10\.0\.0\.7 \[.+\] "GET \/a\?b=1" 200 5 [\d.]+ms$/);
  assert.match(lines[1], /"GET \/s" 200 8 /);
});

Deno.test("batched access log lines are written together, in order", async () => {
  const writes: string[] = [];
  const write = batchedLines((text) => writes.push(text));
  write("one");
  write("two");
  assert.deepEqual(writes, []);
  await new Promise((resolve) => setTimeout(resolve, 120));
  assert.deepEqual(writes, ["one\ntwo"]);
  write("x".repeat(70_000));
  assert.equal(writes.length, 2, "a full batch is written at once");
});
