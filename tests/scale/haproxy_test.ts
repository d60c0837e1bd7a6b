/**
 * Three replicas behind a real HAProxy (round-robin), sharing one mutable file and one secret:
 * a visitor's whole journey goes through the balancer, each step answered by a different replica
 * than the one that gave the client what it sends back (cookies, tokens, `_next`, the root link).
 * Ignored, with a message, when Debian's `haproxy` is not installed (CI installs it).
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/connection.ts";
import {
  haproxyPath,
  startHaproxy,
  startVitrine,
  type VitrineProcess,
  waitFor,
} from "./processes.ts";
import { parsePrometheus, sumOf } from "./prometheus.ts";

const HAPROXY = haproxyPath();
if (!HAPROXY) {
  console.warn(
    "HAProxy scale-out test ignored: no haproxy binary found (apt-get install haproxy)",
  );
}

const SECRET = "shared-by-every-replica";

/** A database with 45 items to page through, notes for a canned write, hits for the API. */
function buildData(dir: string): string {
  const path = `${dir}/data.db`;
  const conn = Connection.open(path);
  conn.exec(`
    create table items (id integer primary key, name text);
    create table notes (id integer primary key, body text);
    create table hits (n integer, replica text);
  `);
  for (let i = 1; i <= 45; i++) conn.run("insert into items values (?, ?)", [i, `item ${i}`]);
  conn.close();
  return path;
}

const METADATA = {
  databases: {
    data: {
      queries: {
        add_note: {
          sql: "insert into notes (body) values (:body)",
          write: true,
          on_success_message: "Your note was saved",
        },
      },
    },
  },
};

/** A tiny cookie jar: what the balancer's answers set, sent back on the next requests. */
class Jar {
  cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(";");
      const eq = pair.indexOf("=");
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "";
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join("; ");
  }
}

