import assert from "node:assert/strict";
import { buildShopDb } from "../fixtures/shop.ts";
import { vitrine } from "./run_vitrine.ts";
import { startDeno } from "./server_process.ts";
import { looksLikeSqlite } from "../../src/cli/sqlite_file.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;

/** Reads a whole HTTP/1.1 answer to `GET path` sent over the Unix socket at `socket`. */
async function getOverUnixSocket(socket: string, path: string): Promise<string> {
  const conn = await Deno.connect({ transport: "unix", path: socket });
  await conn.write(
    new TextEncoder().encode(
      `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
    ),
  );
  return await new Response(conn.readable).text();
}

Deno.test("--uds serves on a Unix socket, and replaces a stale socket file", async () => {
  const db = buildShopDb();
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-uds-" });
  const socket = `${dir}/vitrine.sock`;
  try {
    for (let run = 0; run < 2; run++) {
      // The second run finds the first one's socket file and must not fail on it.
      const server = await startDeno(["run", "-A", "--no-lock", CLI, db, "--uds", socket], {
        ready: /serving on the Unix socket .*vitrine\.sock/,
      });
      try {
        const answer = await getOverUnixSocket(socket, "/shop/categories.json?_shape=array");
        assert.match(answer, /^HTTP\/1\.1 200/);
        assert.match(answer, /"name":\s*"Kitchen"/);
      } finally {
        await server.stop();
      }
    }
    // A path that is a file, not a socket, is refused rather than deleted.
    Deno.writeTextFileSync(`${dir}/notes.txt`, "keep me");
    const refused = await vitrine([db, "--uds", `${dir}/notes.txt`]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /notes\.txt exists and is not a socket/);
    assert.equal(Deno.readTextFileSync(`${dir}/notes.txt`), "keep me");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

/** Makes a CA and a certificate for 127.0.0.1 signed by it; null without `openssl`. */
async function makeCertificate(dir: string): Promise<boolean> {
  const openssl = async (args: string[]) => {
    const out = await new Deno.Command("openssl", { args, cwd: dir, stderr: "piped" }).output();
    if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  };
  try {
    await openssl(["version"]);
  } catch {
    return false;
  }
  Deno.writeTextFileSync(
    `${dir}/leaf.ext`,
    "basicConstraints=CA:FALSE\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n",
  );
  const quiet = ["-subj"];
  await openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out"]
    .concat(["ca.pem", "-days", "1", ...quiet, "/CN=Vitrine test CA"]));
  await openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "key.pem", "-out", "leaf.csr"]
    .concat([...quiet, "/CN=127.0.0.1"]));
  await openssl(["x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key"]
    .concat(["-CAcreateserial", "-out", "cert.pem", "-days", "1", "-extfile", "leaf.ext"]));
  return true;
}

Deno.test("--ssl-keyfile and --ssl-certfile serve HTTPS", async (t) => {
  const db = buildShopDb();
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-tls-" });
  try {
    if (!await makeCertificate(dir)) {
      t.step({ name: "openssl is not installed", ignore: true, fn: () => {} });
      return;
    }
    const server = await startDeno([
      "run",
      "-A",
      "--no-lock",
      CLI,
      db,
      "-p",
      "0",
      "--ssl-keyfile",
      `${dir}/key.pem`,
      "--ssl-certfile",
      `${dir}/cert.pem`,
    ], { ready: /https:\/\/127\.0\.0\.1:\d+\// });
    const client = Deno.createHttpClient({ caCerts: [Deno.readTextFileSync(`${dir}/ca.pem`)] });
    try {
      const response = await fetch(`${server.url}shop/categories.json?_shape=array`, { client });
      assert.equal(response.status, 200);
      assert.deepEqual((await response.json()).map((c: { name: string }) => c.name), [
        "Kitchen",
        "Garden",
        "Tools",
      ]);
      // Plain HTTP on the same port is not served.
      await assert.rejects(fetch(server.url.replace("https:", "http:")));
    } finally {
      client.close();
      await server.stop();
    }
    const half = await vitrine([db, "--ssl-keyfile", `${dir}/key.pem`]);
    assert.equal(half.code, 1);
    assert.match(half.stderr, /HTTPS needs both --ssl-keyfile and --ssl-certfile/);
    const missing = await vitrine([db, "--ssl-keyfile", `${dir}/no.pem`, "--ssl-certfile", "x"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /cannot read --ssl-keyfile .*no\.pem: file not found/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("--create makes missing database files, which then serve", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-create-" });
  try {
    const without = await vitrine([`${dir}/new.db`, "--get", "/-/databases.json"]);
    assert.equal(without.code, 1);
    assert.match(without.stderr, /database file not found: .*new\.db/);
    const made = await vitrine([`${dir}/new.db`, "--create", "--get", "/-/databases.json"]);
    assert.equal(made.code, 0, made.stderr);
    assert.deepEqual(JSON.parse(made.stdout).databases.map((d: { name: string }) => d.name), [
      "new",
    ]);
    assert.ok(looksLikeSqlite(`${dir}/new.db`));
    assert.ok(Deno.statSync(`${dir}/new.db`).size > 0);
    const noFolder = await vitrine([`${dir}/nope/new.db`, "--create", "--get", "/"]);
    assert.equal(noFolder.code, 1);
    assert.match(noFolder.stderr, /--create could not create .*nope\/new\.db/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("--get with --headers, --token and --actor", async () => {
  const db = buildShopDb();
  const withHeaders = await vitrine([db, "--get", "/-/versions.json", "--headers"]);
  assert.equal(withHeaders.code, 0, withHeaders.stderr);
  const [head, body] = withHeaders.stdout.split("\n\n");
  assert.match(head, /^HTTP\/1\.1 200\n/);
  assert.match(head, /^content-type: application\/json/m);
  assert.match(JSON.parse(body).vitrine.version, /\d+\.\d+/);

  const asActor = await vitrine([db, "--get", "/-/actor.json", "--actor", '{"id": "ada"}']);
  assert.equal(asActor.code, 0, asActor.stderr);
  assert.deepEqual(JSON.parse(asActor.stdout).actor, { id: "ada" });
  const badActor = await vitrine([db, "--get", "/-/actor.json", "--actor", "ada"]);
  assert.equal(badActor.code, 1);
  assert.match(badActor.stderr, /--actor must be a JSON object/);

  const made = await vitrine(["create-token", "bob", "--secret", "s3"]);
  assert.equal(made.code, 0, made.stderr);
  const token = made.stdout.trim();
  const withToken = await vitrine([
    db,
    "--secret",
    "s3",
    "--get",
    "/-/actor.json",
    "--token",
    token,
  ]);
  assert.equal(withToken.code, 0, withToken.stderr);
  assert.equal(JSON.parse(withToken.stdout).actor.id, "bob");

  // Without --get they would be ignored by a running server: refused instead.
  const alone = await vitrine([db, "--token", token]);
  assert.equal(alone.code, 1);
  assert.match(alone.stderr, /--token can only be used with --get/);
});

Deno.test("serve --help lists every option with a one-line description", async () => {
  const help = await vitrine(["serve", "--help"]);
  assert.equal(help.code, 0);
  for (
    const option of [
      "--uds <path>",
      "--ssl-keyfile <file>",
      "--ssl-certfile <file>",
      "--create",
      "--get <path>",
      "--headers",
      "--token <token>",
      "--actor <json>",
      "--default-deny",
      "--reload",
    ]
  ) {
    const line = help.stdout.split("\n").find((l) => l.trimStart().startsWith(option + " "));
    assert.ok(line, `${option} is missing from:\n${help.stdout}`);
    assert.match(line, new RegExp(`${option}\\s+\\S`), `${option} has no description`);
  }
});

/** Fetches `url` until `test` accepts its text (the server restarting meanwhile); the text. */
async function waitFor(url: string, test: (text: string) => boolean): Promise<string> {
  let last = "";
  for (const started = Date.now(); Date.now() - started < 30_000;) {
    try {
      const response = await fetch(url);
      last = await response.text();
      if (test(last)) return last;
    } catch (error) {
      last = String(error); // restarting: nothing listens for a moment
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`Timed out waiting on ${url}; last answer:\n${last.slice(0, 500)}`);
}

Deno.test("--reload restarts on changed metadata, plugins and templates", async () => {
  const db = buildShopDb();
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-reload-" });
  const mod = new URL("../../mod.ts", import.meta.url).href;
  const plugin = (answer: string) =>
    `import { Response } from "${mod}";\n` +
    `export const register_routes = () => [[/^\\/-\\/hi$/, () => Response.text("${answer}")]];\n`;
  Deno.mkdirSync(`${dir}/templates`);
  Deno.mkdirSync(`${dir}/plugins`);
  Deno.writeTextFileSync(`${dir}/metadata.json`, JSON.stringify({ title: "First title" }));
  Deno.writeTextFileSync(`${dir}/plugins/hi.ts`, plugin("hello one"));
  const server = await startDeno([
    "run",
    "-A",
    "--no-lock",
    CLI,
    db,
    "-p",
    "0",
    "--reload",
    "-m",
    `${dir}/metadata.json`,
    "--template-dir",
    `${dir}/templates`,
    "--plugins-dir",
    `${dir}/plugins`,
  ]);
  try {
    await waitFor(`${server.url}-/metadata.json`, (text) => text.includes("First title"));
    assert.equal(await waitFor(`${server.url}-/hi`, (text) => text === "hello one"), "hello one");
    // Metadata is read once at start: only a restart shows the new title.
    Deno.writeTextFileSync(`${dir}/metadata.json`, JSON.stringify({ title: "Second title" }));
    await waitFor(`${server.url}-/metadata.json`, (text) => text.includes("Second title"));
    // A plugin is an ES module, imported once per process.
    Deno.writeTextFileSync(`${dir}/plugins/hi.ts`, plugin("hello two"));
    assert.equal(await waitFor(`${server.url}-/hi`, (text) => text === "hello two"), "hello two");
    // A new template overriding the default shows too.
    Deno.writeTextFileSync(
      `${dir}/templates/index.html`,
      '{% extends "default:index.html" %}{% block content %}<p>My own index</p>{% endblock %}',
    );
    await waitFor(server.url, (text) => text.includes("My own index"));
  } finally {
    await server.stop();
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("serve warns at start about configured databases and tables that nothing served has", async () => {
  const db = buildShopDb();
  const config = `${Deno.makeTempDirSync({ prefix: "vitrine-names-" })}/config.yaml`;
  // A misspelt table's allow would hide nothing: the table stays public, and the operator is told.
  Deno.writeTextFileSync(
    config,
    "databases:\n  shpo:\n    title: x\n  shop:\n    tables:\n      prodcts:\n        allow: false\n" +
      "      products:\n        sort: name\n      cheap_products:\n        hidden: true\n",
  );
  const server = await startDeno(["run", "-A", "--no-lock", CLI, db, "-c", config, "-p", "0"]);
  try {
    // stderr is read beside stdout's "serving on" line: give it a moment to arrive.
    for (let i = 0; i < 50 && !server.stderr().includes("prodcts"); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const lines = server.stderr().split("\n").filter((line) => line.startsWith("Warning:"));
    assert.deepEqual(lines, [
      "Warning: the configuration's databases.shpo matches no served database (served: shop); " +
      "its settings apply to nothing",
      "Warning: the configuration's databases.shop.tables.prodcts matches no table or view of " +
      "shop; its settings apply to nothing",
    ]);
  } finally {
    await server.stop();
  }
});
