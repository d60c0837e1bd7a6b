import assert from "node:assert/strict";
import { buildShopDb } from "../fixtures/shop.ts";
import { vitrine } from "./run_vitrine.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;

Deno.test("--get prints a page without serving and fails on 4xx", async () => {
  const db = buildShopDb();
  const ok = await vitrine([db, "--get", "/shop/categories.json?_shape=array"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout).map((c: { name: string }) => c.name), [
    "Kitchen",
    "Garden",
    "Tools",
  ]);
  const missing = await vitrine([db, "--get", "/nope.json"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stdout, /Database not found/);
  // A redirect says where it leads, instead of printing an empty line and succeeding.
  const moved = await vitrine([db, "--get", "/shop/categories/"]);
  assert.equal(moved.code, 1);
  assert.match(moved.stderr, /302: \/shop\/categories\/ redirects to \/shop\/categories\b/);
});

Deno.test("a file given twice is served once; given plain and with -i, as immutable", async () => {
  const db = buildShopDb();
  const databases = async (args: string[]) => {
    const result = await vitrine([...args, "--get", "/-/databases.json"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /given more than once; it is served once/);
    return JSON.parse(result.stdout).databases.map((d: { name: string; is_mutable: boolean }) => [
      d.name,
      d.is_mutable,
    ]);
  };
  assert.deepEqual(await databases([db, db]), [["shop", true]]);
  // Writes through a writable copy would leave the immutable copy's cached pages stale.
  assert.deepEqual(await databases([db, "-i", db]), [["shop", false]]);
  // The same file by another path.
  const samePath = db.replace(/\/([^/]+)$/, "/./$1");
  assert.deepEqual(await databases(["-i", db, samePath]), [["shop", false]]);
});

Deno.test("serve -p 0 picks a free port, prints it, and answers there", async () => {
  const db = buildShopDb();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", CLI, db, "-p", "0"],
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!/http:\/\/127\.0\.0\.1:\d+\//.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(text)![0];
    assert.doesNotMatch(url, /:0\//);
    const response = await fetch(`${url}-/versions.json`);
    assert.equal(response.status, 200);
    assert.match((await response.json()).vitrine.version, /\d+\.\d+/);
    reader.releaseLock();
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await child.stdout.cancel().catch(() => {});
  }
});

Deno.test("bad input on the command line is a clear error and a non-zero exit", async () => {
  const db = buildShopDb();
  const dir = Deno.makeTempDirSync();
  Deno.writeTextFileSync(`${dir}/bad.yaml`, "title: [unclosed\n");
  const badMetadata = await vitrine([db, "-m", `${dir}/bad.yaml`, "--get", "/"]);
  assert.equal(badMetadata.code, 1);
  assert.match(badMetadata.stderr, /bad\.yaml/);
  const badSetting = await vitrine([db, "-s", "no_such_setting", "1", "--get", "/"]);
  assert.equal(badSetting.code, 1);
  assert.match(badSetting.stderr, /no_such_setting/);
  assert.match(badSetting.stderr, /default_page_size/);
  const badValue = await vitrine([db, "-s", "default_page_size", "lots", "--get", "/"]);
  assert.equal(badValue.code, 1);
  assert.match(badValue.stderr, /default_page_size/);
  const missing = await vitrine([`${dir}/missing.db`, "--get", "/"]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /missing\.db/);
});

Deno.test("--version and --help describe the command", async () => {
  const version = await vitrine(["--version"]);
  assert.equal(version.code, 0);
  assert.match(version.stdout, /^\d+\.\d+\.\d+/);
  const help = await vitrine(["serve", "--help"]);
  assert.equal(help.code, 0);
  for (const option of ["--immutable", "--metadata", "--setting", "--crossdb", "--get", "--port"]) {
    assert.match(help.stdout, new RegExp(option));
  }
});

Deno.test("inspect writes counts and hashes that serve reuses for immutable files", async () => {
  const db = buildShopDb();
  const out = `${Deno.makeTempDirSync()}/inspect.json`;
  const inspect = await vitrine(["inspect", db, "--inspect-file", out]);
  assert.equal(inspect.code, 0, inspect.stderr);
  const data = JSON.parse(Deno.readTextFileSync(out));
  assert.equal(data.shop.tables.products.count, 9);
  assert.match(data.shop.hash, /^[0-9a-f]{64}$/);
  // A doctored count proves serve reads the file instead of counting again.
  data.shop.tables.products.count = 12345;
  Deno.writeTextFileSync(out, JSON.stringify(data));
  const served = await vitrine(["-i", db, "--inspect-file", out, "--get", "/shop.json"]);
  assert.equal(served.code, 0, served.stderr);
  const products = JSON.parse(served.stdout).tables.find((t: { name: string }) =>
    t.name === "products"
  );
  assert.equal(products.count, 12345);
});

Deno.test("a configuration directory is served with its metadata, settings and templates", async () => {
  const dir = Deno.makeTempDirSync();
  buildShopDb(dir);
  Deno.writeTextFileSync(`${dir}/metadata.yaml`, "title: From the config dir\n");
  Deno.writeTextFileSync(`${dir}/settings.json`, JSON.stringify({ default_page_size: 7 }));
  Deno.mkdirSync(`${dir}/templates/pages`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/templates/pages/hello.html`, "Hello from the config dir");
  const index = await vitrine([dir, "--get", "/.json"]);
  assert.equal(index.code, 0, index.stderr);
  assert.equal(JSON.parse(index.stdout).metadata.title, "From the config dir");
  const settings = await vitrine([dir, "--get", "/-/settings.json"]);
  assert.equal(JSON.parse(settings.stdout).default_page_size, 7);
  const page = await vitrine([dir, "--get", "/hello"]);
  assert.match(page.stdout, /Hello from the config dir/);
});

Deno.test("--nolock is accepted and the database still serves", async () => {
  const db = buildShopDb();
  const ok = await vitrine([db, "--nolock", "--get", "/shop/categories.json?_shape=arrayfirst"]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.deepEqual(JSON.parse(ok.stdout), [1, 2, 3]);
});

Deno.test("a file that is not SQLite is refused with advice, not served", async () => {
  const dir = Deno.makeTempDirSync();
  Deno.writeTextFileSync(`${dir}/trees.txt`, "id,name\n1,oak\n");
  const result = await vitrine([`${dir}/trees.txt`, "--get", "/"]);
  assert.equal(result.code, 1);
  assert.match(result.stderr, /trees\.txt is not a SQLite database/);
  assert.match(result.stderr, /vitrine insert data\.db mytable .*trees\.txt/);
  // Named .csv, the same file is served (tests/cli/data_files_test.ts).
  Deno.copyFileSync(`${dir}/trees.txt`, `${dir}/trees.csv`);
  assert.equal((await vitrine([`${dir}/trees.csv`, "--get", "/trees/trees.json"])).code, 0);
  // An empty file is a valid (empty) database.
  Deno.writeTextFileSync(`${dir}/empty.db`, "");
  assert.equal((await vitrine([`${dir}/empty.db`, "--get", "/empty.json"])).code, 0);
});

Deno.test("a port already in use names the port and how to choose another", async () => {
  const db = buildShopDb();
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const port = String((taken.addr as Deno.NetAddr).port);
    const result = await vitrine([db, "-p", port]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`port ${port} is already in use on 127\\.0\\.0\\.1`));
    assert.match(result.stderr, /with -p/);
    assert.doesNotMatch(result.stderr, /os error/);
  } finally {
    taken.close();
  }
});

/**
 * Starts `vitrine ARGS -p 0`, fetches `paths`, waits until its output matches `waitFor` (the
 * access log is written in batches), stops it; returns everything it printed and the size of each
 * body received.
 */
async function serveAndFetch(
  args: string[],
  paths: string[],
  waitFor?: RegExp,
): Promise<{ text: string; sizes: number[] }> {
  const sizes: number[] = [];
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", CLI, ...args, "-p", "0"],
    stdout: "piped",
    stderr: "null",
    env: { NO_COLOR: "1" },
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  try {
    while (!/http:\/\/127\.0\.0\.1:\d+\//.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
    const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(text)![0];
    for (const path of paths) {
      // Uncompressed, so the bytes received are the bytes sent (fetch would decode gzip).
      const headers = { "accept-encoding": "identity" };
      const response = await fetch(`${url}${path.slice(1)}`, { headers });
      sizes.push((await response.arrayBuffer()).byteLength);
    }
    while (waitFor && !waitFor.test(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += value;
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  return { text, sizes };
}

Deno.test("serve prints an access log line per request; --no-access-log silences it", async () => {
  const db = buildShopDb();
  const { text: logged, sizes } = await serveAndFetch([db], [
    "/shop/categories.csv?_stream=on",
    "/nope",
  ], /"GET \/nope" 404/);
  const line = logged.split("\n").find((l) => l.includes('"GET /shop/categories.csv'));
  assert.ok(line, logged);
  // Client, time, request, status, bytes sent, milliseconds.
  assert.match(
    line,
    /^127\.0\.0\.1 \[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\] "GET \/shop\/categories\.csv\?_stream=on" 200 (\d+) [\d.]+ms$/,
  );
  assert.equal(Number(/ 200 (\d+) /.exec(line)![1]), sizes[0]);
  assert.match(logged, /"GET \/nope" 404 \d+ /);
  const { text: quiet } = await serveAndFetch([db, "--no-access-log"], ["/shop/categories.json"]);
  assert.doesNotMatch(quiet, /"GET /);
  assert.match(quiet, /Vitrine is serving on/);
});

Deno.test("-m given several times merges the files in order, a later one winning", async () => {
  const db = buildShopDb();
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-meta-" });
  Deno.writeTextFileSync(
    `${dir}/a.json`,
    JSON.stringify({ title: "First", databases: { shop: { description: "From a" } } }),
  );
  Deno.writeTextFileSync(
    `${dir}/b.yaml`,
    "title: Second\ndatabases:\n  shop:\n    source: From b\n",
  );
  const result = await vitrine([
    db,
    "-m",
    `${dir}/a.json`,
    "--metadata",
    `${dir}/b.yaml`,
    "--get",
    "/-/metadata.json",
  ]);
  assert.equal(result.code, 0, result.stderr);
  const metadata = JSON.parse(result.stdout);
  assert.equal(metadata.title, "Second");
  assert.equal(metadata.databases.shop.description, "From a");
  assert.equal(metadata.databases.shop.source, "From b");
});
