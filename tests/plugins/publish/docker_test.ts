/** `vitrine publish docker` against a fake `docker` (or `podman`) on PATH. */
import assert from "node:assert/strict";
import { buildShopDb } from "../../fixtures/shop.ts";
import { fakeTools, parseDockerfile, vitrine } from "./fake_tools.ts";

Deno.test("docker builds the context and pushes the tag with --push", async () => {
  const tools = fakeTools(["docker"]);
  const result = await vitrine(
    [
      "publish",
      "docker",
      buildShopDb(),
      "--tag",
      "registry.test/shop:1",
      "--push",
      "--secret",
      "x",
    ],
    tools.env(),
  );
  assert.equal(result.code, 0, result.stderr);
  const calls = tools.calls();
  assert.deepEqual(calls.map((call) => call.args.slice(0, 3)), [
    ["build", "--tag", "registry.test/shop:1"],
    ["push", "registry.test/shop:1"],
  ]);
  const dockerfile = parseDockerfile(Deno.readTextFileSync(`${calls[0].context}/Dockerfile`));
  assert.match(dockerfile[0].text, /^denoland\/deno:debian-\d+\.\d+\.\d+$/);
  assert.ok(!Deno.readTextFileSync(`${calls[0].context}/Dockerfile`).includes("VITRINE_SECRET"));
  assert.match(
    result.stdout,
    /Run it with: docker run --rm -p 8001:8001 -e VITRINE_SECRET=\.\.\. registry\.test\/shop:1/,
  );
});

Deno.test("docker falls back to podman, and builds without pushing by default", async () => {
  const tools = fakeTools(["podman"]);
  const result = await vitrine(["publish", "docker", buildShopDb(), "-t", "shop"], tools.env());
  assert.equal(result.code, 0, result.stderr);
  const calls = tools.calls();
  assert.deepEqual(calls.map((call) => [call.tool, ...call.args.slice(0, 3)]), [
    ["podman", "build", "--tag", "shop"],
  ]);
});
