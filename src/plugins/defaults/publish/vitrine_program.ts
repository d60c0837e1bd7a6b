/**
 * The Vitrine an image runs: one bundled file, `vitrine.js`, in the build context.
 *
 * - Running from the bundle: a copy of the running file.
 * - Running from a source checkout: built with `scripts/bundle.ts` (what `deno task bundle` runs).
 * - `--branch REF`: built from that git branch (or tag, or commit) of the checkout.
 *
 * @module
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assetsEmbedded, sourceRoot } from "../../../util/assets.ts";

/** Writes the bundled Vitrine to `target`; returns a sentence saying where it came from. */
export async function writeVitrineProgram(target: string, branch: string | null): Promise<string> {
  const root = sourceRoot();
  if (branch) {
    if (!root) {
      throw new Error("--branch needs Vitrine to run from a git checkout of its source");
    }
    await bundleFromBranch(root, branch, target);
    return `Vitrine bundled from branch ${branch}`;
  }
  if (root && await exists(join(root, "scripts", "bundle.ts"))) {
    await bundleSourceTree(root, target);
    return "Vitrine bundled from the source tree";
  }
  const main = Deno.mainModule;
  if (assetsEmbedded() && main.startsWith("file:") && /\.m?js$/.test(main)) {
    await Deno.copyFile(fileURLToPath(main), target);
    return "a copy of the running Vitrine bundle";
  }
  throw new Error(
    "Cannot put Vitrine into the image from here: run this command from the bundle " +
      "(deno run -A vitrine.js) or from a source checkout (deno run -A cli.ts).",
  );
}

async function bundleSourceTree(root: string, target: string): Promise<void> {
  await run(Deno.execPath(), [
    "run",
    "-A",
    "--no-lock",
    join(root, "scripts", "bundle.ts"),
    "--output",
    target,
  ], root);
}

async function bundleFromBranch(root: string, branch: string, target: string): Promise<void> {
  const checkout = await Deno.makeTempDir({ prefix: "vitrine-branch-" });
  try {
    const archive = join(checkout, "source.tar");
    await run("git", ["archive", "--format=tar", `--output=${archive}`, branch], root);
    await run("tar", ["-xf", archive, "-C", checkout], root);
    if (!await exists(join(checkout, "scripts", "bundle.ts"))) {
      throw new Error(`Branch ${branch} has no scripts/bundle.ts to build Vitrine with`);
    }
    await bundleSourceTree(checkout, target);
  } finally {
    await Deno.remove(checkout, { recursive: true });
  }
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  let output: Deno.CommandOutput;
  try {
    output = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) throw new Error(`${cmd} is not installed`);
    throw error;
  }
  if (!output.success) {
    const message = new TextDecoder().decode(output.stderr).trim();
    const status = output.signal ? `signal ${output.signal}` : `exit ${output.code}`;
    throw new Error(`${cmd} ${args[0]} failed (${status})${message ? `: ${message}` : ""}`);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}
