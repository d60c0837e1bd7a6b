/** `vitrine publish fly` against a fake `flyctl` on PATH; fly.toml is parsed as TOML. */
import assert from "node:assert/strict";
import { parse } from "smol-toml";
import { buildShopDb } from "../../fixtures/shop.ts";
import { dockerEnv, fakeTools, parseDockerfile, vitrine } from "./fake_tools.ts";

Deno.test("fly creates a missing app, stages secrets and deploys the context", async () => {
  const tools = fakeTools(["flyctl"]);
  const result = await vitrine([
    "publish",
    "fly",
    buildShopDb(),
    "--app",
    "shop-data",
    "--region",
    "ams",
    "--vm-memory",
    "512mb",
    "--org",
    "acme",
    "--secret",
    "fly-secret-77",
    "--license",
    "CC BY 4.0",
  ], tools.env({ FAKE_FLY_APPS: '[{"Name":"another-app"}]' }));
  assert.equal(result.code, 0, result.stderr);
  assert.ok(!result.stdout.includes("fly-secret-77"));

  const calls = tools.calls();
  assert.deepEqual(calls.map((call) => call.args), [
    ["apps", "list", "--json"],
    ["apps", "create", "shop-data", "--org", "acme"],
    ["secrets", "set", "--app", "shop-data", "--stage", "VITRINE_SECRET=fly-secret-77"],
    ["deploy", "--app", "shop-data", "--config", "fly.toml", "--remote-only"],
  ]);
  const deploy = calls[3];
  const config = parse(Deno.readTextFileSync(`${deploy.context}/fly.toml`)) as Record<
    string,
    // deno-lint-ignore no-explicit-any
    any
  >;
  assert.equal(config.app, "shop-data");
  assert.equal(config.primary_region, "ams");
  assert.equal(config.build.dockerfile, "Dockerfile");
  assert.equal(config.http_service.internal_port, 8001);
  assert.equal(config.http_service.force_https, true);
  assert.equal(config.http_service.checks[0].path, "/-/versions.json");
  assert.equal(config.vm[0].memory, "512mb");

  // The Dockerfile next to it runs what fly.toml points at, without the secret.
  const dockerfile = parseDockerfile(Deno.readTextFileSync(`${deploy.context}/Dockerfile`));
  assert.ok(dockerfile.some((i) => i.keyword === "EXPOSE" && i.text === "8001"));
  assert.equal(dockerEnv(dockerfile).VITRINE_SECRET, undefined);
  const metadata = JSON.parse(Deno.readTextFileSync(`${deploy.context}/metadata.json`));
  assert.equal(metadata.license, "CC BY 4.0");
});

Deno.test("fly deploys to an existing app without creating it", async () => {
  const tools = fakeTools(["flyctl"]);
  const result = await vitrine(
    ["publish", "fly", buildShopDb(), "--app", "shop-data"],
    tools.env({ FAKE_FLY_APPS: '[{"Name":"shop-data"}]' }),
  );
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(tools.calls().map((call) => call.args[0] + " " + call.args[1]), [
    "apps list",
    "deploy --app",
  ]);
  const config = parse(Deno.readTextFileSync(`${tools.calls()[1].context}/fly.toml`));
  assert.equal(config.primary_region, undefined);
  assert.deepEqual((config.vm as object[]).map((vm) => ({ ...vm })), [{ memory: "256mb" }]);
});
