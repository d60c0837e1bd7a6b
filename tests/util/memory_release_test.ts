/**
 * Memory handed back after a big export: the read worker's heap shrinks, and its connection's
 * page cache is emptied, once an export of 8 MB or more has ended (`closeCursor`,
 * `shrinkHeapIfDue`), and a serving process tells glibc to return freed blocks
 * (`returnFreedMemorySooner`).
 */
import assert from "node:assert/strict";
import { hasGlibc } from "../fixtures/platform.ts";
import { V8_FLAGS_OPTION } from "../../src/util/v8_flags.ts";
import { returnFreedMemorySooner } from "../../src/util/malloc_tuning.ts";

const CURSORS = new URL("../../src/db/worker_cursors.ts", import.meta.url).href;
const CONNECTION = new URL("../../src/sqlite/mod.ts", import.meta.url).href;
const GUARD = new URL("../../src/sqlite/guard.ts", import.meta.url).href;
const MALLOC_TUNING = new URL("../../src/util/malloc_tuning.ts", import.meta.url).href;
const COMPRESSION = new URL("../../src/app/compression.ts", import.meta.url).href;

/**
 * In a child process under the shipped V8 flags, as a read worker does: `rows` rows of about 60
 * bytes exported as CSV chunk by chunk through one cursor, then the worker's after-reply step.
 * Returns the export's size, the heap's size (MB) before and after that step, and SQLite's
 * memory in use (MB) before the last chunk and at the end.
 */
async function heapAroundExport(rows: number) {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-shrink-" });
  const script = `
    import { readChunk, shrinkHeapIfDue } from "${CURSORS}";
    import { Connection } from "${CONNECTION}";
    import { sqliteMemoryUsed } from "${GUARD}";
    const conn = Connection.open("${dir}/t.db");
    conn.exec("create table t (id integer primary key, name text, note text, size real)");
    conn.exec(\`with recursive n(value) as (select 1 union all select value + 1 from n
      where value < ${rows}) insert into t select value, 'name ' || value, printf('%.30c', 'x'),
      value / 7.0 from n\`);
    const request = { sql: "select * from t", params: null, maxRows: null, timeLimitMs: null,
      deadline: null };
    const text = { format: "csv", real: [3], limit: 5000 };
    const MB = 2 ** 20;
    let bytes = 0;
    let sqliteDuring = 0;
    for (let done = false, first = true; !done; first = false) {
      sqliteDuring = sqliteMemoryUsed() / MB;
      const chunk = readChunk(conn, 1, request, text, 5000, first);
      bytes += chunk.lines.length;
      done = chunk.done;
    }
    const before = Deno.memoryUsage().heapTotal / MB;
    shrinkHeapIfDue();
    const after = Deno.memoryUsage().heapTotal / MB;
    const sqliteAfter = sqliteMemoryUsed() / MB;
    conn.close();
    console.log(JSON.stringify({ exported: bytes / MB, before, after, sqliteDuring, sqliteAfter }));
  `;
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["eval", V8_FLAGS_OPTION, script],
      stderr: "inherit",
    }).output();
    assert.ok(output.success);
    return JSON.parse(new TextDecoder().decode(output.stdout));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("after an export of 8 MB or more, the worker's heap is shrunk", async () => {
  const { exported, before, after } = await heapAroundExport(200_000);
  assert.ok(exported > 8, `a big export: ${exported} MB`);
  assert.ok(after < before * 0.6, `heap ${before} MB before, ${after} MB after`);
});

Deno.test("after a small export, the worker's heap is left as it is (no full collection)", async () => {
  const { exported, before, after } = await heapAroundExport(20_000);
  assert.ok(exported < 8, `a small export: ${exported} MB`);
  // (A background sweep may still free a page or two between the two readings.)
  assert.ok(after > before * 0.9, `heap ${before} MB before, ${after} MB after`);
});

Deno.test("after an export of 8 MB or more, the pages it read leave the page cache", async () => {
  // The scan fills the connection's page cache (SQLite's default, 2 MB) with pages read once.
  const { sqliteDuring, sqliteAfter } = await heapAroundExport(200_000);
  assert.ok(sqliteDuring > 1.5, `SQLite held ${sqliteDuring} MB during the export`);
  assert.ok(sqliteAfter < 0.5, `SQLite holds ${sqliteAfter} MB after it`);
});

Deno.test({
  name: "returnFreedMemorySooner applies its malloc settings on Linux with glibc",
  ignore: Deno.build.os !== "linux" || !hasGlibc(),
  fn() {
    // The settings are process-wide and harmless to a test process; a second call is fine too.
    assert.equal(returnFreedMemorySooner(), true);
    assert.equal(returnFreedMemorySooner(), true);
  },
});

Deno.test({
  name: "with those settings, compressing a response does not fault in fresh memory each time",
  ignore: Deno.build.os !== "linux" || !hasGlibc(),
  async fn() {
    // Below a compressor's working memory, the thresholds had every brotli body map, fault in
    // and unmap about a megabyte: 230 page faults each, four times the CPU. Counted in a child,
    // since the settings are process-wide.
    const script = `
      import { returnFreedMemorySooner } from "${MALLOC_TUNING}";
      import { compressSync } from "${COMPRESSION}";
      const faults = () =>
        Number(Deno.readTextFileSync("/proc/self/stat").split(") ")[1].split(" ")[7]);
      returnFreedMemorySooner();
      const rows = Array.from({ length: 300 }, (_, id) => ({ id, name: "row " + id, n: id / 7 }));
      const body = new TextEncoder().encode(JSON.stringify(rows));
      const result = {};
      for (const coding of ["br", "gzip"]) {
        for (let i = 0; i < 20; i++) compressSync(coding, body);
        const before = faults();
        for (let i = 0; i < 100; i++) compressSync(coding, body);
        result[coding] = (faults() - before) / 100;
      }
      console.log(JSON.stringify(result));
    `;
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["eval", script],
      stderr: "inherit",
    }).output();
    assert.ok(output.success);
    const faults = JSON.parse(new TextDecoder().decode(output.stdout));
    // A few pages each as the heap settles (5-6 measured), against 230 when mapped every time.
    assert.ok(faults.br < 50, `brotli: ${faults.br} page faults a body`);
    assert.ok(faults.gzip < 50, `gzip: ${faults.gzip} page faults a body`);
  },
});
