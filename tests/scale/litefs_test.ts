/**
 * LiteFS's mount contract, simulated (LiteFS itself is not installable here, see
 * notes/litefs.md): two nodes, each serving its own copy of `data.db` from its own folder; the
 * folder of a replica holds `.primary` naming the primary's host, the primary's has none. The
 * test creates and removes `.primary` while both processes run.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/connection.ts";
import { freePort, startVitrine, type VitrineProcess } from "./processes.ts";

const METADATA = {
  databases: {
    data: {
      queries: {
        add_note: {
          sql: "insert into notes (body) values (:body)",
          write: true,
          on_success_message: "Note saved",
        },
      },
    },
  },
};

function makeNode(dir: string): string {
  Deno.mkdirSync(dir);
  const conn = Connection.open(`${dir}/data.db`);
  conn.exec("create table notes (id integer primary key, body text)");
  conn.close();
  return `${dir}/data.db`;
}

function bodies(path: string): string[] {
  const conn = Connection.open(path, { mode: "ro" });
  try {
    return conn.query("select body from notes order by id").rows.map(([body]) => String(body));
  } finally {
    conn.close();
  }
}

/** What LiteFS does on a replica: bring its copy up to the primary's, in place, by SQLite. */
function replicate(from: string, to: string): void {
  const conn = Connection.open(to, { mode: "rw" });
  try {
    conn.run("ATTACH DATABASE ? AS source", [from]);
    conn.exec(
      "BEGIN IMMEDIATE; DELETE FROM main.notes; " +
        "INSERT INTO main.notes SELECT * FROM source.notes; COMMIT; DETACH DATABASE source",
    );
  } finally {
    conn.close();
  }
}

async function postNote(node: VitrineProcess, body: string) {
  const response = await fetch(`${node.url}data/add_note`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ body }),
  });
  return {
    status: response.status,
    json: await response.json(),
    cookies: response.headers.getSetCookie(),
  };
}

async function readNotes(node: VitrineProcess, cookie = ""): Promise<string[]> {
  const response = await fetch(`${node.url}data/notes.json?_shape=array`, {
    headers: cookie ? { cookie } : {},
  });
  assert.equal(response.status, 200);
  return (await response.json()).map((row: { body: string }) => row.body);
}

Deno.test({
  name: "LiteFS: writes on the replica reach the primary, reads stay local, switch-over live",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const root = await Deno.makeTempDir({ prefix: "vitrine-litefs-" });
    const nodes: VitrineProcess[] = [];
    try {
      const [dbA, dbB] = [makeNode(`${root}/a`), makeNode(`${root}/b`)];
      await Deno.writeTextFile(`${root}/metadata.json`, JSON.stringify(METADATA));
      const [portA, portB] = [freePort(), freePort()];
      // Each node sends writes to the port of the other: `{primary}` is the host LiteFS names.
      const node = (db: string, port: number, otherPort: number) =>
        startVitrine([
          db,
          "-m",
          `${root}/metadata.json`,
          "-s",
          "litefs_primary_url",
          `http://{primary}:${otherPort}`,
        ], { port, env: { VITRINE_SECRET: "litefs-test" } });
      // B starts as a replica of A.
      await Deno.writeTextFile(`${root}/b/.primary`, "127.0.0.1\n");
      nodes.push(...await Promise.all([node(dbA, portA, portB), node(dbB, portB, portA)]));
      const [a, b] = nodes;

      // A write sent to the replica is made on the primary, and its answer comes back.
      const sent = await postNote(b, "sent to the replica");
      assert.equal(sent.status, 200, JSON.stringify(sent.json));
      assert.equal(sent.json.message, "Note saved");
      assert.deepEqual(bodies(dbA), ["sent to the replica"]);
      assert.deepEqual(bodies(dbB), [], "the replica's own copy was not written");

      // Reads stay local: the replica shows its copy until LiteFS brings it up to date...
      assert.deepEqual(await readNotes(b), []);
      assert.deepEqual(await readNotes(a), ["sent to the replica"]);
      // ...except for the client that just wrote: its cookie sends its reads to the primary.
      const wrote = sent.cookies.find((c) => c.startsWith("vitrine_wrote="));
      assert.match(wrote ?? "", /^vitrine_wrote=1; Max-Age=5; Path=\/; HttpOnly; SameSite=Lax$/);
      assert.deepEqual(await readNotes(b, "vitrine_wrote=1"), ["sent to the replica"]);
      replicate(dbA, dbB);
      assert.deepEqual(await readNotes(b), ["sent to the replica"]);

      // A browser form with its CSRF cookie works through the replica too, flash message and all.
      const form = await fetch(`${b.url}data/add_note`);
      const cookie = form.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
      const csrftoken = /name="csrftoken" value="([^"]+)"/.exec(await form.text())![1];
      const posted = await fetch(`${b.url}data/add_note`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: new URLSearchParams({ body: "a form on the replica", csrftoken }),
      });
      await posted.body?.cancel();
      assert.equal(posted.status, 302);
      assert.ok(posted.headers.getSetCookie().some((c) => c.startsWith("ds_messages=")));
      assert.deepEqual(bodies(dbA), ["sent to the replica", "a form on the replica"]);
      replicate(dbA, dbB);

      // Switch-over, no restart: B becomes the primary, A a replica of it.
      await Deno.remove(`${root}/b/.primary`);
      await Deno.writeTextFile(`${root}/a/.primary`, "127.0.0.1\n");
      const toOldPrimary = await postNote(a, "sent to the new replica");
      assert.equal(toOldPrimary.status, 200, JSON.stringify(toOldPrimary.json));
      const toNewPrimary = await postNote(b, "written on the new primary");
      assert.equal(toNewPrimary.status, 200, JSON.stringify(toNewPrimary.json));
      assert.deepEqual(bodies(dbB), [
        "sent to the replica",
        "a form on the replica",
        "sent to the new replica",
        "written on the new primary",
      ]);
      assert.deepEqual(bodies(dbA), ["sent to the replica", "a form on the replica"]);

      // A replica whose primary cannot be reached answers 503, and writes nothing itself.
      await Deno.writeTextFile(`${root}/a/.primary`, "127.0.0.2\n");
      await Deno.writeTextFile(`${root}/b/.primary`, "127.0.0.1\n");
      await nodes[1].stop();
      const unreachable = await postNote(a, "nowhere to go");
      assert.equal(unreachable.status, 503);
      assert.match(unreachable.json.error, /primary \(127\.0\.0\.2\) could not be reached/);
      assert.deepEqual(bodies(dbA), ["sent to the replica", "a form on the replica"]);
    } finally {
      for (const node of nodes) await node.stop();
      await Deno.remove(root, { recursive: true });
    }
  },
});
