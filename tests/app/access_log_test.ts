import assert from "node:assert/strict";
import { batchedLines, withAccessLog } from "../../src/app/access_log.ts";

const info = {
  remoteAddr: { transport: "tcp", hostname: "10.0.0.7", port: 5000 },
  completed: Promise.resolve(),
} as unknown as Deno.ServeHandlerInfo;

Deno.test("access log: one line once the body is sent, with its byte count", async () => {
  const lines: string[] = [];
  const handler = withAccessLog(
    () => Promise.resolve(new Response("héllo", { status: 201 })),
    (line) => lines.push(line),
  );
  const response = await handler(new Request("http://x/db/t?a=1"), info);
  assert.equal(lines.length, 0, "nothing before the body went out");
  assert.equal(response.status, 201);
  assert.equal(await response.text(), "héllo");
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^10\.0\.0\.7 \[[^\]]+Z\] "GET \/db\/t\?a=1" 201 6 [\d.]+ms$/);
});

Deno.test("access log: a body the client stops reading is marked aborted", async () => {
  const lines: string[] = [];
  let sent = 0;
  const endless = new ReadableStream<Uint8Array>({
    pull(controller) {
      sent += 1;
      controller.enqueue(new Uint8Array(10));
    },
  });
  const handler = withAccessLog(
    () => Promise.resolve(new Response(endless)),
    (line) => lines.push(line),
  );
  const response = await handler(new Request("http://x/big.csv"), info);
  const reader = response.body!.getReader();
  await reader.read();
  await reader.read();
  await reader.cancel();
  assert.equal(lines.length, 1);
  assert.match(lines[0], /"GET \/big\.csv" 200 20 [\d.]+ms \(aborted\)$/);
  assert.ok(sent >= 2);
});

Deno.test("access log: bodiless responses and handler errors are logged too", async () => {
  const lines: string[] = [];
  const empty = withAccessLog(
    () => Promise.resolve(new Response(null, { status: 304 })),
    (line) => lines.push(line),
  );
  await empty(new Request("http://x/a", { method: "HEAD" }), info);
  assert.match(lines[0], /"HEAD \/a" 304 0 /);
  const failing = withAccessLog(() => Promise.reject(new Error("boom")), (l) => lines.push(l));
  await assert.rejects(failing(new Request("http://x/b"), info), /boom/);
  assert.match(lines[1], /"GET \/b" 500 0 [\d.]+ms \(error\)$/);
});

Deno.test("access log: a body of known length is logged once Deno has sent it", async () => {
  const lines: string[] = [];
  let sent!: () => void;
  const completed = new Promise<void>((resolve) => sent = resolve);
  const handler = withAccessLog(
    () => Promise.resolve(new Response("hello", { headers: { "content-length": "5" } })),
    (line) => lines.push(line),
  );
  const response = await handler(new Request("http://x/a?b=1"), { ...info, completed });
  assert.equal(await response.text(), "hello");
  assert.equal(lines.length, 0);
  sent();
  await completed;
  await Promise.resolve();
  assert.match(lines[0], /^10\.0\.0\.7 \[.+\] "GET \/a\?b=1" 200 5 [\d.]+ms$/);
});

Deno.test("access log: batched lines are written together, in order", async () => {
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

Deno.test("access log: Vitrine's own responses tell their length without their headers", async () => {
  const { Response: VitrineResponse, heldBodyLength } = await import("../../src/http/response.ts");
  const web = VitrineResponse.json({ name: "héllo" }).toWebResponse();
  assert.equal(heldBodyLength(web), 17);
  assert.equal(heldBodyLength(new Response("made elsewhere")), null);
  const lines: string[] = [];
  let sent!: () => void;
  const completed = new Promise<void>((resolve) => sent = resolve);
  const handler = withAccessLog(() => Promise.resolve(web), (line) => lines.push(line));
  const response = await handler(new Request("http://x/db/t.json"), { ...info, completed });
  assert.equal(response, web, "the response itself goes out, untouched");
  sent();
  await completed;
  await Promise.resolve();
  assert.match(lines[0], /"GET \/db\/t\.json" 200 17 [\d.]+ms$/);
  assert.equal(await response.text(), '{"name":"héllo"}');
});