Deno.test({
  name: "three replicas behind HAProxy: a whole journey and 50 concurrent writes (needs haproxy)",
  ignore: !HAPROXY,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vitrine-haproxy-" });
    const replicas: VitrineProcess[] = [];
    let balancer: Awaited<ReturnType<typeof startHaproxy>> | null = null;
    try {
      const db = buildData(dir);
      await Deno.writeTextFile(`${dir}/metadata.json`, JSON.stringify(METADATA));
      // An immutable copy too: its pages carry ETags, the same on every replica.
      const reference = `${dir}/reference.db`;
      await Deno.copyFile(db, reference);
      const args = [db, "-i", reference, "-m", `${dir}/metadata.json`, "--root"];
      replicas.push(
        ...await Promise.all(
          [1, 2, 3].map(() => startVitrine(args, { env: { VITRINE_SECRET: SECRET } })),
        ),
      );
      balancer = await startHaproxy(dir, replicas.map((r) => r.port));
      const base = balancer.url.replace(/\/$/, "");
      const jar = new Jar();
      /** One request through the balancer; returns the answer and the replica that gave it. */
      const visit = async (path: string, init: RequestInit = {}) => {
        const headers = new Headers(init.headers);
        if (jar.cookies.size) headers.set("cookie", jar.header());
        const response = await fetch(base + path, { redirect: "manual", ...init, headers });
        jar.take(response);
        const text = await response.text();
        return { response, text, by: response.headers.get("x-served-by") ?? "?" };
      };

      // Browse: the home page, the database, a table page.
      const home = await visit("/");
      assert.equal(home.response.status, 200);
      assert.match(home.text, /data/);
      const database = await visit("/data");
      assert.equal(database.response.status, 200);
      assert.match(database.text, /items/);
      const table = await visit("/data/items");
      assert.match(table.text, /item 1\b/);
      assert.deepEqual(
        new Set([home.by, database.by, table.by]),
        new Set(["r1", "r2", "r3"]),
        "round-robin: three requests, three replicas",
      );

      // A tag one replica gave is answered 304 by the next two.
      const tagged = await visit("/reference/items.json?_size=5");
      const tag = tagged.response.headers.get("etag");
      assert.ok(tag, "an immutable page has an ETag");
      const revalidations = [];
      for (let i = 0; i < 2; i++) {
        revalidations.push(
          await visit("/reference/items.json?_size=5", { headers: { "if-none-match": tag } }),
        );
      }
      assert.deepEqual(revalidations.map((r) => r.response.status), [304, 304]);
      assert.equal(new Set([tagged.by, ...revalidations.map((r) => r.by)]).size, 3);

      // Paginate with _next: every page from whichever replica comes next.
      const seen: number[] = [];
      const pageServers = new Set<string>();
      let next: string | null = "/data/items.json?_size=10";
      while (next) {
        const page = await visit(next);
        assert.equal(page.response.status, 200, page.text);
        const body = JSON.parse(page.text);
        seen.push(...body.rows.map((row: { id: number }) => row.id));
        pageServers.add(page.by);
        next = body.next
          ? `/data/items.json?_size=10&_next=${encodeURIComponent(body.next)}`
          : null;
      }
      assert.deepEqual(seen, Array.from({ length: 45 }, (_, i) => i + 1));
      assert.equal(pageServers.size, 3);

      // Sign in with a root link that another replica printed than the one it reaches.
      const probe = await visit("/-/versions.json");
      const nextReplica = `r${(Number(probe.by.slice(1)) % 3) + 1}`;
      const printer = replicas.findIndex((_, i) => `r${i + 1}` !== nextReplica);
      const link = /Sign in as root: http:\/\/127\.0\.0\.1:\d+(\/-\/auth-token\?token=\S+)/
        .exec(replicas[printer].stdout())![1];
      const signIn = await visit(link);
      assert.equal(signIn.response.status, 302, signIn.text);
      assert.equal(signIn.by, nextReplica);
      assert.notEqual(signIn.by, `r${printer + 1}`);
      assert.ok(jar.cookies.has("ds_actor"));
      for (let i = 0; i < 3; i++) {
        const actor = await visit("/-/actor.json");
        assert.deepEqual(
          JSON.parse(actor.text),
          { ok: true, actor: { id: "root" } },
          `on ${actor.by}`,
        );
      }

      // A writable canned query: the form's CSRF token from one replica, the POST to the next,
      // the flash message shown by a third.
      const form = await visit("/data/add_note");
      assert.equal(form.response.status, 200);
      const csrftoken = /name="csrftoken" value="([^"]+)"/.exec(form.text)![1];
      const posted = await visit("/data/add_note", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ body: "written through HAProxy", csrftoken }),
      });
      assert.equal(posted.response.status, 302, posted.text);
      assert.notEqual(posted.by, form.by);
      const after = await visit(posted.response.headers.get("location")!);
      assert.notEqual(after.by, posted.by);
      assert.match(after.text, /Your note was saved/);

      // A token made on one replica, used against the write API on the others.
      const tokenForm = await visit("/-/create-token");
      const tokenCsrf = /name="csrftoken" value="([^"]+)"/.exec(tokenForm.text)![1];
      const created = await visit("/-/create-token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrftoken: tokenCsrf, expire_type: "" }),
      });
      assert.equal(created.response.status, 200, created.text);
      const token = /(dstok_[\w.-]+)/.exec(created.text)![1];
      const api = (body: unknown) =>
        fetch(`${base}/data/hits/-/insert`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      const first = await api({ row: { n: 0, replica: "first" } });
      assert.equal(first.status, 201, await first.clone().text());
      await first.body?.cancel();

      // 50 concurrent writes through the balancer, all three replicas writing the one file.
      const answers = await Promise.all(
        Array.from({ length: 50 }, async (_, i) => {
          const response = await api({ row: { n: i + 1, replica: "concurrent" } });
          const text = await response.text();
          return { status: response.status, by: response.headers.get("x-served-by"), text };
        }),
      );
      for (const answer of answers) assert.equal(answer.status, 201, answer.text);
      assert.deepEqual(new Set(answers.map((a) => a.by)), new Set(["r1", "r2", "r3"]));
      const conn = Connection.open(db, { mode: "ro" });
      try {
        const counts = conn.query("select n, count(*) from hits group by n order by n").rows;
        assert.deepEqual(
          counts.map(([n, times]) => [Number(n), Number(times)]),
          Array.from({ length: 51 }, (_, n) => [n, 1]),
          "every write landed exactly once",
        );
        assert.equal(conn.query("select count(*) from notes").rows[0][0], 1);
      } finally {
        conn.close();
      }
      // Every replica reads what the others wrote.
      for (let i = 0; i < 3; i++) {
        const count = await visit("/data/hits.json?_size=0&_extra=count");
        assert.equal(JSON.parse(count.text).count, 51, `on ${count.by}`);
      }

      // Each replica's metrics, read with the root cookie, add up to the writes made.
      let inserts = 0;
      for (const replica of replicas) {
        const metrics = await fetch(`${replica.url}-/metrics`, {
          headers: { cookie: jar.header() },
        });
        assert.equal(metrics.status, 200);
        const families = parsePrometheus(await metrics.text());
        inserts += sumOf(families, "vitrine_http_requests_total", {
          kind: "plugin",
          method: "POST",
          status: "201",
        });
      }
      assert.equal(inserts, 51);
    } finally {
      await balancer?.stop();
      for (const replica of replicas) await replica.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "a replica whose /-/health fails is taken out of the rotation (needs haproxy)",
  ignore: !HAPROXY,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "vitrine-haproxy-" });
    const replicas: VitrineProcess[] = [];
    let balancer: Awaited<ReturnType<typeof startHaproxy>> | null = null;
    try {
      const db = buildData(dir);
      // The draining replica keeps serving 20 s after SIGTERM (shutdown_delay_ms) with a
      // failing readiness check: HAProxy stops sending it requests well before that.
      const args = [db, "-s", "shutdown_delay_ms", "20000"];
      replicas.push(...await Promise.all([1, 2].map(() => startVitrine(args))));
      balancer = await startHaproxy(dir, replicas.map((r) => r.port));
      const served = async () => {
        const response = await fetch(`${balancer!.url}data/items.json?_size=1`);
        await response.body?.cancel();
        assert.equal(response.status, 200);
        return response.headers.get("x-served-by");
      };
      const ready = await fetch(`${replicas[0].url}-/health`);
      assert.deepEqual([ready.status, await ready.json()], [200, { ok: true, status: "ready" }]);
      replicas[0].kill("SIGTERM");
      let health: unknown = null;
      await waitFor(async () => {
        const response = await fetch(`${replicas[0].url}-/health`);
        health = [response.status, await response.json()];
        return response.status !== 200;
      }, "the readiness check to fail");
      assert.deepEqual(health, [503, { ok: false, status: "draining" }]);
      // Still alive, and still answering what it is sent meanwhile.
      const live = await fetch(`${replicas[0].url}-/health/live`);
      assert.equal(live.status, 200);
      await live.body?.cancel();
      await waitFor(async () => {
        const by = await Promise.all([served(), served(), served(), served()]);
        return by.every((name) => name === "r2");
      }, "HAProxy to leave out the draining replica");
    } finally {
      await balancer?.stop();
      for (const replica of replicas) {
        replica.kill("SIGKILL");
        await replica.stop();
      }
      await Deno.remove(dir, { recursive: true });
    }
  },
});
