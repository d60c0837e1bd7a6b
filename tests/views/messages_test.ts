import assert from "node:assert/strict";
import { buildShopDb, shopService } from "../fixtures/shop.ts";
import { Service } from "../../src/service.ts";
import { Response } from "../../src/http/response.ts";
import { decodeMessages } from "../../src/auth/messages.ts";

/** The messages section of a page, or "" when there is none. */
function messagesOf(html: string): string {
  return /<div class="messages"[\s\S]*?<\/div>/.exec(html)?.[0] ?? "";
}

Deno.test("/-/messages shows a form to add a message of a chosen type", async () => {
  await using svc = shopService();
  const response = await svc.client.get("/-/messages");
  assert.equal(response.status, 200);
  assert.match(response.text, /<form class="stacked-form" method="post"/);
  assert.match(response.text, /<select id="message-type" name="message_type">/);
  assert.match(response.text, /<option value="WARNING">warning<\/option>/);
});

Deno.test("posting to /-/messages queues it; the next page shows it once", async () => {
  await using svc = shopService();
  const posted = await svc.client.post("/-/messages", {
    data: { message: "Careful now", message_type: "WARNING" },
  });
  assert.equal(posted.status, 302);
  assert.equal(posted.headers.get("location"), "/-/messages");
  assert.deepEqual(decodeMessages(svc.signer, posted.cookies.ds_messages), [
    ["Careful now", svc.WARNING],
  ]);
  const shown = await svc.client.get("/shop", { cookies: posted.cookies });
  assert.match(messagesOf(shown.text), /<p class="message message-warning">Careful now<\/p>/);
  // Showing it clears the cookie, so the page after that has no message.
  assert.equal(shown.cookies.ds_messages, "");
  const after = await svc.client.get("/shop", { cookies: shown.cookies });
  assert.equal(messagesOf(after.text), "");
});

Deno.test("'all' adds one message of each type, each with its styling", async () => {
  await using svc = shopService();
  const posted = await svc.client.post("/-/messages", {
    data: { message: "Hello", message_type: "all" },
    follow_redirects: false,
  });
  const page = await svc.client.get("/-/messages", { cookies: posted.cookies });
  const section = messagesOf(page.text);
  for (const type of ["info", "warning", "error"]) {
    assert.match(section, new RegExp(`<p class="message message-${type}">Hello</p>`));
  }
});

Deno.test("an unknown message type is a 400", async () => {
  await using svc = shopService();
  const response = await svc.client.post("/-/messages", {
    data: { message: "x", message_type: "LOUD" },
  });
  assert.equal(response.status, 400);
});

Deno.test("a blank message is a 400 rather than an empty banner", async () => {
  await using svc = shopService();
  const response = await svc.client.post("/-/messages", {
    data: { message: "  ", message_type: "INFO" },
    headers: { accept: "application/json" },
  });
  assert.equal(response.status, 400);
  assert.equal((response.json() as { error: string }).error, "message must not be empty");
});

Deno.test("messages escape HTML and a tampered cookie shows nothing", async () => {
  await using svc = shopService();
  const posted = await svc.client.post("/-/messages", {
    data: { message: "<b>bold</b>", message_type: "INFO" },
  });
  const page = await svc.client.get("/shop", { cookies: posted.cookies });
  assert.match(messagesOf(page.text), /&lt;b&gt;bold&lt;\/b&gt;/);
  const tampered = await svc.client.get("/shop", {
    cookies: { ds_messages: posted.cookies.ds_messages.replace(/.$/, "x") },
  });
  assert.equal(messagesOf(tampered.text), "");
});

Deno.test("a plugin view's add_message appears on the page the browser goes to next", async () => {
  await using svc = new Service({ files: [buildShopDb()], secret: "s" });
  svc.pm.register({
    register_routes() {
      return [[/^\/-\/flash$/, ({ request }: { request: never }) => {
        svc.add_message(request, "Saved", svc.INFO);
        svc.add_message(request, "But check this", svc.ERROR);
        return Response.redirect("/");
      }]];
    },
  }, { name: "test-flash" });
  const flashed = await svc.client.get("/-/flash");
  const home = await svc.client.get("/", { cookies: flashed.cookies });
  const section = messagesOf(home.text);
  assert.match(section, /message-info">Saved</);
  assert.match(section, /message-error">But check this</);
});
