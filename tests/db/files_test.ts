import assert from "node:assert/strict";
import { Database } from "../../src/db/database.ts";
import { standaloneHost } from "../../src/db/host.ts";
import { Connection } from "../../src/sqlite/mod.ts";

for (const threads of [0, 2]) {
  Deno.test(`a missing or corrupt file is a clear error (num_sql_threads=${threads})`, async () => {
    const dir = Deno.makeTempDirSync();
    const host = standaloneHost({ settings: { num_sql_threads: threads } });
    const missing = new Database(host, { path: `${dir}/missing.db`, is_mutable: false });
    const corruptPath = `${dir}/corrupt.db`;
    Deno.writeTextFileSync(corruptPath, "this is not a database, just some text ".repeat(200));
    const corrupt = new Database(host, { path: corruptPath, is_mutable: false });
    try {
      await assert.rejects(
        () => missing.execute("select 1"),
        /unable to open database file: .*missing\.db/,
      );
      await assert.rejects(
        () => corrupt.execute("select * from sqlite_master"),
        /file is not a database/,
      );
    } finally {
      missing.close();
      corrupt.close();
      host.close();
    }
  });
}

Deno.test("FTS4 tables are detected and their shadow tables hidden", async () => {
  const path = `${Deno.makeTempDirSync()}/fts4.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`create table docs (id integer primary key, body text);
    create virtual table docs_fts using fts4(body, content="docs");
    insert into docs values (1, 'hello world');
    insert into docs_fts (docs_fts) values ('rebuild');`);
  conn.close();
  const db = new Database(undefined, { path });
  try {
    assert.equal(await db.fts_table("docs"), "docs_fts");
    const hidden = await db.hidden_table_names();
    for (
      const shadow of ["docs_fts_segments", "docs_fts_segdir", "docs_fts_docsize", "docs_fts_stat"]
    ) {
      assert.ok(hidden.includes(shadow), shadow);
    }
    assert.ok(hidden.includes("docs_fts"));
    const found = await db.execute("select rowid from docs_fts where docs_fts match 'hello'");
    assert.deepEqual(found.rows.map((row) => row[0]), [1]);
  } finally {
    db.close();
  }
});
