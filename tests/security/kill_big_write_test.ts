/**
 * Durability of big writes under kill -9: a server is killed while one request's write of many
 * rows runs (write SQL updating 100,000 rows, recorded in the file's own history) and while an
 * alter rebuilds the table. After a restart the file holds the table either as it was or as the
 * write left it, never in between, and its history records the rows changed exactly when they
 * were changed (the history is written in the write's own transaction).
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { startServer } from "./server_process.ts";

const ROWS = 100_000;

const METADATA = {
  databases: {
    big: {
      history: "database",
      permissions: { "execute-write-sql": true, "alter-table": true },
    },
  },
};

function createDatabase(path: string): void {
  using conn = Connection.open(path);
  conn.exec(
    "create table warm (x); create table items (id integer primary key, v text, n integer);" +
      `with recursive k(i) as (select 1 union all select i + 1 from k where i < ${ROWS})
      insert into items select i, 'item ' || i, i from k`,
  );
}

/** Sends `body` to `path`, kills the server `delay` ms later, and says whether it answered. */
async function killDuring(
  dir: string,
  path: string,
  body: unknown,
  delay: number,
): Promise<boolean> {
  const db = `${dir}/big.db`;
  const args = [db, "-m", `${dir}/metadata.json`];
  const server = await startServer(args);
  // Warm up: the history table exists and the workers are up before the big write.
  const warm = await fetch(`${server.url}big/-/execute-write`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sql: "insert into warm values (1)" }),
  });
  assert.equal(warm.status, 200, await warm.text());
  let answered = false;
  const sent = fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (response) => {
    await response.body?.cancel();
    answered = true;
  }, () => {});
  await new Promise((resolve) => setTimeout(resolve, delay));
  await server.kill();
  await sent;
  // The restart checks and recovers the file.
  const again = await startServer(args);
  await again.stop();
  return answered;
}

Deno.test("kill -9 during a 100,000-row recorded write and during a rebuild: all or nothing, history included", async () => {
  const dir = await Deno.makeTempDir({ prefix: "vitrine-kill-big-" });
  try {
    const db = `${dir}/big.db`;
    createDatabase(db);
    Deno.writeTextFileSync(`${dir}/metadata.json`, JSON.stringify(METADATA));
    const interrupted: string[] = [];
    for (const delay of [150, 400, 900]) {
      const answered = await killDuring(dir, "big/-/execute-write", {
        sql: `update items set v = v || '+', n = n + 1`,
      }, delay);
      if (!answered) interrupted.push(`update after ${delay} ms`);
      using conn = Connection.open(db, { mode: "ro" });
      assert.deepEqual(conn.query("pragma integrity_check").rows, [["ok"]]);
      // Every row moved together: as many updates as rows, or none.
      const steps = conn.query("select n - id, count(*) from items group by 1").rows;
      assert.equal(steps.length, 1, `rows in between: ${JSON.stringify(steps)}`);
      const [[step, count]] = steps;
      assert.equal(count, ROWS);
      const recorded = conn.query(
        "select count(*) from _vitrine_history where table_name = 'items' and operation = 'update'",
      ).rows[0][0];
      // Each completed big write recorded every row (the warm-up writes are of another table).
      assert.equal(recorded, Number(step) * ROWS, `step ${step}, ${recorded} recorded`);
    }
    for (const delay of [100, 300]) {
      const answered = await killDuring(dir, "big/items/-/alter", {
        operations: [{ op: "alter_column", args: { name: "n", type: "text" } }],
      }, delay);
      if (!answered) interrupted.push(`alter after ${delay} ms`);
      using conn = Connection.open(db, { mode: "ro" });
      assert.deepEqual(conn.query("pragma integrity_check").rows, [["ok"]]);
      const type = conn.query("select type from pragma_table_info('items') where name = 'n'")
        .rows[0][0];
      assert.ok(type === "INTEGER" || type === "TEXT", String(type));
      assert.equal(conn.query("select count(*) from items").rows[0][0], ROWS);
      // The rebuild's temporary table is gone either way.
      assert.deepEqual(
        conn.query("select name from sqlite_master where name like '_vitrine_alter%'").rows,
        [],
      );
      // Typed as the schema says: TEXT only after the whole rebuild.
      const texts = conn.query("select count(*) from items where typeof(n) = 'text'").rows[0][0];
      assert.equal(texts, type === "TEXT" ? ROWS : 0);
    }
    console.log(`killed mid-write: ${interrupted.join(", ") || "none (all finished first)"}`);
    assert.ok(interrupted.length > 0, "every write finished before its kill: nothing was tested");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
