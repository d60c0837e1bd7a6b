import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { withTempDir } from "./helpers.ts";

// A minimal extension adding answer() = 42, compiled on the fly when a C compiler is present.
const EXTENSION_SOURCE = `
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
static void answer(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc; (void)argv;
  sqlite3_result_int(ctx, 42);
}
int vitrine_answer_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_function(db, "answer", 0, SQLITE_UTF8, 0, answer, 0, 0);
}
`;

function haveCompiler(): boolean {
  try {
    return new Deno.Command("cc", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success && Deno.statSync("/usr/include/sqlite3ext.h").isFile;
  } catch {
    return false;
  }
}

Deno.test({
  name: "loadExtension loads a compiled extension with an explicit entry point",
  ignore: !haveCompiler(),
  fn: async () => {
    await withTempDir(async (dir) => {
      await Deno.writeTextFile(`${dir}/answer.c`, EXTENSION_SOURCE);
      const build = await new Deno.Command("cc", {
        args: ["-shared", "-fPIC", "-o", `${dir}/answer.so`, `${dir}/answer.c`],
      }).output();
      assert.ok(build.success, new TextDecoder().decode(build.stderr));
      const conn = Connection.open(":memory:");
      assert.throws(() => conn.query("select answer()"), { message: "no such function: answer" });
      conn.loadExtension(`${dir}/answer.so`, "vitrine_answer_init");
      assert.deepEqual(conn.query("select answer()").rows, [[42]]);
      assert.throws(() => conn.loadExtension(`${dir}/answer.so`, "no_such_entry"), /no_such_entry/);
      conn.close();
    });
  },
});
