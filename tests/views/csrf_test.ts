import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import type { Service } from "../../src/service.ts";

const MISMATCH = "form-urlencoded POST field did not match cookie";

/** Loads the writable query's form; returns the token in the page and the cookie set. */
async function formToken(svc: Service): Promise<{ token: string; cookie: string }> {
  const page = await svc.client.get("/shop/add_log_entry");
  const token = /name="csrftoken" value="([^"]+)"/.exec(page.text)?.[1];
  assert.ok(token, "the form embeds a token");
  assert.ok(page.cookies.ds_csrftoken, "the page sets the ds_csrftoken cookie");
  return { token, cookie: page.cookies.ds_csrftoken };
}

async function logCount(svc: Service): Promise<number> {
  const results = await svc.get_database("shop").execute("select count(*) from log");
  return Number(results.single_value());
}

Deno.test("a form POST with the page's token field is accepted", async () => {
  await using svc = shopService();
  const { token, cookie } = await formToken(svc);
  assert.equal(token, cookie);
  const response = await svc.client.post("/shop/add_log_entry", {
    data: { message: "ok", csrftoken: token },
    cookies: { ds_csrftoken: cookie },
  });
  assert.equal(response.status, 302);
  assert.equal(await logCount(svc), 4);
});

Deno.test("the x-csrftoken header is accepted instead of the field", async () => {
  await using svc = shopService();
  const { cookie } = await formToken(svc);
  const response = await svc.client.post("/shop/add_log_entry", {
    data: { message: "ok" },
    cookies: { ds_csrftoken: cookie },
    headers: { "x-csrftoken": cookie },
  });
  assert.equal(response.status, 302);
});

Deno.test("a missing or wrong token is a 403 with the exact message", async () => {
  await using svc = shopService();
  const { cookie } = await formToken(svc);
  const other = (await formToken(svc)).token;
  const bodies: Record<string, string>[] = [{ message: "x" }, { message: "x", csrftoken: other }];
  for (const data of bodies) {
    const response = await svc.client.post("/shop/add_log_entry", {
      data,
      cookies: { ds_csrftoken: cookie },
      headers: { accept: "application/json" },
    });
    assert.equal(response.status, 403);
    assert.equal((response.json() as { error: string }).error, MISMATCH);
  }
  const html = await svc.client.post("/shop/add_log_entry", {
    data: { message: "x" },
    cookies: { ds_csrftoken: cookie },
  });
  assert.equal(html.status, 403);
  assert.match(html.text, new RegExp(MISMATCH));
  // Any cookie counts as a browser session: it needs the token too.
  const session = await svc.client.post("/shop/add_log_entry", {
    data: { message: "x" },
    cookies: { ds_actor: "whatever" },
  });
  assert.equal(session.status, 403);
  assert.equal(await logCount(svc), 3);
});

Deno.test("CSRF is skipped without cookies, with Bearer, for JSON and by skip_csrf", async () => {
  await using svc = shopService();
  const json = { accept: "application/json" };
  const noCookies = await svc.client.post("/shop/add_log_entry", {
    data: { message: "a" },
    headers: json,
  });
  assert.equal(noCookies.status, 200);
  const bearer = await svc.client.post("/shop/add_log_entry", {
    data: { message: "b" },
    cookies: { other: "1" },
    headers: { ...json, authorization: "Bearer abc" },
  });
  assert.equal(bearer.status, 200);
  const jsonBody = await svc.client.post("/shop/add_log_entry", {
    json: { message: "c" },
    cookies: { other: "1" },
    headers: json,
  });
  assert.equal(jsonBody.status, 200);
  svc.pm.register({
    skip_csrf({ scope }: { scope: { path: string } }) {
      return scope.path === "/shop/add_log_entry";
    },
  }, { name: "test-skip-csrf" });
  const skipped = await svc.client.post("/shop/add_log_entry", {
    data: { message: "d" },
    cookies: { other: "1" },
    headers: json,
  });
  assert.equal(skipped.status, 200);
  assert.equal(await logCount(svc), 7);
});

Deno.test("every built-in POST form embeds the token", async () => {
  await using svc = shopService();
  for (const path of ["/shop/add_log_entry", "/-/messages"]) {
    const html = (await svc.client.get(path)).text;
    for (const form of html.match(/<form[^>]*method="post"[\s\S]*?<\/form>/g) ?? []) {
      assert.match(form, /name="csrftoken" value="[^"]+"/, `${path}: ${form.slice(0, 80)}`);
    }
  }
});
