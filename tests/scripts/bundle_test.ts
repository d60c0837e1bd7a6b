/**
 * `deno task bundle` → one file that serves a database from any directory: HTML (embedded
 * templates and static files), JSON, a query through a read worker, plugins from
 * `--plugins-dir` (a SQL function, so registered inside the bundle's workers) and `--plugin`,
 * `--template-dir` pages and `--static` mounts. Its workers start from the read worker's own
 * bundle, embedded in the file.
 */
import assert from "node:assert/strict";
import { asciiOnly, buildBundle } from "../../scripts/bundle.ts";
import { buildShopDb } from "../fixtures/shop.ts";
import { startServer } from "../cli/server_process.ts";

Deno.test("the bundle serves a database from a directory outside the repository", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-bundle-test-" });
  const bundle = await buildBundle({ output: `${dir}/vitrine.js` });
  buildShopDb(dir);
  Deno.mkdirSync(`${dir}/plugins`);
  Deno.writeTextFileSync(
    `${dir}/plugins/shout.js`,
    `export function prepare_connection({ conn }) {
       conn.create_function("shout", 1, (text) => String(text).toUpperCase() + "!");
       conn.create_function("worker_script", 0, () => String(globalThis.location));
     }\n`,
  );
  Deno.writeTextFileSync(
    `${dir}/banner.js`,
    `export function extra_body_script() { return "window.bannerPlugin = 'loaded';"; }\n`,
  );
  Deno.mkdirSync(`${dir}/templates/pages`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/templates/pages/hello.html`, "<p>Hello from a custom page</p>");
  Deno.mkdirSync(`${dir}/files`);
  Deno.writeTextFileSync(`${dir}/files/note.txt`, "a static note");

  const server = await startServer("vitrine.js", [
    "shop.db",
    "--plugins-dir",
    "plugins",
    "--plugin",
    "./banner.js",
    "--template-dir",
    "templates",
    "--static",
    "files:files",
  ], { cwd: dir });
  try {
    const html = await fetch(`${server.url}shop/products`);
    assert.equal(html.status, 200, server.stderr());
    const page = await html.text();
    assert.match(page, /<title>shop: products[:<]/);
    assert.match(page, /window\.bannerPlugin = 'loaded';/);

    const css = await fetch(`${server.url}-/static/app.css`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get("content-type") ?? "", /text\/css/);
    // Embedded files come back byte for byte (app.css holds characters beyond ASCII).
    assert.deepEqual(
      new Uint8Array(await css.arrayBuffer()),
      Deno.readFileSync(new URL("../../static/app.css", import.meta.url)),
    );

    // Every file of static/ is embedded: vendored JavaScript, binary images, the favicon.
    const image = [...Deno.readDirSync(new URL("../../static/vendor/images/", import.meta.url))]
      .find((entry) => entry.name.endsWith(".png"))!.name;
    const png = await fetch(`${server.url}-/static/vendor/images/${image}`);
    assert.equal(png.headers.get("content-type"), "image/png");
    assert.deepEqual(
      new Uint8Array(await png.arrayBuffer()),
      Deno.readFileSync(new URL(`../../static/vendor/images/${image}`, import.meta.url)),
    );
    const favicon = await fetch(`${server.url}favicon.ico`);
    assert.match(await favicon.text(), /<svg/);
    const missing = await fetch(`${server.url}-/static/..%2ftemplates%2fbase.html`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();

    const json = await fetch(`${server.url}shop/categories.json?_shape=array`);
    assert.deepEqual((await json.json()).map((row: { name: string }) => row.name), [
      "Kitchen",
      "Garden",
      "Tools",
    ]);

    const sql = "select shout(name) as loud from categories order by id";
    const query = await fetch(
      `${server.url}shop/-/query.json?_shape=array&sql=${encodeURIComponent(sql)}`,
    );
    assert.deepEqual(await query.json(), [
      { loud: "KITCHEN!" },
      { loud: "GARDEN!" },
      { loud: "TOOLS!" },
    ]);

    // The worker runs the read worker's own code, embedded in the bundle, not the whole bundle.
    const script = await fetch(
      `${server.url}shop/-/query.json?_shape=array&sql=${
        encodeURIComponent("select worker_script() as url")
      }`,
    );
    assert.match((await script.json())[0].url, /^blob:/);

    const custom = await fetch(`${server.url}hello`);
    assert.match(await custom.text(), /Hello from a custom page/);
    const note = await fetch(`${server.url}files/note.txt`);
    assert.equal(await note.text(), "a static note");

    const plugins = await (await fetch(`${server.url}-/plugins.json`)).json();
    assert.deepEqual(plugins.map((p: { name: string }) => p.name).sort(), ["banner", "shout"]);
  } finally {
    await server.stop();
  }
  const text = Deno.readTextFileSync(bundle);
  assert.ok(text.startsWith("#!/usr/bin/env -S deno run -A\n"));
  // All ASCII, so that V8 keeps the program's source at one byte per character (scripts/bundle.ts).
  assert.doesNotMatch(text, /[\u0080-\uffff]/);
  // The files are kept compressed: the vendored editor alone is 440 KB.
  assert.doesNotMatch(text, /EditorView/);

  // `package` run from the bundle puts a copy of the bundle itself into the image.
  const packaged = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", "vitrine.js", "package", "shop.db", "--dir", "context"],
    cwd: dir,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(packaged.code, 0, new TextDecoder().decode(packaged.stderr));
  assert.match(new TextDecoder().decode(packaged.stdout), /a copy of the running Vitrine bundle/);
  assert.deepEqual(Deno.readFileSync(`${dir}/context/vitrine.js`), Deno.readFileSync(bundle));
});

Deno.test("asciiOnly escapes what is beyond ASCII without changing what the code means", () => {
  const code = [
    'const café = "naïve — ✓ 😀";',
    "const pattern = /😀+/u;",
    "const template = `→ ${café.length}`;",
    "// a comment … with →",
    "return [café, pattern.test('😀😀'), template, /é/.test('é')];",
  ].join("\n");
  const escaped = asciiOnly(code);
  assert.doesNotMatch(escaped, /[\u0080-\uffff]/);
  assert.match(escaped, /caf\\u00e9/);
  const run = (source: string) => new Function(source)();
  assert.deepEqual(run(escaped), run(code));
});
