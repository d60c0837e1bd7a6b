/**
 * `vitrine serve --processes N`: N copies on one port (SO_REUSEPORT), one secret, supervised.
 * Real processes, real sockets; each request on a connection of its own, so the kernel picks a
 * copy for each.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/connection.ts";
import { copyArgs, METRICS_DIR_ENV, processCount } from "../../src/cli/processes.ts";
import { CliExit } from "../../src/cli/exit.ts";
import { startVitrine, type VitrineProcess, waitFor } from "./processes.ts";
import { parsePrometheus, sumOf, valueOf } from "./prometheus.ts";

const PID_PLUGIN = new URL("../fixtures/plugins/process_id.ts", import.meta.url).pathname;
const linux = Deno.build.os === "linux";

function buildData(dir: string): string {
  const path = `${dir}/data.db`;
  const conn = Connection.open(path);
  conn.exec("create table items (id integer primary key, name text)");
  for (let i = 1; i <= 30; i++) conn.run("insert into items values (?, ?)", [i, `item ${i}`]);
  conn.close();
  return path;
}

/** GET on a connection of its own (a new client each time: no keep-alive reuse). */
async function fresh(url: string, headers: HeadersInit = {}): Promise<Response> {
  const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
  try {
    const response = await fetch(url, { headers, client, redirect: "manual" });
    await response.bytes().then((bytes) => {
      (response as Response & { body_: Uint8Array }).body_ = bytes;
    });
    return response;
  } finally {
    client.close();
  }
}

function bodyOf(response: Response): string {
  return new TextDecoder().decode((response as Response & { body_: Uint8Array }).body_);
}

/** Asks `/-/pid` until every one of `wanted` pids has answered (or 200 tries). */
async function answeringPids(server: VitrineProcess, wanted: number[]): Promise<Set<number>> {
  const seen = new Set<number>();
  for (let i = 0; i < 200 && !wanted.every((pid) => seen.has(pid)); i++) {
    seen.add(JSON.parse(bodyOf(await fresh(`${server.url}-/pid`))).pid);
  }
  return seen;
}

function pidsServing(output: string): Map<string, number> {
  const pids = new Map<string, number>();
  for (
    const [, copy, pid] of output.matchAll(/Vitrine process (\d+\/\d+) \(pid (\d+)\) is serving/g)
  ) {
    pids.set(copy, Number(pid));
  }
  return pids;
}

/**
 * Ends `server` and any copy it started that is still there (a copy left behind would keep the
 * output pipes open, and the test would wait for them forever).
 */
async function stopAll(server: VitrineProcess): Promise<void> {
  for (const pid of pidsServing(server.stdout()).values()) {
    if (alive(pid)) Deno.kill(pid, "SIGKILL");
  }
  await server.stop();
}

/** `vitrine serve ARGS --processes 2 -p 0` as a command, not started yet. */
function twoCopies(args: string[], options: Deno.CommandOptions = {}): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-lock",
      new URL("../../cli.ts", import.meta.url).pathname,
      "serve",
      ...args,
      "--processes",
      "2",
      "-p",
      "0",
    ],
    env: { NO_COLOR: "1" },
    ...options,
  });
}

function alive(pid: number): boolean {
  try {
    return !Deno.readTextFileSync(`/proc/${pid}/stat`).split(" ")[2].startsWith("Z");
  } catch {
    return false;
  }
}

/** The metrics folder the supervisor gave copy `pid` (from its environment, Linux). */
function metricsDirOf(pid: number): string {
  const environ = Deno.readTextFileSync(`/proc/${pid}/environ`).split("\0");
  const prefix = `${METRICS_DIR_ENV}=`;
  return environ.find((line) => line.startsWith(prefix))!.slice(prefix.length);
}

