/** Runs the `vitrine` command from source in a subprocess, for tests of the command line. */

const CLI = new URL("../../cli.ts", import.meta.url).pathname;

/** What a finished `vitrine` run printed and returned. */
export interface VitrineRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `vitrine ARGS` (in `cwd` when given); resolves once it exits. */
export async function vitrine(args: string[], cwd?: string): Promise<VitrineRun> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", CLI, ...args],
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}
