/** `vitrine publish cloudrun` against a fake `gcloud` on PATH. */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { buildShopDb } from "../../fixtures/shop.ts";
import { dockerEnv, fakeTools, parseDockerfile, vitrine } from "./fake_tools.ts";

const SECRET = "cookie-secret-4f9a";

Deno.test("cloudrun builds with Cloud Build and deploys with every option", async () => {
  const tools = fakeTools(["gcloud"]);
  const db = buildShopDb();
  const result = await vitrine([
    "publish",
    "cloudrun",
    db,
    "--service",
    "shop-data",
    "--region",
    "europe-west1",
    "--memory",
    "1Gi",
    "--cpu",
    "2",
    "--max-instances",
    "4",
    "--secret",
    SECRET,
    "--plugin-secret",
    "vitrine-auth",
    "client_secret",
    "plugin, secret",
    "--title",
    "The shop",
    "--install",
    "npm:vitrine-example-plugin@1.2.3",
    "--version-note",
    "v7",
  ], tools.env({ FAKE_GCLOUD_PROJECT: "acme-data" }));
  assert.equal(result.code, 0, result.stderr);
  assert.ok(!result.stdout.includes(SECRET), "the secret is never printed");

  const calls = tools.calls();
  assert.deepEqual(calls.map((call) => call.args.slice(0, 2)), [
    ["config", "get-value"],
    ["builds", "submit"],
    ["run", "deploy"],
  ]);
  const [, submit, deploy] = calls;
  assert.deepEqual(submit.args.slice(0, 5), [
    "builds",
    "submit",
    "--tag",
    "gcr.io/acme-data/shop-data",
    "--quiet",
  ]);
  assert.deepEqual(deploy.args.slice(0, 12), [
    "run",
    "deploy",
    "shop-data",
    "--image",
    "gcr.io/acme-data/shop-data",
    "--platform",
    "managed",
    "--allow-unauthenticated",
    "--port",
    "8001",
    "--quiet",
    "--region",
  ]);
  const option = (name: string) => deploy.args[deploy.args.indexOf(name) + 1];
  assert.equal(option("--region"), "europe-west1");
  assert.equal(option("--memory"), "1Gi");
  assert.equal(option("--cpu"), "2");
  assert.equal(option("--max-instances"), "4");
  // A comma in a value switches gcloud's list delimiter.
  assert.equal(
    option("--set-env-vars"),
    `^@^VITRINE_SECRET=${SECRET}@VITRINE_PLUGIN_VITRINE_AUTH_CLIENT_SECRET=plugin, secret`,
  );

  // The build context gcloud received.
  const context = submit.context!;
  const dockerfile = parseDockerfile(Deno.readTextFileSync(`${context}/Dockerfile`));
  const env = dockerEnv(dockerfile);
  assert.equal(env.VITRINE_PLUGINS, "npm:vitrine-example-plugin@1.2.3");
  assert.equal(env.VITRINE_SECRET, undefined, "Cloud Run gets secrets at deploy time");
  const cmd = dockerfile.find((i) => i.keyword === "CMD")!.json!;
  assert.deepEqual(cmd.slice(0, 9), [
    "serve",
    "--host",
    "0.0.0.0",
    "--port",
    "8001",
    "-i",
    "data/shop.db",
    "--inspect-file",
    "inspect-data.json",
  ]);
  assert.deepEqual(cmd.slice(cmd.indexOf("--version-note"), cmd.indexOf("--version-note") + 2), [
    "--version-note",
    "v7",
  ]);
  const metadata = JSON.parse(Deno.readTextFileSync(`${context}/metadata.json`));
  assert.equal(metadata.title, "The shop");
  assert.deepEqual(metadata.plugins, {
    "vitrine-auth": { client_secret: { $env: "VITRINE_PLUGIN_VITRINE_AUTH_CLIENT_SECRET" } },
  });
  const inspect = JSON.parse(Deno.readTextFileSync(`${context}/inspect-data.json`));
  const bytes = Deno.readFileSync(db);
  assert.equal(inspect.shop.hash, createHash("sha256").update(bytes).digest("hex"));
  assert.equal(inspect.shop.tables.categories.count, 3);
  assert.deepEqual(Deno.readFileSync(`${context}/data/shop.db`), bytes);
  assert.ok(Deno.statSync(`${context}/vitrine.js`).size > 100_000);
});

Deno.test("cloudrun --project skips the gcloud lookup; --image names the image", async () => {
  const tools = fakeTools(["gcloud"]);
  const result = await vitrine([
    "publish",
    "cloudrun",
    buildShopDb(),
    "--service",
    "s",
    "--project",
    "p1",
    "--image",
    "europe-docker.pkg.dev/p1/repo/s:2",
  ], tools.env());
  assert.equal(result.code, 0, result.stderr);
  const calls = tools.calls();
  assert.deepEqual(calls.map((call) => call.args[0]), ["builds", "run"]);
  assert.ok(calls[0].args.includes("europe-docker.pkg.dev/p1/repo/s:2"));
  const project = calls[1].args.indexOf("--project");
  assert.deepEqual(calls[1].args.slice(project, project + 2), ["--project", "p1"]);
  assert.ok(!calls[1].args.includes("--set-env-vars"), "no secrets, no environment");
});

Deno.test("a failing gcloud step stops the publish with its exit status", async () => {
  const tools = fakeTools(["gcloud"]);
  const result = await vitrine(
    ["publish", "cloudrun", buildShopDb(), "--service", "s"],
    tools.env({ FAKE_TOOLS_FAIL: "gcloud builds submit" }),
  );
  assert.equal(result.code, 1);
  assert.match(result.stderr, /gcloud builds submit .* failed \(exit 3\)/);
  assert.deepEqual(tools.calls().map((call) => call.args[0]), ["config", "builds"]);
});
