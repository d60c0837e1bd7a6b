/**
 * A stand-in for `gcloud`, `flyctl`, `docker`, `podman` and `kubectl` in publish tests: appends
 * `{tool, args, cwd, context}` to the JSON-lines file `$FAKE_TOOLS_LOG`, copies the build
 * context (or manifests folder) it was given to `$FAKE_TOOLS_LOG.contexts/N/` as it was at that
 * moment (the provider may delete its temporary folder afterwards), and answers the few queries
 * the providers make. Run as `deno run -A fake_tool.ts TOOL ARGS...` by a shell wrapper.
 */
import { join } from "node:path";

const [tool, ...args] = Deno.args;
const log = Deno.env.get("FAKE_TOOLS_LOG")!;
const cwd = Deno.cwd();

/** The folder a command reads its input from, if any. */
function contextArg(): string | null {
  const command = args.filter((arg) => !arg.startsWith("-"));
  if ((tool === "docker" || tool === "podman") && args[0] === "build") return args.at(-1)!;
  if (tool === "gcloud" && args[0] === "builds") return args.at(-1)!;
  if ((tool === "flyctl" || tool === "fly") && command[0] === "deploy") return cwd;
  if (tool === "kubectl" && args[0] === "apply") return args[args.indexOf("-f") + 1];
  return null;
}

function copyDir(from: string, to: string): void {
  Deno.mkdirSync(to, { recursive: true });
  for (const entry of Deno.readDirSync(from)) {
    const source = join(from, entry.name);
    if (entry.isDirectory) copyDir(source, join(to, entry.name));
    else Deno.copyFileSync(source, join(to, entry.name));
  }
}

let context: string | null = null;
const source = contextArg();
if (source) {
  const base = `${log}.contexts`;
  Deno.mkdirSync(base, { recursive: true });
  context = join(base, String([...Deno.readDirSync(base)].length));
  copyDir(source, context);
}
Deno.writeTextFileSync(log, JSON.stringify({ tool, args, cwd, context }) + "\n", { append: true });

const line = args.join(" ");
if (tool === "gcloud" && line === "config get-value project") {
  console.log(Deno.env.get("FAKE_GCLOUD_PROJECT") ?? "fake-project");
}
if ((tool === "flyctl" || tool === "fly") && line === "apps list --json") {
  console.log(Deno.env.get("FAKE_FLY_APPS") ?? "[]");
}
const failing = Deno.env.get("FAKE_TOOLS_FAIL");
if (failing && `${tool} ${line}`.startsWith(failing)) {
  console.error(`${tool}: simulated failure`);
  Deno.exit(3);
}
