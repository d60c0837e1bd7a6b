/**
 * Each provider names the tool it lacks (and how to get it) before writing anything, and
 * `--dry-run` needs no tool at all: it writes the files and prints the commands it would run.
 */
import assert from "node:assert/strict";
import { buildShopDb } from "../../fixtures/shop.ts";
import { fakeTools, vitrine } from "./fake_tools.ts";

const PROVIDERS: [string, string[], RegExp][] = [
  ["cloudrun", ["--service", "s"], /needs the Google Cloud CLI \("gcloud"\)/],
  ["fly", ["--app", "a"], /needs the Fly\.io CLI \("flyctl" or "fly"\)/],
  ["docker", ["--tag", "t"], /needs a container engine \("docker" or "podman"\)/],
  ["kubernetes", ["--image", "i"], /needs the Kubernetes CLI \("kubectl"\)/],
];

for (const [provider, options, message] of PROVIDERS) {
  Deno.test(`publish ${provider} without its CLI fails with a readable message`, async () => {
    const tools = fakeTools([]);
    const dir = `${Deno.makeTempDirSync()}/context`;
    const result = await vitrine(
      ["publish", provider, buildShopDb(), ...options, "--dir", dir],
      tools.env(),
    );
    assert.equal(result.code, 1);
    assert.match(result.stderr, message);
    assert.match(result.stderr, /was not found on PATH\. Install it \(https:\/\//);
    assert.match(result.stderr, /--dry-run/);
    assert.doesNotMatch(result.stderr, /^\s+at /m, "no stack trace");
    assert.throws(() => Deno.statSync(dir), Deno.errors.NotFound, "nothing written");
  });
}

Deno.test("kubernetes with docker missing names docker, even when kubectl is there", async () => {
  const tools = fakeTools(["kubectl"]);
  const result = await vitrine(
    ["publish", "kubernetes", buildShopDb(), "--image", "i"],
    tools.env(),
  );
  assert.equal(result.code, 1);
  assert.match(result.stderr, /needs a container engine/);
  assert.deepEqual(tools.calls(), []);
});

Deno.test("--dry-run writes the files and prints every command, running none", async () => {
  const tools = fakeTools([]);
  const dir = `${Deno.makeTempDirSync()}/context`;
  const result = await vitrine([
    "publish",
    "cloudrun",
    buildShopDb(),
    "--service",
    "shop",
    "--secret",
    "dry-secret-9",
    "--dry-run",
    "--dir",
    dir,
  ], tools.env());
  assert.equal(result.code, 0, result.stderr);
  const lines = result.stdout.split("\n").filter((line) => line.startsWith("Would run: "));
  assert.deepEqual(lines.map((line) => line.split(" ").slice(2, 5).join(" ")), [
    "gcloud config get-value",
    "gcloud builds submit",
    "gcloud run deploy",
  ]);
  assert.match(lines[1], /--tag gcr\.io\/PROJECT\/shop /);
  assert.match(lines[2], /--set-env-vars 'VITRINE_SECRET=\*\*\*'/);
  assert.ok(!result.stdout.includes("dry-secret-9"));
  assert.match(result.stdout, /Dry run: nothing was run\. The files are in /);
  for (const file of ["Dockerfile", "vitrine.js", "data/shop.db", "inspect-data.json"]) {
    assert.ok(Deno.statSync(`${dir}/${file}`).isFile, file);
  }
  assert.deepEqual(tools.calls(), []);
});

Deno.test("bad publish options are clear errors before anything is written", async () => {
  const tools = fakeTools(["docker"]);
  const db = buildShopDb();
  const cases: [string[], RegExp][] = [
    [["missing.db"], /Database file not found: missing\.db/],
    [[db, "--static", "nocolon"], /--static needs MOUNT:DIRECTORY/],
    [[db, "--static", "x:/no/such/dir"], /--static directory not found/],
    [[db, "--plugins-dir", "/no/such/dir"], /--plugins-dir directory not found/],
    [[db, "-m", "/no/such.yaml"], /Metadata file not found/],
    [[db, "--plugin-secret", "only-two", "values"], /--plugin-secret needs three values/],
    [[db, "--extra-options", "--setting 'unclosed"], /Unclosed ' in/],
  ];
  for (const [args, message] of cases) {
    const result = await vitrine(["publish", "docker", "-t", "x", ...args], tools.env());
    assert.equal(result.code, 1, args.join(" "));
    assert.match(result.stderr, message);
  }
  assert.deepEqual(tools.calls(), []);
});
