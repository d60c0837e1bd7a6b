/**
 * Counts that do not fit in a page's time (issue 42 item 4): a listing page has a budget for all
 * its counts, a table page a small share for its table's count, and an immutable file's tables
 * left uncounted are counted after the page, for the next views (src/views/table_counts.ts).
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service } from "../../src/service.ts";
import { tableCounts } from "../../src/views/table_counts.ts";

function buildDb(sql: string): { path: string; cleanup(): void } {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-count-later-" });
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  try {
    conn.exec(sql);
  } finally {
    conn.close();
  }
  return { path, cleanup: () => Deno.removeSync(dir, { recursive: true }) };
}

/** Waits until `check` holds (the background counts run after the page). */
async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`never: ${what}`);
}

Deno.test("a listing's counts past its budget are none at first, then counted after the page", async () => {
  const tables = Array.from({ length: 5 }, (_, i) => `t${i}`);
  const { path, cleanup } = buildDb(
    tables.map((t, i) =>
      `create table ${t} (id integer primary key);
      with recursive n(i) as (select 1 union all select i + 1 from n where i < ${i + 1})
      insert into ${t} select i from n;`
    ).join("\n"),
  );
  try {
    await using svc = new Service({ immutables: [path] });
    const db = svc.get_database("data");
    // No time left at all: every count is left for later.
    const first = await tableCounts(svc, db, tables, { limitMs: 25, budgetMs: 0 });
    assert.deepEqual(Object.values(first), [null, null, null, null, null]);
    await eventually(async () => {
      const body = (await svc.client.get("/data.json")).json();
      return body.tables.every((t: { count: unknown }) => t.count !== null);
    }, "every count shown");
    const body = (await svc.client.get("/data.json")).json();
    assert.deepEqual(body.tables.map((t: { count: number }) => t.count), [1, 2, 3, 4, 5]);
  } finally {
    cleanup();
  }
});

Deno.test("a mutable file's counts past the budget are not made later (they could change)", async () => {
  const { path, cleanup } = buildDb(
    "create table t (id integer primary key); insert into t values (1);",
  );
  try {
    await using svc = new Service({ files: [path] });
    const db = svc.get_database("data");
    assert.deepEqual(await tableCounts(svc, db, ["t"], { limitMs: 25, budgetMs: 0 }), { t: null });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(await tableCounts(svc, db, ["t"], { limitMs: 25, budgetMs: 0 }), { t: null });
  } finally {
    cleanup();
  }
});

Deno.test("a page whose own count ran out of time shows a lower bound, then the exact count once made after the page", async () => {
  // Counting the view takes a `like` over 1,000,000 rows: longer than a page's count may take.
  const { path, cleanup } = buildDb(
    `create table big (id integer primary key, s text);
     with recursive n(i) as (select 1 union all select i + 1 from n where i < 1000000)
     insert into big (s) select 'row ' || i from n;
     create view nines as select * from big where s like '%9%9%9%';`,
  );
  try {
    await using svc = new Service({ immutables: [path], settings: { suggest_facets: false } });
    const url = "/data/nines.json?_extra=count,count_truncated&_size=1";
    const first = (await svc.client.get(url)).json();
    assert.equal(first.count_truncated, true, JSON.stringify(first));
    // 10,000 normally; 1,000 if a loaded machine pushed the first cap past its time too.
    assert.ok([10000, 1000].includes(first.count), String(first.count));
    await eventually(async () => {
      const body = (await svc.client.get(`${url}&_x=${Math.random()}`)).json();
      return body.count_truncated === false;
    }, "the exact count");
    const body = (await svc.client.get(url + "&_y=1")).json();
    assert.equal(body.count, 15850);
  } finally {
    cleanup();
  }
});

Deno.test("once a table's count ran out of a page's time, the immutable file's next pages skip to the capped counts", async () => {
  // A view without end: its count never fits, in a page or after it.
  const { path, cleanup } = buildDb(
    `create view endless as
       with recursive c(x) as (select 1 union all select x + 1 from c) select x from c;`,
  );
  try {
    await using svc = new Service({
      immutables: [path],
      settings: { suggest_facets: false, trace_debug: true },
    });
    const url = "/data/endless.json?_extra=count,count_truncated&_size=1&_trace=1";
    const page = async (extra: string) => {
      const body = (await svc.client.get(url + extra)).json();
      const counts = (body._trace.traces as { sql?: string }[])
        .map((t) => t.sql ?? "").filter((sql) => sql.startsWith("select count(*)"));
      return { body, full: counts.filter((sql) => !/ limit \d+\)$/.test(sql)), counts };
    };
    const first = await page("");
    assert.equal(first.body.count_truncated, true);
    assert.equal(first.full.length, 1, first.counts.join("\n"));
    // The file cannot change: the full count that gave up once is not tried on every page (a
    // 20,000,000-row table's cost each page 100 ms), only the capped ones.
    const second = await page("&_x=1");
    assert.equal(second.body.count_truncated, true);
    assert.ok([10000, 1000].includes(second.body.count), String(second.body.count));
    assert.deepEqual(second.full, [], second.counts.join("\n"));
  } finally {
    cleanup();
  }
});

