/**
 * Test helpers for publish providers: a folder of fake deployment tools to use as the whole
 * `PATH` (see fake_tool.ts), `vitrine` run with it, and a Dockerfile parser.
 */
import { join } from "node:path";

const FAKE_TOOL = new URL("./fake_tool.ts", import.meta.url).pathname;
const CLI = new URL("../../../cli.ts", import.meta.url).pathname;

/** One recorded call of a fake tool. */
export interface ToolCall {
  tool: string;
  args: string[];
  cwd: string;
  /** Copy of the folder the call read (build context, manifests), or null. */
  context: string | null;
}

/** A folder of fake tools and what they recorded. */
export interface FakeTools {
  /** Use as PATH. */
  bin: string;
  /** Every call so far, in order. */
  calls(): ToolCall[];
  /** Environment for `vitrine`: PATH, the log, and extra variables for the fakes. */
  env(extra?: Record<string, string>): Record<string, string>;
}

/** Creates fake executables named `tools` (an empty list gives a PATH with no tools at all). */
export function fakeTools(tools: string[]): FakeTools {
  const root = Deno.makeTempDirSync({ prefix: "vitrine-fake-tools-" });
  const bin = join(root, "bin");
  Deno.mkdirSync(bin);
  const log = join(root, "calls.jsonl");
  for (const tool of tools) {
    const path = join(bin, tool);
    Deno.writeTextFileSync(
      path,
      `#!/bin/sh\nexec "${Deno.execPath()}" run -A --no-lock "${FAKE_TOOL}" ${tool} "$@"\n`,
    );
    Deno.chmodSync(path, 0o755);
  }
  return {
    bin,
    calls() {
      try {
        return Deno.readTextFileSync(log).trim().split("\n").filter(Boolean).map((line) =>
          JSON.parse(line)
        );
      } catch {
        return [];
      }
    },
    env: (extra = {}) => ({ PATH: bin, FAKE_TOOLS_LOG: log, NO_COLOR: "1", ...extra }),
  };
}

/** Runs `vitrine ARGS` (from source) with exactly `env` as the extra environment. */
export async function vitrine(
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--no-lock", CLI, ...args],
    cwd,
    env,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

/** One Dockerfile instruction: its keyword and arguments (JSON form parsed into a list). */
export interface Instruction {
  keyword: string;
  /** The raw text after the keyword, continuation lines joined. */
  text: string;
  /** For JSON ("exec") form: the list; else null. */
  json: string[] | null;
}

/** Parses a Dockerfile into instructions (comments and blank lines dropped). */
export function parseDockerfile(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending = "";
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!pending && (line === "" || line.startsWith("#"))) continue;
    if (line.endsWith("\\")) {
      pending += line.slice(0, -1) + " ";
      continue;
    }
    const full = (pending + line).trim();
    pending = "";
    const space = full.indexOf(" ");
    const keyword = full.slice(0, space).toUpperCase();
    let rest = full.slice(space + 1).trim();
    let json: string[] | null = null;
    if (keyword === "HEALTHCHECK") rest = rest.replace(/^(--\S+\s+)*/, "");
    const body = keyword === "HEALTHCHECK" ? rest.replace(/^CMD\s+/, "") : rest;
    if (body.startsWith("[")) json = JSON.parse(body);
    instructions.push({ keyword, text: rest, json });
  }
  return instructions;
}

/** `ENV NAME="value"` lines as an object (values are JSON strings, as Vitrine writes them). */
export function dockerEnv(instructions: Instruction[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const { keyword, text } of instructions) {
    if (keyword !== "ENV") continue;
    const at = text.indexOf("=");
    env[text.slice(0, at)] = JSON.parse(text.slice(at + 1));
  }
  return env;
}
