/**
 * Start-up check of database files (src/db/file_check.ts): foreign, truncated and damaged files
 * are refused with a message naming the file and the problem, by the library and by the CLI;
 * a file over `startup_check_max_mb` gets the constant-time checks only.
 */
import assert from "node:assert/strict";
import { checkDatabaseFile, CorruptDatabase } from "../../src/db/file_check.ts";
import { Service } from "../../src/service.ts";
import { makeDbFile, tempDir } from "./helpers.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;
const ROWS = "create table t (id integer primary key, body text); " +
  "with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000) " +
  "insert into t select i, printf('row %d %s', i, hex(randomblob(40))) from n;";

function withDir(fn: (dir: string) => void | Promise<void>) {
  return async () => {
    const { dir, cleanup } = tempDir();
    try {
      await fn(dir);
    } finally {
      cleanup();
    }
  };
}

function refusedWith(fn: () => unknown, pattern: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof CorruptDatabase, String(error));
    assert.match(error.message, pattern);
    return true;
  });
}

/** Overwrites page `page` (1-based) of `path` with 0xAA bytes, keeping the file's length. */
function damagePage(path: string, page: number, pageSize = 4096): void {
  using file = Deno.openSync(path, { read: true, write: true });
  file.seekSync((page - 1) * pageSize, Deno.SeekMode.Start);
  file.writeSync(new Uint8Array(pageSize).fill(0xaa));
}

Deno.test(
  "a sound file passes, with quick_check when it is small enough",
  withDir((dir) => {
    const path = makeDbFile(dir, "ok.db", ROWS);
    assert.deepEqual(checkDatabaseFile(path, { quickCheckMaxBytes: 1 << 30 }).quickCheck, true);
    assert.deepEqual(checkDatabaseFile(path, { quickCheckMaxBytes: 1024 }).quickCheck, false);
    assert.deepEqual(checkDatabaseFile(path, { immutable: true }).quickCheck, false);
    // Empty and not-yet-existing files are empty databases.
    Deno.writeFileSync(`${dir}/empty.db`, new Uint8Array());
    assert.equal(checkDatabaseFile(`${dir}/empty.db`).size, 0);
    assert.equal(checkDatabaseFile(`${dir}/missing.db`).size, 0);
  }),
);

Deno.test(
  "a file that is not SQLite is refused by its header",
  withDir((dir) => {
    Deno.writeTextFileSync(`${dir}/notes.db`, "name,value\n".repeat(500));
    refusedWith(() => checkDatabaseFile(`${dir}/notes.db`), /notes\.db .*"SQLite format 3"/);
    Deno.writeTextFileSync(`${dir}/tiny.db`, "SQLite");
    refusedWith(() => checkDatabaseFile(`${dir}/tiny.db`), /shorter than a database header/);
  }),
);

Deno.test(
  "a truncated file is refused, naming both sizes",
  withDir((dir) => {
    const path = makeDbFile(dir, "cut.db", ROWS);
    const bytes = Deno.readFileSync(path);
    Deno.writeFileSync(path, bytes.subarray(0, bytes.length - 4096 * 3));
    refusedWith(() => checkDatabaseFile(path, { immutable: true }), /truncated: .* pages/);
    Deno.writeFileSync(path, bytes.subarray(0, bytes.length - 100));
    refusedWith(() => checkDatabaseFile(path, { immutable: true }), /truncated|whole number/);
  }),
);

Deno.test(
  "a damaged page is found by quick_check; above the size cap the schema is still read",
  withDir((dir) => {
    const path = makeDbFile(dir, "damaged.db", ROWS);
    damagePage(path, 6);
    refusedWith(() => checkDatabaseFile(path, { quickCheckMaxBytes: 1 << 30 }), /quick_check/);
    // Over the cap only the header and schema are read, and both are intact.
    assert.equal(checkDatabaseFile(path, { quickCheckMaxBytes: 1 }).quickCheck, false);
    // A damaged schema page is found without quick_check.
    const schema = makeDbFile(dir, "schema.db", ROWS);
    const bytes = Deno.readFileSync(schema);
    bytes.fill(0xaa, 100, 4096);
    Deno.writeFileSync(schema, bytes);
    refusedWith(() => checkDatabaseFile(schema, { immutable: true }), /schema\.db .*malformed/);
  }),
);

Deno.test(
  "the service refuses to start on a damaged file, and so does the CLI",
  withDir(async (dir) => {
    const path = makeDbFile(dir, "shop.db", ROWS);
    damagePage(path, 6);
    {
      await using svc = new Service({ files: [path] });
      await assert.rejects(svc.invoke_startup(), CorruptDatabase);
    }
    const output = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--no-lock", CLI, path, "--get", "/shop.json"],
      stdout: "piped",
      stderr: "piped",
      env: { NO_COLOR: "1" },
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 1);
    assert.match(stderr, /shop\.db is not a usable SQLite database: PRAGMA quick_check found/);
    assert.doesNotMatch(stderr, /\n\s+at /, "no stack trace");
    // With the cap at 0 only the cheap checks run, and the damaged page is not read at start-up.
    await using cheap = new Service({ files: [path], settings: { startup_check_max_mb: 0 } });
    await cheap.invoke_startup();
  }),
);
