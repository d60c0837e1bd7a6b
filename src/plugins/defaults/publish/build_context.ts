/**
 * A Docker build context for publishing: the bundled Vitrine, the databases (served immutable,
 * with `vitrine inspect` data so start-up neither hashes nor counts them), the metadata with the
 * command line's title/licence/source/about fields, templates, plugins, static directories,
 * installed plugins, and a Dockerfile (see dockerfile.ts). `vitrine package` and every built-in
 * publish provider write it the same way.
 *
 * Layout inside the context (and under `/app` in the image): `vitrine.js`, `data/*.db`,
 * `inspect-data.json`, `metadata.json`, `templates/`, `plugins/`, `static/<mount>/`,
 * `installed/<plugin>`, `Dockerfile`.
 *
 * @module
 */
import { basename, join, resolve } from "node:path";
import { isPlainObject, loadMetadataFile, type MetadataDict } from "../../../config/metadata.ts";
import { inspectFiles } from "../../../db/inspect_files.ts";
import { dockerfile, IMAGE_PORT, RUN_VITRINE } from "./dockerfile.ts";
import {
  LITEFS_APP_PORT,
  LITEFS_MOUNT,
  LITEFS_PROXY_PORT,
  litefsStartScript,
  litefsYml,
} from "./litefs.ts";
import {
  METADATA_FIELDS,
  pluginSecretVariable,
  type PublishOptions,
  secretEnvironment,
  splitShellWords,
} from "./options.ts";
import { writeVitrineProgram } from "./vitrine_program.ts";

/** How to write a build context. */
export interface BuildContextOptions {
  /** Folder to write into; created when missing, and must be empty when it exists. */
  dir: string;
  /**
   * Put the secrets (`--secret`, `--plugin-secret`) into the Dockerfile as `ENV` lines. Anyone
   * who can pull the image can read them; providers that can pass secrets at deploy time
   * (Cloud Run, Fly, Kubernetes) leave this off and pass {@link BuildContext.secrets} instead.
   */
  bakeSecrets: boolean;
  /** Progress messages (default: console.log). */
  print?: (line: string) => void;
  /**
   * Serve the databases mutable from a LiteFS mount instead of immutable from the image (the
   * image ships them for the primary's first import; see litefs.ts).
   */
  litefs?: boolean;
}

/** What was written. */
export interface BuildContext {
  /** The folder (absolute). */
  dir: string;
  /** The `vitrine serve` arguments the image runs with. */
  serveArgs: string[];
  /** Environment variables the deployment must set (secrets not baked into the image). */
  secrets: Record<string, string>;
  /** Port Vitrine listens on inside the image. */
  port: number;
}

/** Checks `options` and writes the build context into `context.dir`. */
export async function writeBuildContext(
  options: PublishOptions,
  context: BuildContextOptions,
): Promise<BuildContext> {
  const print = context.print ?? ((line: string) => console.log(line));
  const checked = await check(options);
  const dir = resolve(context.dir);
  await prepareEmptyDir(dir);

  print(`Writing the build context in ${dir}`);
  print(`  vitrine.js: ${await writeVitrineProgram(join(dir, "vitrine.js"), options.branch)}`);
  const litefs = context.litefs ?? false;
  const port = litefs ? LITEFS_APP_PORT : IMAGE_PORT;
  const serveArgs = ["serve", "--host", "0.0.0.0", "--port", String(port)];

  await Deno.mkdir(join(dir, "data"));
  for (const file of options.files) {
    await Deno.copyFile(file, join(dir, "data", basename(file)));
    if (litefs) serveArgs.push(`${LITEFS_MOUNT}/${basename(file)}`);
    else serveArgs.push("-i", `data/${basename(file)}`);
  }
  if (!litefs) {
    const inspected = await inspectFiles(options.files);
    for (const entry of Object.values(inspected)) {
      entry.file = entry.file === null ? null : `data/${basename(entry.file)}`;
    }
    await writeJson(join(dir, "inspect-data.json"), inspected);
    serveArgs.push("--inspect-file", "inspect-data.json");
  }

  const metadata = await publishedMetadata(options);
  if (metadata) {
    await writeJson(join(dir, "metadata.json"), metadata);
    serveArgs.push("-m", "metadata.json");
  }
  if (options.template_dir) {
    await copyDir(options.template_dir, join(dir, "templates"));
    serveArgs.push("--template-dir", "templates");
  }
  if (options.plugins_dir) {
    await copyDir(options.plugins_dir, join(dir, "plugins"));
    serveArgs.push("--plugins-dir", "plugins");
  }
  for (const { mount, source } of checked.mounts) {
    await copyDir(source, join(dir, "static", mount));
    serveArgs.push("--static", `${mount}:static/${mount}`);
  }
  const installed = await installPlugins(options.install, dir);
  if (options.version_note) serveArgs.push("--version-note", options.version_note);
  for (const [name, value] of options.settings) serveArgs.push("--setting", name, value);
  if (options.extra_options) serveArgs.push(...splitShellWords(options.extra_options));

  const secrets = secretEnvironment(options);
  const env: Record<string, string> = {};
  if (installed.length) env.VITRINE_PLUGINS = installed.join(",");
  if (context.bakeSecrets) Object.assign(env, secrets);
  await Deno.writeTextFile(
    join(dir, "Dockerfile"),
    dockerfile({
      serveArgs,
      env,
      cachePlugins: installed.length > 0 || options.plugins_dir !== null,
      pluginsDir: options.plugins_dir ? "plugins" : null,
      litefs,
    }),
  );
  if (litefs) {
    const names = options.files.map((file) => basename(file));
    await Deno.writeTextFile(join(dir, "litefs.yml"), litefsYml(names));
    await Deno.writeTextFile(
      join(dir, "litefs-start.sh"),
      litefsStartScript(names, RUN_VITRINE, serveArgs),
    );
    await Deno.chmod(join(dir, "litefs-start.sh"), 0o755);
  }
  await Deno.writeTextFile(join(dir, ".dockerignore"), "Dockerfile\n.dockerignore\n");
  return {
    dir,
    serveArgs,
    secrets: context.bakeSecrets ? {} : secrets,
    port: litefs ? LITEFS_PROXY_PORT : IMAGE_PORT,
  };
}

