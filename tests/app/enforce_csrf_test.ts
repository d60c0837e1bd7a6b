import assert from "node:assert/strict";
import { newCsrfToken } from "../../src/auth/csrf.ts";
import { enforceCsrf } from "../../src/app/enforce_csrf.ts";
import { Signer } from "../../src/auth/signer.ts";
import { Forbidden } from "../../src/http/errors.ts";
import { Request } from "../../src/http/request.ts";

const signer = new Signer("secret");

/** The slice of Service that enforceCsrf uses. */
function fakeService(
  options: { hookActor?: unknown; skipCsrf?: boolean; settings?: Record<string, unknown> } = {},
) {
  const settings: Record<string, unknown> = {
    allow_signed_tokens: true,
    max_signed_tokens_ttl: 0,
    ...options.settings,
  };
  return {
    signer,
    setting: (key: string) => settings[key],
    hooks: {
      call: (name: string) =>
        Promise.resolve(name === "skip_csrf" && options.skipCsrf ? [true] : []),
    },
  } as never;
}

function request(path: string, init: RequestInit = {}): Request {
  return new Request(new globalThis.Request(new URL(path, "http://localhost"), init));
}

Deno.test("enforceCsrf() accepts a form POST whose csrftoken matches the cookie", async () => {
  const token = newCsrfToken(signer);
  const post = (body: string) =>
    request("/db/q", {
      method: "POST",
      headers: {
        cookie: `ds_csrftoken=${token}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body,
    });
  await enforceCsrf(fakeService(), post(`csrftoken=${encodeURIComponent(token)}&name=x`));
  await assert.rejects(
    () => enforceCsrf(fakeService(), post("name=x")),
    (error) =>
      error instanceof Forbidden &&
      error.message === "form-urlencoded POST field did not match cookie",
  );
  await enforceCsrf(fakeService({ skipCsrf: true }), post("name=x"));
});

Deno.test("enforceCsrf() leaves the body readable for the view", async () => {
  const token = newCsrfToken(signer);
  const req = request("/db/q", {
    method: "POST",
    headers: {
      cookie: `ds_csrftoken=${token}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: `csrftoken=${encodeURIComponent(token)}&name=x`,
  });
  await enforceCsrf(fakeService(), req);
  assert.equal((await req.post_vars()).name, "x");
});
