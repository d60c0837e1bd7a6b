/** `vitrine inspect FILES…`: hashes, sizes and table counts, for `--inspect-file`. */
import type { Command } from "commander";
import { inspectFiles } from "../db/inspect_files.ts";

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
