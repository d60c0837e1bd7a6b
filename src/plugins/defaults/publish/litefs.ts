/**
 * The files of a LiteFS deployment (`vitrine publish fly --litefs`, docs/scaling.md): the
 * published databases become mutable and replicated, served from LiteFS's mount by every
 * machine; the primary takes the writes, the replicas send theirs on to it.
 *
 * - `litefs.yml`: LiteFS mounts `/litefs` (data on the `/var/lib/litefs` volume), elects the
 *   primary through Fly's Consul, and runs its HTTP proxy on the public port in front of
 *   Vitrine: the proxy sends writes to the primary (`fly-replay`) and holds a client's reads
 *   until the replica has caught up with that client's last write (its `__txid` cookie), which
 *   gives read-your-writes for the first database. Vitrine itself also sends writes on
 *   (`src/app/litefs.ts`), for requests the proxy passes through.
 * - `litefs-start.sh`: what LiteFS runs once the machine is primary or in sync with it: on the
 *   primary, each database shipped in the image is imported into LiteFS the first time; then
 *   Vitrine serves `/litefs/<db>`.
 * - The Dockerfile (`dockerfile.ts` with `litefs`): the `litefs` binary and FUSE, run as root
 *   (FUSE needs it), `litefs mount` as the entry point.
 *
 * @module
 */

/** Where LiteFS mounts the databases, and where it keeps its own data (a Fly volume). */
export const LITEFS_MOUNT = "/litefs";
export const LITEFS_DATA = "/var/lib/litefs";
/** LiteFS's proxy listens on the public port; Vitrine behind it. */
export const LITEFS_PROXY_PORT = 8080;
export const LITEFS_APP_PORT = 8081;
/** The LiteFS release the image takes its binary from. */
export const LITEFS_IMAGE = "flyio/litefs:0.5";

/** `litefs.yml` for databases named `names` (file names, e.g. `data.db`). */
export function litefsYml(names: string[]): string {
  return [
    "# Written by vitrine publish fly --litefs. LiteFS docs: https://fly.io/docs/litefs/",
    "fuse:",
    `  dir: "${LITEFS_MOUNT}"`,
    "data:",
    `  dir: "${LITEFS_DATA}"`,
    "exit-on-error: false",
    "",
    "# The public port: writes go to the primary, reads wait for the client's last write.",
    "proxy:",
    `  addr: ":${LITEFS_PROXY_PORT}"`,
    `  target: "localhost:${LITEFS_APP_PORT}"`,
    `  db: ${JSON.stringify(names[0])}`,
    '  passthrough: ["/-/static/*", "/-/static-plugins/*", "/-/health", "/-/health/live"]',
    "",
    "# Runs once this machine is the primary or has caught up with it.",
    "exec:",
    '  - cmd: "/app/litefs-start.sh"',
    "",
    "# The primary is elected through Consul (`fly consul attach` sets FLY_CONSUL_URL), among",
    "# the machines of the primary region.",
    "lease:",
    '  type: "consul"',
    '  advertise-url: "http://${HOSTNAME}.vm.${FLY_APP_NAME}.internal:20202"',
    "  candidate: ${FLY_REGION == PRIMARY_REGION}",
    "  promote: true",
    "  consul:",
    '    url: "${FLY_CONSUL_URL}"',
    '    key: "${FLY_APP_NAME}/litefs-primary"',
    "",
  ].join("\n");
}

/** A word for `sh`, in single quotes. */
function shellWord(word: string): string {
  return /^[\w./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'"'"'`)}'`;
}

/**
 * `litefs-start.sh`: imports the shipped databases on the primary (first start only), then
 * runs Vitrine with `serveArgs` (which name `/litefs/<db>`).
 */
export function litefsStartScript(names: string[], run: string[], serveArgs: string[]): string {
  const imports = names.map((name) =>
    `  [ -e ${LITEFS_MOUNT}/${shellWord(name)} ] || ` +
    `litefs import -name ${shellWord(name)} /app/data/${shellWord(name)}`
  );
  return [
    "#!/bin/sh",
    "# Written by vitrine publish fly --litefs; LiteFS runs it (exec in litefs.yml).",
    "set -e",
    `if [ ! -e ${LITEFS_MOUNT}/.primary ]; then`,
    "  # This machine is the primary: bring in the databases shipped in the image, once.",
    ...imports,
    "fi",
    "cd /app",
    `exec ${[...run, ...serveArgs].map(shellWord).join(" ")}`,
    "",
  ].join("\n");
}
