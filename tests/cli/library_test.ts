import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { Connection } from "../../src/sqlite/connection.ts";
import { Library } from "../../src/cli/library.ts";
import { dropDefaultMemory } from "../../src/cli/data_files.ts";

/** Writes a SQLite file with table `t` holding `values`, atomically (written aside, renamed). */
function writeDb(path: string, values: string[]): void {
  const temp = `${path}.tmp-${crypto.randomUUID()}`;
  const conn = Connection.open(temp, { mode: "rwc" });
  conn.exec("create table t (v text)");
  for (const value of values) conn.run("insert into t values (?)", [value]);
  conn.close();
  Deno.renameSync(temp, path);
}

async function libraryService(dir: string, immutable = false) {
  const svc = new Service({ settings: { num_sql_threads: 2 } });
  dropDefaultMemory(svc);
  const library = new Library(svc, dir, { immutable, log: () => {} });
  await library.scan();
  library.watch();
  return {
    svc,
    library,
    async [Symbol.asyncDispose]() {
      library.close();
      await svc.close();
    },
  };
}

async function databaseNames(svc: Service): Promise<string[]> {
  const response = await svc.client.get("/.json");
  assert.equal(response.status, 200);
  return (response.json() as { databases: { name: string }[] }).databases.map((db) => db.name)
    .sort();
}

/** Polls `check` until it holds, for at most `ms`; returns how long it took. */
async function within(ms: number, check: () => Promise<boolean>): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) assert.fail(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return performance.now() - started;
}

/** Column `v` of table `t` (a data file's table is named after it). */
async function values(svc: Service, db: string, table = "t"): Promise<unknown> {
  const response = await svc.client.get(`/${db}/${table}.json?_shape=array`);
  if (response.status !== 200) return response.status + " " + response.text.slice(0, 300);
  return (response.json() as { v: unknown }[]).map((row) => row.v);
}

Deno.test("a data library adds, replaces and removes files under load, failing no request", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-library-" });
  writeDb(`${dir}/alpha.db`, ["a1"]);
  await using lib = await libraryService(dir);
  const { svc } = lib;
  assert.deepEqual(await databaseNames(svc), ["alpha"]);

  // The load: index and table requests without pause from four clients.
  let running = true;
  const failures: string[] = [];
  let requests = 0;
  const client = async () => {
    while (running) {
      // In-process answers can come back without the event loop turning: let it turn (as
      // sockets would), or the watcher's events would wait behind the load.
      await new Promise((r) => setTimeout(r, 0));
      const names = [...svc.databases.keys()];
      const db = names[requests % Math.max(1, names.length)];
      for (const path of ["/.json", "/-/databases.json", `/${db}/t.json?_size=5`, `/${db}.json`]) {
        requests++;
        try {
          const response = await svc.client.get(path);
          // A database removed between choosing it and asking is a 404; nothing may fail.
          if (response.status !== 200 && response.status !== 404) {
            failures.push(`${path}: ${response.status} ${response.text.slice(0, 200)}`);
          }
        } catch (error) {
          failures.push(`${path}: ${error}`);
        }
      }
    }
  };
  const clients = [client(), client(), client(), client()];
  try {
    writeDb(`${dir}/beta.db`, ["b1", "b2"]);
    await within(1000, async () => (await databaseNames(svc)).includes("beta"));
    assert.deepEqual(await values(svc, "beta"), ["b1", "b2"]);

    Deno.writeTextFileSync(`${dir}/gamma.csv`, "v\ng1\n");
    await within(1000, async () => Array.isArray(await values(svc, "gamma", "gamma")));
    assert.deepEqual(await values(svc, "gamma", "gamma"), ["g1"]);

    // Replaced by another file (a new inode): served anew under the same name.
    writeDb(`${dir}/alpha.db`, ["a2", "a3"]);
    await within(1000, async () => JSON.stringify(await values(svc, "alpha")) === '["a2","a3"]');

    // A data file changed in place is imported again.
    Deno.writeTextFileSync(`${dir}/gamma.csv`, "v\ng2\n");
    await within(
      1000,
      async () => JSON.stringify(await values(svc, "gamma", "gamma")) === '["g2"]',
    );

    Deno.removeSync(`${dir}/beta.db`);
    await within(1000, async () => {
      const listed = (await svc.client.get("/-/databases.json")).json() as {
        databases: { name: string }[];
      };
      return !listed.databases.some((db) => db.name === "beta");
    });
    assert.match(String(await values(svc, "beta")), /^404 /);
  } finally {
    running = false;
    await Promise.all(clients);
  }
  assert.deepEqual(failures, []);
  assert.ok(requests > 100, `only ${requests} requests ran`);
  assert.deepEqual(await databaseNames(svc), ["alpha", "gamma"]);
});