/** Validates paths before anything is written; returns the parsed static mounts. */
async function check(options: PublishOptions) {
  if (options.files.length === 0) throw new Error("Name at least one database file to publish");
  const names = new Set<string>();
  for (const file of options.files) {
    if (!await isKind(file, "file")) throw new Error(`Database file not found: ${file}`);
    const name = basename(file);
    if (names.has(name)) throw new Error(`Two database files are named ${name}`);
    names.add(name);
  }
  if (options.metadata && !await isKind(options.metadata, "file")) {
    throw new Error(`Metadata file not found: ${options.metadata}`);
  }
  const folders = { "--template-dir": options.template_dir, "--plugins-dir": options.plugins_dir };
  for (const [flag, folder] of Object.entries(folders)) {
    if (folder && !await isKind(folder, "directory")) {
      throw new Error(`${flag} directory not found: ${folder}`);
    }
  }
  const mounts = [];
  for (const value of options.static) {
    const at = value.indexOf(":");
    const mount = value.slice(0, at).replace(/^\/+|\/+$/g, "");
    const source = value.slice(at + 1);
    if (at <= 0 || !/^[\w.-]+$/.test(mount) || !source) {
      throw new Error(`--static needs MOUNT:DIRECTORY (e.g. assets:./static), got "${value}"`);
    }
    if (!await isKind(source, "directory")) {
      throw new Error(`--static directory not found: ${source}`);
    }
    mounts.push({ mount, source });
  }
  for (const spec of options.install) {
    if (isLocal(spec) && !await isKind(spec, "any")) {
      throw new Error(`--install: no such plugin file or folder: ${spec}`);
    }
  }
  return { mounts };
}

/**
 * The metadata file merged with the command line's fields, with each `--plugin-secret` as a
 * `{"$env": VAR}` reference in the plugin's configuration; null when there is nothing to write.
 */
async function publishedMetadata(options: PublishOptions): Promise<MetadataDict | null> {
  const metadata: MetadataDict = options.metadata ? await loadMetadataFile(options.metadata) : {};
  for (const field of METADATA_FIELDS) {
    if (options[field] !== null) metadata[field] = options[field];
  }
  if (options.plugin_secret.length) {
    if (metadata.plugins !== undefined && !isPlainObject(metadata.plugins)) {
      throw new Error(
        "--plugin-secret needs the metadata's `plugins` to be plugin configuration (a mapping)",
      );
    }
    const plugins = (metadata.plugins ?? {}) as Record<string, Record<string, unknown>>;
    for (const [plugin, name] of options.plugin_secret) {
      plugins[plugin] = {
        ...plugins[plugin],
        [name]: { $env: pluginSecretVariable(plugin, name) },
      };
    }
    metadata.plugins = plugins;
  }
  return Object.keys(metadata).length ? metadata : null;
}

/** Copies local `--install` plugins into `installed/`; returns the specifiers for the image. */
async function installPlugins(specs: string[], dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const spec of specs) {
    if (!isLocal(spec)) {
      out.push(spec);
      continue;
    }
    const path = spec.startsWith("file:") ? new URL(spec).pathname : spec;
    const target = join(dir, "installed", basename(path));
    await Deno.mkdir(join(dir, "installed"), { recursive: true });
    if (await isKind(path, "directory")) await copyDir(path, target);
    else await Deno.copyFile(path, target);
    out.push(`./installed/${basename(path)}`);
  }
  return out;
}

function isLocal(spec: string): boolean {
  return !/^(npm|jsr|https?):/.test(spec);
}

async function prepareEmptyDir(dir: string): Promise<void> {
  try {
    for await (const _ of Deno.readDir(dir)) {
      throw new Error(`${dir} is not empty; name a new or empty folder for the build context`);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    await Deno.mkdir(dir, { recursive: true });
  }
}

async function copyDir(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const entry of Deno.readDir(from)) {
    const source = join(from, entry.name);
    if (entry.isDirectory) await copyDir(source, join(to, entry.name));
    else if (entry.isFile || entry.isSymlink) await Deno.copyFile(source, join(to, entry.name));
  }
}

async function isKind(path: string, kind: "file" | "directory" | "any"): Promise<boolean> {
  try {
    const info = await Deno.stat(path);
    return kind === "any" || (kind === "file" ? info.isFile : info.isDirectory);
  } catch {
    return false;
  }
}

async function writeJson(path: string, value: unknown): Promise<void> {
  await Deno.writeTextFile(path, JSON.stringify(value, null, 2) + "\n");
}
