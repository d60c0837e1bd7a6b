/**
 * A database file that fails underneath the server (here: pages overwritten, as a bad disk or a
 * careless copy would leave them) is a server error, 500, on every page that reads it, never the
 * visitor's "Invalid SQL" 400 that SQL they wrote would get.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/connection.ts";
import { Service } from "../../src/service.ts";

function damagedAfterStart(dir: string): string {
  const path = `${dir}/data.db`;
  const conn = Connection.open(path);
  conn.exec("create table notes (id integer primary key, body text)");
  conn.exec("begin");
  for (let i = 1; i <= 2000; i++) {
    conn.run("insert into notes values (?, ?)", [i, `note ${i}`.repeat(8)]);
  }
  conn.exec("commit");
  conn.close();
  return path;
}

/** Overwrites every page after the second with garbage (the schema on page 1 stays readable). */
function damage(path: string): void {
  const bytes = Deno.readFileSync(path);
  const pageSize = (bytes[16] << 8) | bytes[17];
  for (let i = pageSize * 2; i < bytes.length; i++) bytes[i] = (i * 7919) & 0xff;
  Deno.writeFileSync(path, bytes);
}

Deno.test("a damaged file answers 500 with SQLite's reason on table, query and export pages", async () => {
  const dir = Deno.makeTempDirSync();
  try {
    const path = damagedAfterStart(dir);
    await using svc = new Service({ files: [path], settings: { num_sql_threads: 1 } });
    assert.equal((await svc.client.get("/data/notes.json?_size=1")).status, 200);
    damage(path);
    for (
      const url of [
        "/data/notes.json?_sort_desc=body",
        "/data/notes?_sort_desc=body",
        "/data/-/query.json?sql=select+max(body)+from+notes",
        "/data/-/query.csv?sql=select+*+from+notes+order+by+body&_stream=on",
      ]
    ) {
      const response = await svc.client.get(url);
      assert.equal(response.status, 500, `${url}: ${response.text.slice(0, 200)}`);
      assert.match(response.text, /malformed|not a database|disk I\/O/, url);
      assert.doesNotMatch(response.text, /Invalid SQL/, url);
    }
    // SQL the visitor got wrong is still theirs: 400.
    const typo = await svc.client.get("/data/-/query.json?sql=select+nope+from+notes");
    assert.equal(typo.status, 400);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
