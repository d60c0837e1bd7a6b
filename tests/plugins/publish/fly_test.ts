/** `vitrine publish fly` against a fake `flyctl` on PATH; fly.toml is parsed as TOML. */
import assert from "node:assert/strict";
import { parse } from "smol-toml";
import { parse as parseYaml } from "yaml";
import { buildShopDb } from "../../fixtures/shop.ts";
import { dockerEnv, fakeTools, parseDockerfile, vitrine } from "./fake_tools.ts";
import { V8_FLAGS_OPTION } from "../../../src/util/v8_flags.ts";

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
  assert.equal(config.http_service.checks[0].path, "/-/health");
  assert.equal(config.kill_signal, "SIGTERM");
  assert.equal(config.mounts, undefined);
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

Deno.test("fly --litefs: mutable databases on a LiteFS volume, its proxy in front, Consul", async () => {
  const tools = fakeTools(["flyctl"]);
  const db = buildShopDb();
  const result = await vitrine(
    ["publish", "fly", db, "--app", "shop-live", "--region", "ams", "--litefs"],
    tools.env({ FAKE_FLY_APPS: "[]" }),
  );
  assert.equal(result.code, 0, result.stderr);
  const calls = tools.calls();
  assert.deepEqual(calls.map((call) => call.args.slice(0, 2).join(" ")), [
    "apps list",
    "apps create",
    "consul attach",
    "deploy --app",
  ]);
  const context = calls[3].context!;
  // deno-lint-ignore no-explicit-any
  const config = parse(Deno.readTextFileSync(`${context}/fly.toml`)) as Record<string, any>;
  assert.equal(config.http_service.internal_port, 8080);
  assert.equal(config.http_service.min_machines_running, 1);
  assert.deepEqual({ ...config.mounts }, { source: "litefs", destination: "/var/lib/litefs" });

  const litefs = parseYaml(
    Deno.readTextFileSync(`${context}/litefs.yml`)
      // LiteFS expands ${…} before parsing; so does this test, with Fly's values.
      .replace("${FLY_REGION == PRIMARY_REGION}", "true"),
    // deno-lint-ignore no-explicit-any
  ) as Record<string, any>;
  assert.equal(litefs.fuse.dir, "/litefs");
  assert.equal(litefs.data.dir, "/var/lib/litefs");
  assert.deepEqual(
    [litefs.proxy.addr, litefs.proxy.target, litefs.proxy.db],
    [":8080", "localhost:8081", "shop.db"],
  );
  assert.equal(litefs.exec[0].cmd, "/app/litefs-start.sh");
  assert.equal(litefs.lease.type, "consul");
  assert.equal(litefs.lease.candidate, true);

  const start = Deno.readTextFileSync(`${context}/litefs-start.sh`);
  assert.match(start, /^#!\/bin\/sh\n/);
  assert.match(
    start,
    /\[ -e \/litefs\/shop\.db \] \|\| litefs import -name shop\.db \/app\/data\/shop\.db/,
  );
  // Vitrine serves the LiteFS copy, mutable (no -i), behind the proxy, with its V8 flags.
  assert.ok(
    start.includes(
      `exec deno run -A --cached-only ${V8_FLAGS_OPTION} /app/vitrine.js serve --host 0.0.0.0 ` +
        "--port 8081 /litefs/shop.db",
    ),
    start,
  );
  assert.doesNotMatch(start, / -i /);
  assert.equal(Deno.statSync(`${context}/litefs-start.sh`).mode! & 0o111, 0o111);
  assert.ok(Deno.statSync(`${context}/data/shop.db`).isFile);

  const dockerfile = parseDockerfile(Deno.readTextFileSync(`${context}/Dockerfile`));
  const from = dockerfile.filter((i) => i.keyword === "FROM").map((i) => i.text);
  assert.match(from[0], /^flyio\/litefs:0\.5 AS litefs$/);
  assert.ok(dockerfile.some((i) => i.keyword === "COPY" && i.text.startsWith("--from=litefs")));
  assert.ok(dockerfile.some((i) => i.keyword === "RUN" && i.text.includes("fuse3")));
  assert.ok(!dockerfile.some((i) => i.keyword === "USER"), "LiteFS needs root for FUSE");
  assert.deepEqual(dockerfile.find((i) => i.keyword === "ENTRYPOINT")!.json, ["litefs", "mount"]);
  assert.ok(
    dockerfile.some((i) => i.keyword === "COPY" && i.text === "litefs.yml /etc/litefs.yml"),
  );
});
