/**
 * The library from a program outside the repository, with its own import map only (the names
 * Vitrine's code imports, mapped to npm), serving a database over a real socket:
 *
 * 1. importing `mod.ts` of the source tree by its file URL;
 * 2. importing it over HTTP from the copy `scripts/publish.ts` would publish (assets embedded) —
 *    how a JSR user loads it: nothing next to the code can be read from disk, and the read
 *    workers load over the network too.
 */
import assert from "node:assert/strict";
import { extname, join } from "node:path";
import { publishableCopy } from "../../scripts/publish.ts";
import { buildShopDb } from "../fixtures/shop.ts";
import { startDeno } from "../cli/server_process.ts";

const PROGRAM = `
const { Service } = await import(Deno.args[0]);
const svc = new Service({ files: [Deno.args[1]], settings: { num_sql_threads: 2 } });
await svc.invoke_startup();
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log("serving on http://127.0.0.1:" + port + "/"),
}, svc.handler());
`;

/** A temporary project with only the program and an import map of Vitrine's dependencies. */
function outsideProject(): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-outside-" });
  const repo = JSON.parse(Deno.readTextFileSync(new URL("../../deno.json", import.meta.url)));
  const imports = Object.fromEntries(
    ["nunjucks", "yaml", "commander"].map((name) => [name, repo.imports[name]]),
  );
  Deno.writeTextFileSync(join(dir, "deno.json"), JSON.stringify({ imports }));
  Deno.writeTextFileSync(join(dir, "main.ts"), PROGRAM);
  return dir;
}

async function assertServes(modUrl: string): Promise<void> {
  const dir = outsideProject();
  const db = buildShopDb(dir);
  const server = await startDeno(["run", "-A", "main.ts", modUrl, db], { cwd: dir });
  try {
    const html = await fetch(`${server.url}shop/products`);
    assert.equal(html.status, 200, server.stderr());
    assert.match(await html.text(), /<title>shop: products[:<]/);
    const json = await fetch(`${server.url}shop/categories.json?_shape=array`);
    assert.deepEqual((await json.json()).map((row: { id: number }) => row.id), [1, 2, 3]);
    const sql = encodeURIComponent("select count(*) as n from products");
    const query = await fetch(`${server.url}shop/-/query.json?_shape=array&sql=${sql}`);
    assert.deepEqual(await query.json(), [{ n: 9 }]);
    const css = await fetch(`${server.url}-/static/app.css`);
    assert.equal(css.status, 200);
    assert.match(await css.text(), /\{/);
  } finally {
    await server.stop();
  }
}

Deno.test("a program outside the repository imports mod.ts by path and serves a database", async () => {
  await assertServes(new URL("../../mod.ts", import.meta.url).href);
});

Deno.test("the published copy, imported over HTTP as from JSR, serves a database", async () => {
  const copy = await publishableCopy();
  const types: Record<string, string> = {
    ".ts": "application/typescript",
    ".js": "text/javascript",
  };
  const files = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = decodeURIComponent(new URL(request.url).pathname);
    try {
      const body = await Deno.readFile(join(copy, path.replace(/\.\./g, "")));
      const type = types[extname(path)] ?? "application/octet-stream";
      return new Response(body, { headers: { "content-type": type } });
    } catch {
      return new Response("not found", { status: 404 });
    }
  });
  try {
    await assertServes(`http://127.0.0.1:${files.addr.port}/mod.ts`);
  } finally {
    await files.shutdown();
    await Deno.remove(copy, { recursive: true });
    await forgetCachedOrigin(files.addr.port);
  }
});

/** Drops this test's modules from Deno's remote cache (each run uses a new port). */
async function forgetCachedOrigin(port: number): Promise<void> {
  const info = await new Deno.Command(Deno.execPath(), { args: ["info", "--json"] }).output();
  const cache = JSON.parse(new TextDecoder().decode(info.stdout)).modulesCache;
  await Deno.remove(join(cache, "http", `127.0.0.1_PORT${port}`), { recursive: true })
    .catch(() => {});
}
