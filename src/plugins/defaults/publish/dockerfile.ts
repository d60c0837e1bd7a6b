/**
 * The Dockerfile of a build context: the official Deno image (Debian variant, the Deno version
 * that writes it), SQLite from Debian, the files owned by and run as the image's non-root `deno`
 * user, every plugin and its dependencies cached at build time so the container needs no
 * network (`--cached-only`), the V8 flags that bound the server's memory (`util/v8_flags.ts`:
 * Cloud Run's default container has 512 MB), and a health check on `/-/health`. With LiteFS
 * (`litefs.ts`) the image also holds the `litefs` binary and FUSE, and `litefs mount` runs Vitrine.
 *
 * @module
 */
import { LITEFS_IMAGE, LITEFS_PROXY_PORT } from "./litefs.ts";
import { V8_FLAGS_OPTION } from "../../../util/v8_flags.ts";

/** The port Vitrine listens on inside the image. */
export const IMAGE_PORT = 8001;

/** What goes into the Dockerfile. */
export interface DockerfileOptions {
  /** `vitrine serve` arguments (after the program). */
  serveArgs: string[];
  /** Environment baked into the image (`VITRINE_PLUGINS`, and secrets when asked to). */
  env: Record<string, string>;
  /** Plugins to import once at build time, so they and their dependencies are cached. */
  cachePlugins: boolean;
  /** `--plugins-dir` inside the image, for that build-time import. */
  pluginsDir: string | null;
  /** Deno version of the base image (default: the running Deno's). */
  denoVersion?: string;
  /** LiteFS runs Vitrine (`litefs.yml` and `litefs-start.sh` are in the context). */
  litefs?: boolean;
}

/** How the image runs Vitrine (before the `serve` arguments). */
export const RUN_VITRINE = [
  "deno",
  "run",
  "-A",
  "--cached-only",
  V8_FLAGS_OPTION,
  "/app/vitrine.js",
];

/** The Dockerfile text. */
export function dockerfile(options: DockerfileOptions): string {
  const version = options.denoVersion ?? Deno.version.deno;
  const litefs = options.litefs ?? false;
  const packages = litefs ? "libsqlite3-0 fuse3 ca-certificates" : "libsqlite3-0";
  const lines = [
    "# Written by Vitrine. Build with: docker build -t NAME .",
    ...(litefs ? [`FROM ${LITEFS_IMAGE} AS litefs`] : []),
    `FROM denoland/deno:debian-${version}`,
    "",
    litefs
      ? "# Vitrine reads SQLite through the system library; LiteFS needs FUSE."
      : "# Vitrine reads SQLite through the system library.",
    "RUN apt-get update \\",
    `  && apt-get install -y --no-install-recommends ${packages} \\`,
    "  && rm -rf /var/lib/apt/lists/*",
  ];
  if (litefs) {
    lines.push(
      "COPY --from=litefs /usr/local/bin/litefs /usr/local/bin/litefs",
      "",
      "# LiteFS mounts FUSE, which needs root: no USER line.",
      "WORKDIR /app",
      "COPY . /app",
      "COPY litefs.yml /etc/litefs.yml",
      "RUN chmod +x /app/litefs-start.sh",
    );
  } else {
    lines.push("", "WORKDIR /app", "COPY --chown=deno:deno . /app", "USER deno");
  }
  const env = Object.entries(options.env);
  if (env.length) {
    lines.push("");
    for (const [name, value] of env) lines.push(`ENV ${name}=${JSON.stringify(value)}`);
  }
  lines.push("", "# Compile Vitrine and cache it in DENO_DIR.", "RUN deno cache /app/vitrine.js");
  if (options.cachePlugins) {
    const list = ["deno", "run", "-A", "/app/vitrine.js", "plugins"];
    if (options.pluginsDir) list.push("--plugins-dir", options.pluginsDir);
    lines.push(
      "",
      "# Import every plugin once: they and their npm/remote dependencies land in DENO_DIR,",
      "# so the container runs with --cached-only and no network.",
      `RUN ${list.join(" ")} > /dev/null`,
    );
  }
  if (litefs) {
    lines.push(
      "",
      `EXPOSE ${LITEFS_PROXY_PORT}`,
      "# LiteFS mounts /litefs, then runs litefs-start.sh (exec in litefs.yml), which runs",
      "# Vitrine; signals reach Vitrine through it, so a stop drains the server.",
      `ENTRYPOINT ${JSON.stringify(["litefs", "mount"])}`,
      "",
    );
    return lines.join("\n");
  }
  lines.push(
    "",
    `EXPOSE ${IMAGE_PORT}`,
    "HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \\",
    `  CMD ${JSON.stringify(["deno", "eval", healthCheckScript()])}`,
    "",
    "# tini (in the base image) forwards signals, so docker stop drains the server.",
    `ENTRYPOINT ${JSON.stringify(["/tini", "--", ...RUN_VITRINE])}`,
    `CMD ${JSON.stringify(options.serveArgs)}`,
    "",
  );
  return lines.join("\n");
}

/** The health check: exit 0 when `/-/health` answers 200 (ready). */
function healthCheckScript(): string {
  return `const r = await fetch("http://127.0.0.1:${IMAGE_PORT}/-/health"); ` +
    "Deno.exit(r.ok ? 0 : 1);";
}
