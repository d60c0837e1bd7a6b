/**
 * `deno task publish [-- --dry-run]`: publishes the library to JSR with Vitrine's templates and
 * static files embedded, so the package renders pages when it is imported over HTTPS (where
 * nothing can be read from disk next to the code).
 *
 * It copies the files `deno.json`'s `publish.include` names into a temporary folder, writes the
 * generated `src/util/embedded_assets.ts` there (the same module `scripts/bundle.ts` builds) and
 * runs `deno publish` in that copy with the arguments given. The source tree is never modified.
 *
 * @module
 */
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { embeddedAssetsModule } from "./bundle.ts";

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** Copies the publishable files to a new folder with the assets embedded; returns the folder. */
export async function publishableCopy(root = ROOT): Promise<string> {
  const config = JSON.parse(await Deno.readTextFile(join(root, "deno.json")));
  const include: string[] = config.publish?.include ?? [];
  const copy = await Deno.makeTempDir({ prefix: "vitrine-publish-" });
  for (const entry of include) {
    await copyPath(join(root, entry), join(copy, entry));
  }
  await Deno.writeTextFile(
    join(copy, "src", "util", "embedded_assets.ts"),
    await embeddedAssetsModule(root),
  );
  return copy;
}

async function copyPath(from: string, to: string): Promise<void> {
  const info = await Deno.stat(from);
  if (info.isDirectory) {
    await Deno.mkdir(to, { recursive: true });
    for await (const entry of Deno.readDir(from)) {
      await copyPath(join(from, entry.name), join(to, entry.name));
    }
  } else {
    await Deno.mkdir(dirname(to), { recursive: true });
    await Deno.copyFile(from, to);
  }
}

if (import.meta.main) {
  const copy = await publishableCopy();
  console.log(`Publishing from ${relative(Deno.cwd(), copy) || copy} (assets embedded)`);
  try {
    const status = await new Deno.Command(Deno.execPath(), {
      args: ["publish", ...Deno.args],
      cwd: copy,
      stdout: "inherit",
      stderr: "inherit",
    }).spawn().status;
    Deno.exitCode = status.code;
  } finally {
    await Deno.remove(copy, { recursive: true });
  }
}
