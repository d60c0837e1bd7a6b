import assert from "node:assert/strict";
import { pathExists } from "../../src/util/file_exists.ts";

Deno.test("pathExists: files, folders and links that lead somewhere; never throws", () => {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-exists-" });
  try {
    assert.equal(pathExists(`${dir}/.primary`), false);
    Deno.writeTextFileSync(`${dir}/.primary`, "host\n");
    assert.equal(pathExists(`${dir}/.primary`), true);
    assert.equal(pathExists(dir), true);
    // Names beyond ASCII are passed as UTF-8.
    Deno.writeTextFileSync(`${dir}/données é.db`, "");
    assert.equal(pathExists(`${dir}/données é.db`), true);
    assert.equal(pathExists(`${dir}/données e.db`), false);
    Deno.symlinkSync(`${dir}/.primary`, `${dir}/to-primary`);
    Deno.symlinkSync(`${dir}/nowhere`, `${dir}/dangling`);
    assert.equal(pathExists(`${dir}/to-primary`), true);
    assert.equal(pathExists(`${dir}/dangling`), false);
    assert.equal(pathExists(`${dir}/.primary/inside`), false);
    assert.equal(pathExists(`${dir}/missing/.primary`), false);
    Deno.removeSync(`${dir}/.primary`);
    assert.equal(pathExists(`${dir}/.primary`), false);
    assert.equal(pathExists(""), false);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
