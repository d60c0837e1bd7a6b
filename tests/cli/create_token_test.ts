import assert from "node:assert/strict";
import { run } from "./run_main.ts";
import { Signer } from "../../src/auth/signer.ts";
import { shopService } from "../fixtures/shop.ts";

function payload(token: string, secret = "s"): Record<string, unknown> {
  return new Signer(secret).unsign(token.slice("dstok_".length), "token") as Record<
    string,
    unknown
  >;
}

Deno.test("vitrine create-token ID prints a signed token for that actor", async () => {
  const { code, out } = await run(["create-token", "alice", "--secret", "s"]);
  assert.equal(code, 0);
  assert.match(out, /^dstok_\S+$/);
  const body = payload(out);
  assert.equal(body.a, "alice");
  assert.ok(Number.isInteger(body.t));
  assert.equal("d" in body, false);
  assert.equal("_r" in body, false);
});

Deno.test("create-token writes expiry and restrictions, storing abbreviations", async () => {
  const { code, out } = await run([
    "create-token",
    "alice",
    "--secret",
    "s",
    "-e",
    "3600",
    "-a",
    "view-instance",
    "-a",
    "vt",
    "-d",
    "shop",
    "execute-sql",
    "-r",
    "shop",
    "products",
    "insert-row",
  ]);
  assert.equal(code, 0);
  const body = payload(out);
  assert.equal(body.d, 3600);
  assert.deepEqual(body._r, {
    a: ["vi", "vt"],
    d: { shop: ["es"] },
    r: { shop: { products: ["ir"] } },
  });
});

Deno.test("create-token --debug also prints the decoded token", async () => {
  const { code, out } = await run(["create-token", "bot", "--secret", "s", "--debug"]);
  assert.equal(code, 0);
  const [token, ...rest] = out.split("\n");
  assert.match(token, /^dstok_/);
  assert.deepEqual(JSON.parse(rest.join("\n")), payload(token));
});

Deno.test("a token from the CLI signs requests in on a server with the same secret", async () => {
  const { out } = await run(["create-token", "alice", "--secret", "shared", "-e", "600"]);
  await using svc = shopService({ secret: "shared" });
  const response = await svc.client.get("/-/actor.json", {
    headers: { authorization: `Bearer ${out}` },
  });
  assert.equal(response.status, 200);
  const actor = (response.json() as { actor: Record<string, unknown> }).actor;
  assert.equal(actor.id, "alice");
  assert.equal(actor.token, "dstok");
  assert.equal(typeof actor.token_expires, "number");
});

Deno.test("create-token refuses unknown actions and bad expiry values", async () => {
  const unknown = await run(["create-token", "alice", "--secret", "s", "-a", "fly"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.err, /unknown permission "fly"/);
  assert.equal(unknown.out, "");
  const badExpiry = await run(["create-token", "alice", "--secret", "s", "-e", "soon"]);
  assert.equal(badExpiry.code, 1);
  assert.match(badExpiry.err, /--expires-after must be a positive number of seconds/);
});

Deno.test("create-token needs a secret from --secret or VITRINE_SECRET", async () => {
  const saved = Deno.env.get("VITRINE_SECRET");
  Deno.env.delete("VITRINE_SECRET");
  try {
    const missing = await run(["create-token", "alice"]);
    assert.equal(missing.code, 1);
    assert.match(missing.err, /--secret or set VITRINE_SECRET/);
    Deno.env.set("VITRINE_SECRET", "from-env");
    const fromEnv = await run(["create-token", "alice"]);
    assert.equal(fromEnv.code, 0);
    assert.equal(payload(fromEnv.out, "from-env").a, "alice");
  } finally {
    if (saved === undefined) Deno.env.delete("VITRINE_SECRET");
    else Deno.env.set("VITRINE_SECRET", saved);
  }
});
