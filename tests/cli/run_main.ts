/** Runs the `vitrine` command in this process, for tests that read what it prints. */
import { main } from "../../src/cli/main.ts";

/** What an in-process run returned and printed (`console.log` and `console.error` lines). */
export interface MainRun {
  code: number;
  out: string;
  err: string;
}

/** Runs the CLI in-process with `args` and captures what it prints. */
export async function run(args: string[]): Promise<MainRun> {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  console.log = (...parts: unknown[]) => out.push(parts.join(" "));
  console.error = (...parts: unknown[]) => err.push(parts.join(" "));
  try {
    const code = await main(args);
    return { code, out: out.join("\n"), err: err.join("\n") };
  } finally {
    console.log = log;
    console.error = error;
  }
}