Deno.test("a replaced immutable file is hashed again and its cached answers dropped", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-library-" });
  writeDb(`${dir}/facts.db`, ["old"]);
  await using lib = await libraryService(dir, true);
  const { svc } = lib;
  const hashOf = async () =>
    ((await svc.client.get("/-/databases.json")).json() as { databases: { hash: string }[] })
      .databases[0].hash;
  const before = await hashOf();
  assert.match(before, /^[0-9a-f]{64}$/);
  assert.deepEqual(await values(svc, "facts"), ["old"]);
  writeDb(`${dir}/facts.db`, ["new"]);
  await within(1000, async () => (await hashOf()) !== before);
  assert.deepEqual(await values(svc, "facts"), ["new"]);
});

Deno.test("the index page says when a database was added while serving", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-library-" });
  writeDb(`${dir}/first.db`, ["x"]);
  await using lib = await libraryService(dir);
  const { svc } = lib;
  writeDb(`${dir}/later.db`, ["y"]);
  await within(1000, async () => (await databaseNames(svc)).includes("later"));
  const html = (await svc.client.get("/")).text;
  const later = html.slice(html.indexOf('href="/later"'));
  assert.match(later, /<p class="database-added">Added \d{4}-\d\d-\d\d \d\d:\d\d UTC<\/p>/);
  const first = html.slice(html.indexOf('href="/first"'), html.indexOf('href="/later"'));
  assert.doesNotMatch(first, /database-added/);
  const index = (await svc.client.get("/.json")).json() as {
    databases: { name: string; added_at?: string }[];
  };
  const [old, added] = index.databases;
  assert.deepEqual([old.name, old.added_at], ["first", undefined]);
  assert.equal(added.name, "later");
  assert.match(added.added_at!, /^\d{4}-\d\d-\d\d \d\d:\d\d$/);
});

Deno.test("a file deleted before the library noticed leaves the index working", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-library-" });
  writeDb(`${dir}/keep.db`, ["k"]);
  writeDb(`${dir}/gone.db`, ["g"]);
  const svc = new Service({ files: [`${dir}/keep.db`, `${dir}/gone.db`] });
  try {
    assert.equal((await svc.client.get("/.json")).status, 200);
    Deno.removeSync(`${dir}/gone.db`);
    const response = await svc.client.get("/.json");
    assert.equal(response.status, 200);
    const listed = (response.json() as { databases: { name: string }[] }).databases;
    assert.deepEqual(listed.map((db) => db.name), ["keep"]);
  } finally {
    await svc.close();
  }
});

Deno.test("remove_database lets the requests in flight finish before closing", async () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-library-" });
  writeDb(`${dir}/slow.db`, ["s"]);
  // A generous limit: on a loaded machine the slow query must finish, not be interrupted.
  const svc = new Service({ files: [`${dir}/slow.db`], settings: { sql_time_limit_ms: 60_000 } });
  try {
    await svc.client.get("/slow.json");
    // A query that takes a while, removed while it runs.
    const pending = svc.client.get(
      "/slow.json?sql=" +
        encodeURIComponent(
          "with recursive c(n) as (select 1 union all select n + 1 from c where n < 300000) " +
            "select count(*) from c",
        ),
    );
    await new Promise((r) => setTimeout(r, 5));
    svc.remove_database("slow");
    const response = await pending;
    assert.equal(response.status, 200, response.text);
    assert.deepEqual((response.json() as { rows: unknown[] }).rows, [{ "count(*)": 300000 }]);
    assert.equal((await svc.client.get("/slow.json")).status, 404);
  } finally {
    await svc.close();
  }
});
