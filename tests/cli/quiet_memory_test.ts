/**
 * A served process that goes quiet gives back its file pages once per quiet spell
 * (`releaseWhenQuiet`), never while a request is answered or an export is being sent, and again
 * as soon as an export of 8 MB or more has ended.
 */
import assert from "node:assert/strict";
import { releaseWhenQuiet } from "../../src/cli/quiet_memory.ts";
import { Connection } from "../../src/sqlite/connection.ts";
import { Service } from "../../src/service.ts";

const QUIET_MS = 40;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A database file with a table whose CSV export is 13 MB. */
function bigDb(): string {
  const path = Deno.makeTempFileSync({ suffix: ".db" });
  const conn = Connection.open(path);
  conn.exec(
    "create table t (id integer primary key, name text);" +
      "with recursive n(i) as (select 1 union all select i + 1 from n where i < 60000) " +
      "insert into t select i, 'row ' || i || ' ' || printf('%.200c', 'x') from n;",
  );
  conn.close();
  return path;
}

Deno.test("a quiet server releases once per quiet spell, and not while it is busy", async () => {
  const path = bigDb();
  await using svc = new Service({ files: [path], settings: { num_sql_threads: 1 } });
  let releases = 0;
  const stop = releaseWhenQuiet(svc, QUIET_MS, () => Promise.resolve(releases++));
  try {
    // Start-up released its own pages: nothing to do until requests come.
    await pause(QUIET_MS * 4);
    assert.equal(releases, 0);

    await svc.client.get("/");
    await pause(QUIET_MS * 4);
    assert.equal(releases, 1, "released after the request");
    await pause(QUIET_MS * 4);
    assert.equal(releases, 1, "once per quiet spell");

    // Requests more often than the quiet time: no release between them.
    for (let i = 0; i < 8; i++) {
      await svc.client.get("/-/versions.json");
      await pause(QUIET_MS / 4);
    }
    assert.equal(releases, 1);

    // An export being sent, with no other request for a while: not quiet either.
    const name = path.split("/").at(-1)!.replace(/\.db$/, "");
    const response = await svc.handler()(
      new Request(`http://localhost/${name}/t.csv?_stream=on&_size=1000`),
    );
    assert.equal(response.status, 200);
    const reader = response.body!.getReader();
    await reader.read();
    await pause(QUIET_MS * 4);
    assert.equal(releases, 1, "no release while an export is open");
    await reader.cancel();
    await pause(QUIET_MS * 4);
    assert.equal(releases, 2, "released once the export stopped");

    // A whole export of 13 MB: released as it ends, without waiting to be quiet.
    const csv = await svc.client.get(`/${name}/t.csv?_stream=on`);
    assert.ok(csv.content.length > 8 * 1024 * 1024, `${csv.content.length} bytes`);
    assert.equal(releases, 3, "released as the big export ended");
    await pause(QUIET_MS * 4);
    assert.equal(releases, 3, "and not again for the quiet spell that follows");

    // The idle read pool gave its memory back, running its own rare code to do so.
    svc.lifecycle.heavyWorkEnded();
    assert.equal(releases, 4);
  } finally {
    stop();
    Deno.removeSync(path);
  }
});
