/**
 * A request body that trickles in (slowloris on the body) is cut off with a 408 once
 * `body_time_limit_ms` has passed, over a real socket, and other requests are answered meanwhile.
 * (Deno offers no way to time out request *headers*; docs/security.md says what that means.)
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import { serve } from "../../src/app/server.ts";

const encoder = new TextEncoder();

/** Reads from `conn` until the head and `Content-Length` bytes of body have arrived. */
async function readResponse(conn: Deno.Conn): Promise<{ head: string; body: string }> {
  let text = "";
  const buffer = new Uint8Array(16 * 1024);
  while (true) {
    const n = await conn.read(buffer);
    if (n === null) break;
    text += new TextDecoder().decode(buffer.subarray(0, n));
    const end = text.indexOf("\r\n\r\n");
    if (end < 0) continue;
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
    if (text.length >= end + 4 + length) break;
  }
  const end = text.indexOf("\r\n\r\n");
  return { head: text.slice(0, end), body: text.slice(end + 4) };
}

Deno.test("a request body trickling in is cut off with a 408; other requests go on", async () => {
  await using svc = shopService({ settings: { body_time_limit_ms: 1000 } });
  const controller = new AbortController();
  let port = 0;
  await serve(svc, {
    port: 0,
    signal: controller.signal,
    onListen: (url) => (port = Number(new URL(url).port)),
  });
  const slow = await Deno.connect({ hostname: "127.0.0.1", port });
  let trickle: ReturnType<typeof setInterval> | undefined;
  try {
    const body = encoder.encode(`message=${"x".repeat(100)}`);
    await slow.write(encoder.encode(
      "POST /shop/add_log_entry HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n" +
        "Content-Type: application/x-www-form-urlencoded\r\n" +
        `Content-Length: ${body.length}\r\n\r\n`,
    ));
    // One byte every 100 ms: the whole body would take 11 s.
    let sent = 0;
    trickle = setInterval(() => {
      if (sent < body.length) slow.write(body.subarray(sent, ++sent)).catch(() => {});
    }, 100);
    const answer = readResponse(slow);

    // While that body trickles, the server answers others as usual.
    const other = await fetch(`http://127.0.0.1:${port}/shop/products.json?_shape=array`);
    assert.equal(other.status, 200);
    assert.equal((await other.json()).length, 9);

    const { head, body: text } = await answer;
    assert.match(head, /^HTTP\/1\.1 408 /);
    assert.match(head, /\r\nconnection: close/i);
    const error = JSON.parse(text);
    assert.equal(error.ok, false);
    assert.equal(error.status, 408);
    assert.match(error.error, /did not arrive within 1000 ms \(the body_time_limit_ms setting\)/);
    assert.ok(sent < body.length, `the whole body was sent (${sent} bytes) before the answer`);

    // Nothing of it was written, and the same request sent at once succeeds.
    const whole = await fetch(`http://127.0.0.1:${port}/shop/add_log_entry`, {
      method: "POST",
      headers: { accept: "application/json" },
      body: new URLSearchParams({ message: "on time" }),
    });
    assert.equal(whole.status, 200, await whole.clone().text());
    await whole.body?.cancel();
    const log = await svc.get_database("shop").execute("select message from log");
    const messages = log.rows.map((row) => row[0]);
    assert.ok(messages.includes("on time"), messages.join(", "));
    assert.ok(!messages.some((m) => String(m).startsWith("x")), messages.join(", "));
  } finally {
    clearInterval(trickle);
    try {
      slow.close();
    } catch { /* closed */ }
    controller.abort();
  }
});

Deno.test("body_time_limit_ms 0 waits for a slow body as long as it takes", async () => {
  await using svc = shopService({ settings: { body_time_limit_ms: 0 } });
  let sent = 0;
  const body = encoder.encode("message=patient");
  // A body stream that yields a byte every 20 ms (0.3 s in all).
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (sent < body.length) controller.enqueue(body.subarray(sent, ++sent));
      else controller.close();
    },
  });
  const response = await svc.client.post("/shop/add_log_entry", {
    headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
    body: stream,
  });
  assert.equal(response.status, 200, response.text);
});

/** A body of unknown length (chunked) that yields `chunk` every `everyMs`, `times` times. */
function dripping(chunk: string, everyMs: number, times = Infinity): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      if (sent++ < times) controller.enqueue(encoder.encode(chunk));
      else controller.close();
    },
  });
}

Deno.test("a chunked body (no Content-Length) is held to the same time and size limits", async () => {
  await using svc = shopService({
    settings: { body_time_limit_ms: 300, max_post_body_bytes: 5000 },
  });
  const post = (body: ReadableStream<Uint8Array>) =>
    svc.client.post("/shop/add_log_entry", {
      headers: {
        accept: "application/json",
        "content-type": "application/x-www-form-urlencoded",
      },
      body,
    });
  const slow = await post(dripping("x", 50));
  assert.equal(slow.status, 408);
  assert.match(slow.json().error, /within 300 ms \(the body_time_limit_ms setting\)/);
  const big = await post(dripping("x".repeat(1000), 1, 10));
  assert.equal(big.status, 413);
  const fine = await post(dripping("message=ok", 1, 1));
  assert.equal(fine.status, 200, fine.text);
});

Deno.test("a client that leaves halfway through its body is logged as a 400, not a server error", async () => {
  await using svc = shopService();
  const controller = new AbortController();
  let port = 0;
  const lines: string[] = [];
  const errors: unknown[] = [];
  const logError = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  try {
    await serve(svc, {
      port: 0,
      signal: controller.signal,
      onListen: (url) => (port = Number(new URL(url).port)),
      access_log: (line) => lines.push(line),
    });
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    await conn.write(encoder.encode(
      "POST /shop/add_log_entry HTTP/1.1\r\nHost: localhost\r\n" +
        "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nmessage=x",
    ));
    await new Promise((resolve) => setTimeout(resolve, 200));
    conn.close();
    for (let i = 0; i < 100 && !lines.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(lines.length, 1);
    assert.match(lines[0], /"POST \/shop\/add_log_entry" 400 /);
    assert.deepEqual(errors, []);
  } finally {
    console.error = logError;
    controller.abort();
  }
});