/**
 * A file over 100 MB holding a table whose rowids span 5,000,000 but which has 20,001 rows: the
 * span says it is too long to count within a page (the 20,000,000-row table's first page spent
 * 100 ms on a count that could not finish), so it is not counted in full. The file is made big
 * by extending it with a hole (SQLite reads only the pages its header names; no disk is used).
 */
function buildBigFile(): { path: string; cleanup(): void } {
  const built = buildDb(
    `create table long (id integer primary key, s text);
     with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000)
     insert into long select i, 'row ' || i from n;
     insert into long values (5000000, 'last');
     create table short (id integer primary key, s text);
     insert into short values (1, 'one'), (2, 'two');
     create table keyed (k text primary key) without rowid;
     insert into keyed values ('a'), ('b'), ('c');`,
  );
  Deno.truncateSync(built.path, 101 * 1024 * 1024);
  return built;
}

Deno.test("a table of a big file whose rowids span millions is not counted in full on its page", async () => {
  const { path, cleanup } = buildBigFile();
  try {
    await using svc = new Service({
      files: [path],
      settings: { suggest_facets: false, trace_debug: true },
    });
    const body = (await svc.client.get("/data/long.json?_extra=count,count_truncated&_trace=1"))
      .json();
    const counts = (body._trace.traces as { sql?: string }[])
      .map((t) => t.sql ?? "").filter((sql) => sql.startsWith("select count(*)"));
    assert.deepEqual(counts, ["select count(*) from (select 1 from long limit 10000)"]);
    assert.equal(body.count, 10000);
    assert.equal(body.count_truncated, true);
    // What a visitor reads: a lower bound, as the reference shows ">10,000 rows".
    const html = (await svc.client.get("/data/long")).text;
    assert.match(html, /<title>data: long: &ge;10,000 rows<\/title>/);
    // A short table of the same file is counted exactly.
    const short = (await svc.client.get("/data/short.json?_extra=count,count_truncated")).json();
    assert.deepEqual([short.count, short.count_truncated], [2, false]);
    // A table without rowid has no span to tell: counted as before.
    const keyed = (await svc.client.get("/data/keyed.json?_extra=count,count_truncated")).json();
    assert.deepEqual([keyed.count, keyed.count_truncated], [3, false]);
  } finally {
    cleanup();
  }
});

Deno.test("the same long table in a small file, or filtered, is still counted exactly", async () => {
  const { path, cleanup } = buildDb(
    `create table long (id integer primary key, s text);
     with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000)
     insert into long select i, 'row ' || i from n;
     insert into long values (5000000, 'last');`,
  );
  try {
    await using svc = new Service({ files: [path], settings: { suggest_facets: false } });
    const body = (await svc.client.get("/data/long.json?_extra=count,count_truncated")).json();
    assert.deepEqual([body.count, body.count_truncated], [20001, false]);
  } finally {
    cleanup();
  }
  const big = buildBigFile();
  try {
    await using svc = new Service({ files: [big.path], settings: { suggest_facets: false } });
    const url = "/data/long.json?_extra=count,count_truncated&id__gt=5000";
    const body = (await svc.client.get(url)).json();
    assert.deepEqual([body.count, body.count_truncated], [15001, false]);
  } finally {
    big.cleanup();
  }
});

Deno.test("an immutable big file's long table is counted after its first page, and shown exactly next", async () => {
  const { path, cleanup } = buildBigFile();
  try {
    await using svc = new Service({ immutables: [path], settings: { suggest_facets: false } });
    const url = "/data/long.json?_extra=count,count_truncated&_size=1";
    const first = (await svc.client.get(url)).json();
    assert.deepEqual([first.count, first.count_truncated], [10000, true]);
    await eventually(async () => {
      const body = (await svc.client.get(`${url}&_x=${Math.random()}`)).json();
      return body.count_truncated === false;
    }, "the exact count");
    const body = (await svc.client.get(`${url}&_y=1`)).json();
    assert.equal(body.count, 20001);
  } finally {
    cleanup();
  }
});