Deno.test({
  name:
    "--processes 2: two copies answer on one port, share the secret and ETags, come back when killed, stop together",
  ignore: !linux,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = Deno.makeTempDirSync();
    const path = buildData(dir);
    const server = await startVitrine([
      "-i",
      path,
      "--processes",
      "2",
      "--plugin",
      PID_PLUGIN,
      "--root",
      "--no-access-log",
    ], { env: { VITRINE_SECRET: "" } });
    try {
      await waitFor(() => pidsServing(server.stdout()).size === 2, "both copies to serve");
      const first = pidsServing(server.stdout());
      const pids = [first.get("1/2")!, first.get("2/2")!];
      assert.match(server.stdout(), new RegExp(`2 processes share ${server.url}`));
      assert.deepEqual([...await answeringPids(server, pids)].sort(), [...pids].sort());

      // One sign-in link, from the first copy; its cookie is honoured by both.
      const links = [...server.stdout().matchAll(/Sign in as root: (\S+)/g)];
      assert.equal(links.length, 1, server.stdout());
      const signIn = await fresh(links[0][1]);
      const cookie = signIn.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ");
      assert.match(cookie, /ds_actor=/);
      for (let i = 0; i < 30; i++) {
        const pid = JSON.parse(bodyOf(await fresh(`${server.url}-/pid`))).pid;
        const actor = JSON.parse(bodyOf(await fresh(`${server.url}-/actor.json`, { cookie })));
        assert.equal(actor.actor?.id, "root", `process ${pid} did not accept the cookie`);
      }

      // A page's ETag from one copy is answered 304 by the others.
      const page = await fresh(`${server.url}data/items.json`);
      const tag = page.headers.get("etag");
      assert.ok(tag, "an immutable table's JSON has an ETag");
      for (let i = 0; i < 10; i++) {
        const again = await fresh(`${server.url}data/items.json`, { "if-none-match": tag });
        assert.equal(again.status, 304);
      }

      // A copy that dies is started again; the port keeps answering meanwhile.
      Deno.kill(pids[0], "SIGKILL");
      await waitFor(() => /starting it again/.test(server.stderr()), "the supervisor to notice");
      await waitFor(
        () => pidsServing(server.stdout()).get("1/2") !== pids[0],
        "the new copy to serve",
      );
      const replaced = pidsServing(server.stdout()).get("1/2")!;
      assert.ok(alive(replaced));
      assert.ok((await answeringPids(server, [replaced, pids[1]])).has(replaced));

      // SIGTERM to the supervisor stops every copy, gracefully (exit 0).
      const status = await server.stop();
      assert.equal(status.code, 0, server.stderr());
      await waitFor(() => !alive(replaced) && !alive(pids[1]), "the copies to end", 10_000);
    } finally {
      await stopAll(server);
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "--processes: a copy that cannot start stops the others and the command fails with its message",
  ignore: !linux,
  async fn() {
    const dir = Deno.makeTempDirSync();
    const plugin = `${dir}/bad_startup.ts`;
    Deno.writeTextFileSync(
      plugin,
      'export const startup = () => { throw new Error("the archive is not mounted"); };\n',
    );
    const child = twoCopies([buildData(dir), "--plugin", plugin]);
    const { code, stderr } = await child.output();
    const text = new TextDecoder().decode(stderr);
    assert.equal(code, 1);
    assert.match(text, /the archive is not mounted/);
    assert.match(text, /could not start \(exit code 1\); stopped the others/);
    assert.doesNotMatch(text, /at .*\.ts:\d+/, "no stack trace");
    Deno.removeSync(dir, { recursive: true });
  },
});

Deno.test({
  name: "--processes: copies stop by themselves when their supervisor is killed",
  ignore: !linux,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = Deno.makeTempDirSync();
    const server = await startVitrine([buildData(dir), "--processes", "2", "--no-access-log"]);
    try {
      await waitFor(() => pidsServing(server.stdout()).size === 2, "both copies to serve");
      const pids = [...pidsServing(server.stdout()).values()];
      const shared = metricsDirOf(pids[0]);
      assert.ok(Deno.statSync(shared).isDirectory);
      server.kill("SIGKILL");
      await server.status;
      await waitFor(() => pids.every((pid) => !alive(pid)), "the orphaned copies to stop", 15_000);
      // The supervisor could not remove the copies' metrics folder: they did.
      assert.throws(() => Deno.statSync(shared), Deno.errors.NotFound);
    } finally {
      await stopAll(server);
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test("--processes takes a count or auto; each copy gets the arguments without it", () => {
  assert.equal(processCount(undefined), 1);
  assert.equal(processCount("3"), 3);
  assert.equal(processCount("auto"), navigator.hardwareConcurrency);
  for (const bad of ["0", "-1", "1.5", "two", "1000"]) {
    assert.throws(() => processCount(bad), CliExit, bad);
  }
  assert.deepEqual(
    copyArgs(["data.db", "--processes", "4", "-s", "a 1", "--processes=2", "--root"], 8123),
    ["data.db", "-s", "a 1", "--root", "--reuse-port", "--port", "8123"],
  );
});

Deno.test({
  name: "--processes: Ctrl+C (SIGINT to the terminal's whole process group) drains every copy once",
  ignore: !linux,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = Deno.makeTempDirSync();
    // The command in a process group of its own, as a terminal runs it in the foreground.
    const child = twoCopies([buildData(dir)], {
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
    const decoder = new TextDecoder();
    let out = "";
    const reading = child.stdout.pipeTo(
      new WritableStream({ write: (chunk) => void (out += decoder.decode(chunk)) }),
    );
    const errors = new Response(child.stderr).text();
    try {
      await waitFor(() => pidsServing(out).size === 2, "both copies to serve");
      Deno.kill(-child.pid, "SIGINT");
      const status = await child.status;
      await reading;
      const stderr = await errors;
      assert.equal(status.code, 0, stderr);
      assert.equal(out.match(/is stopping \(SIGINT\)/g)?.length, 2, out);
      assert.doesNotMatch(stderr, /again, stopping now/);
    } finally {
      for (const pid of pidsServing(out).values()) if (alive(pid)) Deno.kill(pid, "SIGKILL");
      if (alive(child.pid)) Deno.kill(child.pid, "SIGKILL");
      Deno.removeSync(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "--processes 2: /-/metrics on either copy answers for both, each series labelled process",
  ignore: !linux,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = Deno.makeTempDirSync();
    const path = buildData(dir);
    const metadata = `${dir}/metadata.json`;
    Deno.writeTextFileSync(metadata, JSON.stringify({ permissions: { "view-metrics": true } }));
    const server = await startVitrine([
      "-i",
      path,
      "--processes",
      "2",
      "-m",
      metadata,
      "--plugin",
      PID_PLUGIN,
      "--no-access-log",
    ]);
    try {
      await waitFor(() => pidsServing(server.stdout()).size === 2, "both copies to serve");
      const pids = [...pidsServing(server.stdout()).values()];
      await answeringPids(server, pids);
      const shared = metricsDirOf(pids[0]);
      assert.ok(Deno.statSync(shared).isDirectory);
      for (let i = 0; i < 20; i++) {
        assert.equal((await fresh(`${server.url}data/items.json`)).status, 200);
      }
      // Scrapes land on either copy; each answers for both (the other's figures a second old
      // at most), so the table pages add up to 20 whichever copy answers.
      const scrape = async () => {
        const response = await fresh(`${server.url}-/metrics`);
        assert.equal(response.status, 200);
        return parsePrometheus(bodyOf(response));
      };
      await waitFor(async () => {
        const metrics = await scrape();
        return sumOf(metrics, "vitrine_http_requests_total", { kind: "table" }) === 20;
      }, "both copies' table requests in one scrape");
      // Each copy has written its figures since the last table request once a second has
      // passed: from then on every scrape, whichever copy answers, counts all 20.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      for (let i = 0; i < 6; i++) {
        const metrics = await scrape();
        assert.equal(sumOf(metrics, "vitrine_http_requests_total", { kind: "table" }), 20);
        for (const process of ["1", "2"]) {
          assert.equal(valueOf(metrics, "vitrine_ready", { process }), 1, `process ${process}`);
          assert.ok(
            valueOf(metrics, "vitrine_http_requests_total", { process, kind: "table" }) > 0,
            `process ${process} answered some of the 20 table requests`,
          );
        }
      }
      const status = await server.stop();
      assert.equal(status.code, 0, server.stderr());
      assert.throws(() => Deno.statSync(shared), Deno.errors.NotFound, "the supervisor cleans up");
    } finally {
      await stopAll(server);
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
