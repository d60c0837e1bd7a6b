/**
 * Running the deployment tools (`gcloud`, `flyctl`, `docker`, `kubectl`, ...): finding them on
 * `PATH` with a readable error when one is missing, printing every command before it runs (secret
 * values masked), and `--dry-run`, which prints the commands and runs none of them.
 *
 * @module
 */
import { basename, delimiter, join } from "node:path";

/** A tool a provider needs, described for the "not installed" message. */
export interface Tool {
  /** Executable names to try, in order (`["docker", "podman"]`). */
  names: string[];
  /** What it is, for the message: "the Google Cloud CLI". */
  label: string;
  /** Where to get it. */
  install: string;
}

/** One command a provider runs. */
export interface Step {
  /** Executable name or path. */
  cmd: string;
  args: string[];
  /** Working directory (default: the current one). */
  cwd?: string;
  /** Values to print as `***` (secrets passed on the command line). */
  secrets?: string[];
  /** Capture standard output instead of showing it (the result's `stdout`). */
  capture?: boolean;
}

/** The full path of the first of `names` found on `PATH`, or null. */
export function findExecutable(names: string[], path = Deno.env.get("PATH") ?? ""): string | null {
  for (const name of names) {
    for (const dir of path.split(delimiter).filter(Boolean)) {
      const candidate = join(dir, name);
      try {
        const info = Deno.statSync(candidate);
        if (info.isFile && ((info.mode ?? 0o111) & 0o111) !== 0) return candidate;
      } catch {
        // not in this directory
      }
    }
  }
  return null;
}

/**
 * The executable of `tool`, or an error saying what is missing, where to get it and that
 * `--dry-run` works without it. `command` names the Vitrine command for the message.
 */
export function requireTool(tool: Tool, command: string): string {
  const found = findExecutable(tool.names);
  if (found) return found;
  const names = tool.names.map((name) => `"${name}"`).join(" or ");
  throw new Error(
    `${command} needs ${tool.label} (${names}), which was not found on PATH. ` +
      `Install it (${tool.install}), or add --dry-run to only write the files and print the ` +
      "commands.",
  );
}

/** A command as it would be typed in a shell, with `secrets` replaced by `***`. */
export function formatCommand(step: Step): string {
  const mask = (arg: string) => {
    let shown = arg;
    for (const secret of step.secrets ?? []) {
      if (secret) shown = shown.split(secret).join("***");
    }
    return shown;
  };
  // Tools are run by full path; the short name reads better and pastes the same.
  const words = [basename(step.cmd), ...step.args].map((arg) => shellQuote(mask(arg)));
  const line = words.join(" ");
  return step.cwd ? `(cd ${shellQuote(step.cwd)} && ${line})` : line;
}

/** Quotes `word` for a POSIX shell when it needs it. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`;
}

/** Runs commands one after another, or only prints them. */
export class Runner {
  constructor(
    readonly dryRun: boolean,
    readonly print: (line: string) => void = (line) => console.log(line),
  ) {}

  /**
   * Prints `step` and runs it (unless dry-run); throws when it fails. Resolves to its standard
   * output when `capture` is set (an empty string in dry-run).
   */
  async run(step: Step): Promise<string> {
    this.print(`${this.dryRun ? "Would run" : "Running"}: ${formatCommand(step)}`);
    if (this.dryRun) return "";
    let result: Deno.CommandOutput;
    try {
      result = await new Deno.Command(step.cmd, {
        args: step.args,
        cwd: step.cwd,
        stdin: "null",
        stdout: step.capture ? "piped" : "inherit",
        stderr: "inherit",
      }).output();
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) {
        throw new Error(`${step.cmd} was not found (is it installed and on PATH?)`);
      }
      throw error;
    }
    if (!result.success) {
      throw new Error(`${formatCommand({ ...step, cwd: undefined })} failed (exit ${result.code})`);
    }
    return step.capture ? new TextDecoder().decode(result.stdout) : "";
  }
}
