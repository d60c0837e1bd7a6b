/** `vitrine inspect FILES…`: hashes, sizes and table counts, for `--inspect-file`. */
import type { Command } from "commander";
import { Service } from "../service.ts";

/** Adds the `inspect` command. */
export function addInspectCommand(program: Command): void {
  program.command("inspect")
    .description("Write hashes, sizes and row counts of database files as JSON")
    .argument("<files...>", "database files")
    .option("--inspect-file <file>", "write the JSON here instead of standard output")
    .action(async (files: string[], flags: { inspectFile?: string }) => {
      const data = await inspectFiles(files);
      const text = JSON.stringify(data, null, 2);
      if (flags.inspectFile) await Deno.writeTextFile(flags.inspectFile, text + "\n");
      else console.log(text);
    });
}

/** `{name: {hash, size, file, tables: {table: {count}}}}` for immutable copies of `files`. */
async function inspectFiles(files: string[]): Promise<Record<string, unknown>> {
  const svc = new Service({ immutables: files, settings: { num_sql_threads: 0 } });
  try {
    const out: Record<string, unknown> = {};
    for (const db of svc.databases.values()) {
      if (db.is_memory) continue;
      const tables: Record<string, { count: number }> = {};
      for (const table of await db.table_names()) {
        const sql = `select count(*) from [${table.replaceAll("]", "]]")}]`;
        const count = (await db.execute(sql, [], { custom_time_limit: 60_000 })).single_value();
        tables[table] = { count: Number(count) };
      }
      out[db.name] = { hash: db.hash, size: db.size, file: db.path, tables };
    }
    return out;
  } finally {
    await svc.close();
  }
}
