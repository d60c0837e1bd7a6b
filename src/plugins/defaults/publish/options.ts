/**
 * The options every publish provider (and `vitrine package`) understands, under the spec's names
 * (SPEC `publish_subcommand`: "Common options passed"), converted from what commander parses.
 *
 * @module
 */

/** A provider's common options, with the meaning they have for `vitrine serve`. */
export interface PublishOptions {
  /** Database files to publish (served immutable in the image). */
  files: string[];
  /** Metadata file (JSON or YAML), copied into the image. */
  metadata: string | null;
  /** More `vitrine serve` options for the image, as one shell-style string. */
  extra_options: string | null;
  /** Build the image's Vitrine from this git branch (or any ref) of the source checkout. */
  branch: string | null;
  /** `--template-dir` copied into the image. */
  template_dir: string | null;
  /** `--plugins-dir` copied into the image. */
  plugins_dir: string | null;
  /** `--static MOUNT:DIR` directories copied into the image. */
  static: string[];
  /** Plugins to install in the image: `npm:`/`jsr:`/`https:` specifiers or local paths. */
  install: string[];
  /** `[plugin, name, value]`: plugin configuration secrets, passed as environment variables. */
  plugin_secret: [string, string, string][];
  /** Note shown next to the version on `/-/versions`. */
  version_note: string | null;
  /** Secret for signed cookies and tokens (`VITRINE_SECRET`). */
  secret: string | null;
  /** Metadata fields set (over the metadata file's). */
  title: string | null;
  license: string | null;
  license_url: string | null;
  source: string | null;
  source_url: string | null;
  about: string | null;
  about_url: string | null;
  /** `[name, value]` settings (`vitrine package --setting`). */
  settings: [string, string][];
}

/** The metadata fields a command-line option may set. */
export const METADATA_FIELDS = [
  "title",
  "license",
  "license_url",
  "source",
  "source_url",
  "about",
  "about_url",
] as const;

/** Values joined with NUL by the CLI's argument pre-processing (`-s NAME VALUE`). */
const JOINED = "\u0000";

/** Converts commander's `(files, flags)` into {@link PublishOptions}. */
export function publishOptionsFrom(
  files: string[],
  flags: Record<string, unknown>,
): PublishOptions {
  const text = (key: string) => typeof flags[key] === "string" ? flags[key] as string : null;
  const list = (key: string) => Array.isArray(flags[key]) ? flags[key] as string[] : [];
  return {
    files,
    metadata: text("metadata"),
    extra_options: text("extraOptions"),
    branch: text("branch"),
    template_dir: text("templateDir"),
    plugins_dir: text("pluginsDir"),
    static: list("static"),
    install: list("install"),
    plugin_secret: list("pluginSecret").map((joined) => {
      const parts = joined.split(JOINED);
      if (parts.length !== 3 || parts.some((part) => part === "" || /^--?[a-z]/i.test(part))) {
        throw new Error(
          "--plugin-secret needs three values: PLUGIN NAME VALUE, e.g. " +
            "--plugin-secret vitrine-auth-github client_secret xyz",
        );
      }
      return parts as [string, string, string];
    }),
    version_note: text("versionNote"),
    secret: text("secret"),
    title: text("title"),
    license: text("license"),
    license_url: text("license_url") ?? text("licenseUrl"),
    source: text("source"),
    source_url: text("source_url") ?? text("sourceUrl"),
    about: text("about"),
    about_url: text("about_url") ?? text("aboutUrl"),
    settings: list("setting").map((joined) => {
      const [name, value] = joined.split(JOINED);
      if (value === undefined) throw new Error(`--setting ${name} needs a value`);
      return [name, value];
    }),
  };
}

/** The environment variable carrying a `--plugin-secret` value: `VITRINE_PLUGIN_<PLUGIN>_<NAME>`. */
export function pluginSecretVariable(plugin: string, name: string): string {
  const upper = (text: string) => text.toUpperCase().replace(/[^A-Z0-9]+/g, "_");
  return `VITRINE_PLUGIN_${upper(plugin)}_${upper(name)}`;
}

/** The secrets of `options` as environment variables (`VITRINE_SECRET`, plugin secrets). */
export function secretEnvironment(options: PublishOptions): Record<string, string> {
  const env: Record<string, string> = {};
  if (options.secret) env.VITRINE_SECRET = options.secret;
  for (const [plugin, name, value] of options.plugin_secret) {
    env[pluginSecretVariable(plugin, name)] = value;
  }
  return env;
}

/**
 * Splits a shell-style option string (`--extra-options "--setting x 'a b'"`) into arguments:
 * whitespace separates, single and double quotes group, backslash escapes.
 */
export function splitShellWords(text: string): string[] {
  const words: string[] = [];
  let word = "";
  let started = false;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quote) {
      if (char === quote) quote = null;
      else if (char === "\\" && quote === '"' && i + 1 < text.length) word += text[++i];
      else word += char;
    } else if (char === "'" || char === '"') {
      quote = char;
      started = true;
    } else if (char === "\\" && i + 1 < text.length) {
      word += text[++i];
      started = true;
    } else if (/\s/.test(char)) {
      if (started) words.push(word);
      word = "";
      started = false;
    } else {
      word += char;
      started = true;
    }
  }
  if (quote) throw new Error(`Unclosed ${quote} in: ${text}`);
  if (started) words.push(word);
  return words;
}
