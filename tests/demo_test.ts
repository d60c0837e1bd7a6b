import assert from "node:assert/strict";
import { Service } from "../src/service.ts";
import { loadMetadataFile } from "../src/config/metadata.ts";

Deno.test("the bundled demo database builds and serves with its metadata", async () => {
  const dir = Deno.makeTempDirSync();
  const path = `${dir}/demo.db`;
  const build = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", new URL("../demo/build.ts", import.meta.url).pathname, path],
  }).output();
  assert.equal(build.code, 0, new TextDecoder().decode(build.stderr));
  const metadata = await loadMetadataFile(
    new URL("../demo/metadata.yaml", import.meta.url).pathname,
  );
  await using svc = new Service({ files: [path], metadata });
  const index = (await svc.client.get("/.json")).json();
  assert.equal(index.metadata.title, "Alderbrook street trees");
  const demo = index.databases.find((d: { name: string }) => d.name === "demo");
  const trees = demo.tables_and_views_truncated.find(
    (t: { name: string }) => t.name === "trees",
  );
  assert.equal(trees.fts_table, "trees_fts");
  // The index gives each count a few milliseconds (a loaded machine may miss them); the table's
  // own count has the full time limit.
  assert.ok(trees.count === 1500 || trees.count === null, String(trees.count));
  const table = (await svc.client.get("/demo/trees.json?_size=1&_extra=count")).json();
  assert.equal(table.count, 1500);
  // The public form: a message is recorded; an empty one is refused with a readable note.
  const send = async (message: string) =>
    (await svc.client.post("/demo/request_a_tree", {
      data: { message },
      headers: { accept: "application/json" },
    })).json();
  const empty = await send("   ");
  assert.equal(empty.ok, false);
  assert.equal(empty.message, "Please write a message before sending it.");
  const sent = await send("A tree for Mill Lane, please");
  assert.equal(sent.ok, true, JSON.stringify(sent));
  const stored = (await svc.client.get("/demo/requests.json?_shape=array")).json();
  assert.deepEqual(stored.map((row: { message: string }) => row.message), [
    "A tree for Mill Lane, please",
  ]);
});
