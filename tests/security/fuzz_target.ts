/**
 * The server the fuzzer attacks: the shop database (mutable, with its canned queries, one of them
 * writable), an immutable copy, `--crossdb` for `/_memory`, template debugging on so
 * that its code paths are reached too, and one table holding a 3 MB BLOB. (`trace_debug` stays
 * off: its traces show where the server's source files are, which is what that switch is for.)
 *
 * @module
 */

import { buildShopDb, SHOP_METADATA } from "../fixtures/shop.ts";
import { Connection } from "../../src/sqlite/mod.ts";
import { type ServerProcess, startServer } from "./server_process.ts";

/** A running fuzz target and the folder holding its files. */
export interface FuzzTarget {
  server: ServerProcess;
  dir: string;
  /** Stops the server and removes the folder. */
  close(): Promise<void>;
}

/**
 * Builds the databases and starts the server (extra CLI arguments appended; `denoFlags`, when
 * given, replace the shipped V8 flags passed to `deno run`).
 */
export async function startFuzzTarget(
  extraArgs: string[] = [],
  denoFlags?: string[],
): Promise<FuzzTarget> {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-fuzz-" });
  const shop = buildShopDb(dir);
  {
    using conn = Connection.open(shop);
    conn.exec("create table files (id integer primary key, name text, data blob)");
    conn.run("insert into files (name, data) values ('big.bin', zeroblob(3000000))");
    conn.run("insert into files (name, data) values ('small.bin', x'0102')");
  }
  Deno.copyFileSync(shop, `${dir}/frozen.db`);
  Deno.writeTextFileSync(`${dir}/metadata.json`, JSON.stringify(SHOP_METADATA));
  const server = await startServer([
    shop,
    "-i",
    `${dir}/frozen.db`,
    "-m",
    `${dir}/metadata.json`,
    "--crossdb",
    "-s",
    "template_debug",
    "1",
    ...extraArgs,
  ], denoFlags);
  return {
    server,
    dir,
    async close() {
      await server.stop();
      Deno.removeSync(dir, { recursive: true });
    },
  };
}
