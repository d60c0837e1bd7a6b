/**
 * `vitrine package`: the build context it writes, the image build through a fake `docker` (or
 * `podman`), the error without either — and, since no Docker engine runs here, the image's own
 * recipe run directly: the Dockerfile's plugin-caching RUN step, then its ENTRYPOINT + CMD with
 * its ENV, in the context folder standing in for `/app`.
 */
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { buildShopDb } from "../fixtures/shop.ts";
import { dockerEnv, fakeTools, parseDockerfile, vitrine } from "../plugins/publish/fake_tools.ts";
import { startDeno } from "./server_process.ts";
import { V8_FLAGS_OPTION } from "../../src/util/v8_flags.ts";

/** A project folder: a database, plugins, an installable plugin, templates, static files. */
function project(): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-package-project-" });
  buildShopDb(dir);
  Deno.mkdirSync(`${dir}/plugins`);
  Deno.writeTextFileSync(
    `${dir}/plugins/shout.js`,
    `export function prepare_connection({ conn }) {
       conn.create_function("shout", 1, (text) => String(text).toUpperCase() + "!");
     }\n`,
  );
  Deno.writeTextFileSync(
    `${dir}/banner.js`,
    `export function extra_body_script() { return "window.installedBanner = true;"; }\n`,
  );
  Deno.mkdirSync(`${dir}/templates/pages`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/templates/pages/about.html`, "<p>About this image</p>");
  Deno.mkdirSync(`${dir}/assets`);
  Deno.writeTextFileSync(`${dir}/assets/logo.txt`, "logo");
  Deno.writeTextFileSync(`${dir}/metadata.yaml`, "title: Packaged shop\n");
  return dir;
}

const PACKAGE_OPTIONS = [
  "-m",
  "metadata.yaml",
  "--plugins-dir",
  "plugins",
  "--install",
  "./banner.js",
  "--template-dir",
  "templates",
  "--static",
  "assets:assets",
  "--secret",
  "baked-secret",
  "-s",
  "default_page_size",
  "2",
];

Deno.test("package --dir writes a build context whose recipe serves the data", async () => {
  const dir = project();
  const context = `${dir}/context`;
  const result = await vitrine(
    ["package", "shop.db", "--dir", context, ...PACKAGE_OPTIONS],
    { NO_COLOR: "1" },
    dir,
  );
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Build it with: docker build --tag vitrine /);

  const dockerfile = parseDockerfile(Deno.readTextFileSync(`${context}/Dockerfile`));
  const keywords = dockerfile.map((i) => i.keyword);
  assert.equal(keywords[0], "FROM");
  assert.ok(keywords.indexOf("USER") < keywords.indexOf("ENTRYPOINT"), "runs as non-root");
  assert.equal(dockerfile.find((i) => i.keyword === "USER")!.text, "deno");
  const env = dockerEnv(dockerfile);
  assert.equal(env.VITRINE_SECRET, "baked-secret", "package bakes the secret, as documented");
  assert.equal(env.VITRINE_PLUGINS, "./installed/banner.js");
  const healthcheck = dockerfile.find((i) => i.keyword === "HEALTHCHECK")!;
  assert.match(healthcheck.json!.join(" "), /\/-\/health"/);
  const entrypoint = dockerfile.find((i) => i.keyword === "ENTRYPOINT")!.json!;
  assert.deepEqual(entrypoint, [
    "/tini",
    "--",
    "deno",
    "run",
    "-A",
    "--cached-only",
    V8_FLAGS_OPTION,
    "/app/vitrine.js",
  ]);
  const cmd = dockerfile.find((i) => i.keyword === "CMD")!.json!;
  assert.deepEqual(cmd, [
    "serve",
    "--host",
    "0.0.0.0",
    "--port",
    "8001",
    "-i",
    "data/shop.db",
    "--inspect-file",
    "inspect-data.json",
    "-m",
    "metadata.json",
    "--template-dir",
    "templates",
    "--plugins-dir",
    "plugins",
    "--static",
    "assets:static/assets",
    "--setting",
    "default_page_size",
    "2",
  ]);

  // The RUN step that imports every plugin at build time.
  const caching = dockerfile.find((i) =>
    i.keyword === "RUN" && i.text.includes("vitrine.js plugins")
  );
  assert.ok(caching, "a build step caches the plugins");
  const denoDir = dirname(Deno.execPath());
  const run = await new Deno.Command("sh", {
    args: ["-c", caching.text.replaceAll("/app/", `${context}/`)],
    cwd: context,
    env: { ...env, PATH: `${denoDir}:/usr/bin:/bin` },
    stderr: "piped",
  }).output();
  assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));

  // ENTRYPOINT + CMD, on a free local port instead of 0.0.0.0:8001.
  const args = [...entrypoint.slice(3), ...cmd].map((arg) =>
    arg === "0.0.0.0" ? "127.0.0.1" : arg === "8001" ? "0" : arg.replace(/^\/app\//, `${context}/`)
  );
  const server = await startDeno(args, { cwd: context, env });
  try {
    const get = async (path: string) => {
      const response = await fetch(server.url + path);
      assert.equal(response.status, 200, `${path}: ${server.stderr()}`);
      return response;
    };
    await get("-/versions.json");
    const page = await (await get("shop/categories")).text();
    assert.match(page, /Packaged shop/);
    assert.match(page, /window\.installedBanner = true;/);
    const rows = await (await get("shop/categories.json?_shape=array")).json();
    assert.equal(rows.length, 2, "the --setting reached the image");
    const sql = encodeURIComponent("select shout('packaged') as loud");
    assert.deepEqual(await (await get(`shop/-/query.json?_shape=array&sql=${sql}`)).json(), [
      { loud: "PACKAGED!" },
    ]);
    assert.match(await (await get("about")).text(), /About this image/);
    assert.equal(await (await get("assets/logo.txt")).text(), "logo");
    const { databases } = await (await get("-/databases.json")).json();
    const inspect = JSON.parse(Deno.readTextFileSync(`${context}/inspect-data.json`));
    assert.equal(databases[0].is_mutable, false);
    assert.equal(databases[0].hash, inspect.shop.hash);
  } finally {
    await server.stop();
  }
});

Deno.test("package without --dir builds with docker, or podman, and cleans up", async () => {
  for (const engine of ["docker", "podman"]) {
    const tools = fakeTools([engine]);
    const result = await vitrine(["package", buildShopDb(), "-t", "shop:1"], tools.env());
    assert.equal(result.code, 0, result.stderr);
    const [build] = tools.calls();
    assert.equal(build.tool, engine);
    assert.deepEqual(build.args.slice(0, 3), ["build", "--tag", "shop:1"]);
    assert.ok(Deno.statSync(`${build.context}/Dockerfile`).isFile);
    assert.throws(() => Deno.statSync(build.args[3]), Deno.errors.NotFound, "temp folder removed");
  }
});

Deno.test("package with no container engine says so and suggests --dir", async () => {
  const tools = fakeTools([]);
  const result = await vitrine(["package", buildShopDb()], tools.env());
  assert.equal(result.code, 1);
  assert.match(result.stderr, /vitrine package needs a container engine \("docker" or "podman"\)/);
  assert.match(result.stderr, /--dir/);
});

Deno.test("package --branch builds the image's Vitrine from a git ref of the checkout", async () => {
  const db = buildShopDb();
  const context = `${Deno.makeTempDirSync()}/context`;
  const built = await vitrine(["package", db, "--dir", context, "--branch", "HEAD"], {
    NO_COLOR: "1",
  });
  assert.equal(built.code, 0, built.stderr);
  assert.match(built.stdout, /vitrine\.js: Vitrine bundled from branch HEAD/);
  const version = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", `${context}/vitrine.js`, "--version"],
    stdout: "piped",
  }).output();
  assert.match(new TextDecoder().decode(version.stdout), /^\d+\.\d+\.\d+/);

  const missing = await vitrine(
    ["package", db, "--dir", `${context}-2`, "--branch", "no-such-branch-xyz"],
    { NO_COLOR: "1" },
  );
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /git archive failed \(exit \d+\): .*no-such-branch-xyz/);
});
