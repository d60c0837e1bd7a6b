/**
 * Writes on a LiteFS replica, in-process (the two-process simulation with a real primary is
 * tests/scale/litefs_test.ts): Fly's replay header, the 503 without a primary URL, reads and
 * forwarded requests answered locally.
 */
import assert from "node:assert/strict";
import { Service } from "../../src/service.ts";
import { Connection } from "../../src/sqlite/connection.ts";

const METADATA = {
  databases: { data: { queries: { add: { sql: "insert into t (v) values (:v)", write: true } } } },
};

function replicaService(settings: Record<string, unknown> = {}) {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-litefs-" });
  const conn = Connection.open(`${dir}/data.db`);
  conn.exec("create table t (v text)");
  conn.close();
  Deno.writeTextFileSync(`${dir}/.primary`, "primary-node-1\n");
  const svc = new Service({ files: [`${dir}/data.db`], metadata: METADATA, settings });
  const rows = () => {
    const reader = Connection.open(`${dir}/data.db`, { mode: "ro" });
    try {
      return reader.query("select count(*) from t").rows[0][0];
    } finally {
      reader.close();
    }
  };
  return { svc, dir, rows };
}

const post = (svc: Service, headers: Record<string, string> = {}) =>
  svc.client.post("/data/add", {
    json: { v: "x" },
    headers: { accept: "application/json", ...headers },
  });

Deno.test("on Fly a replica answers writes with fly-replay naming the primary", async () => {
  const { svc, rows } = replicaService();
  Deno.env.set("FLY_APP_NAME", "vitrine-test-app");
  try {
    const response = await post(svc);
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("fly-replay"), "instance=primary-node-1");
    assert.equal(response.headers.get("retry-after"), "1");
    assert.match(response.json().error, /read replica/);
    assert.equal(rows(), 0);
    // Reads stay here.
    const read = await svc.client.get("/data/t.json");
    assert.equal(read.status, 200);
    assert.equal(read.headers.get("fly-replay"), null);
  } finally {
    Deno.env.delete("FLY_APP_NAME");
    await svc.close();
  }
});

Deno.test("off Fly without litefs_primary_url a replica refuses writes with advice", async () => {
  const { svc, rows } = replicaService();
  try {
    const response = await post(svc);
    assert.equal(response.status, 503);
    assert.match(response.json().error, /primary \(primary-node-1\).*litefs_primary_url/);
    assert.equal(rows(), 0);
  } finally {
    await svc.close();
  }
});

Deno.test("a write another Vitrine already sent on is made here, not sent on again", async () => {
  const { svc, rows } = replicaService({ litefs_primary_url: "http://{primary}:1" });
  try {
    const response = await post(svc, { "x-vitrine-forwarded": "1" });
    assert.equal(response.status, 200, response.text);
    assert.equal(rows(), 1);
  } finally {
    await svc.close();
  }
});

Deno.test("without .primary (the primary, or no LiteFS) writes are made here", async () => {
  const { svc, dir, rows } = replicaService();
  try {
    Deno.removeSync(`${dir}/.primary`);
    assert.equal((await post(svc)).status, 200);
    // An empty .primary names nobody: also local.
    Deno.writeTextFileSync(`${dir}/.primary`, "\n");
    assert.equal((await post(svc)).status, 200);
    assert.equal(rows(), 2);
  } finally {
    await svc.close();
  }
});

Deno.test("the metrics count writes sent to the primary as kind forwarded", async () => {
  const { svc } = replicaService();
  try {
    await post(svc);
    const metrics = await svc.client.get("/-/metrics", {
      cookies: { ds_actor: svc.sign({ a: { id: "root" } }, "actor") },
    });
    // Not root without --root: the check is denied, so look at the counters directly.
    assert.equal(metrics.status, 403);
    assert.match(
      svc.metrics.text(),
      /vitrine_http_requests_total\{kind="forwarded",method="POST",status="503"\} 1/,
    );
  } finally {
    await svc.close();
  }
});

Deno.test("on the primary, a write Fly replayed from a replica gets the read-your-writes cookie", async () => {
  const { svc, dir } = replicaService();
  try {
    Deno.removeSync(`${dir}/.primary`);
    const replayed = await post(svc, { "fly-replay-src": "instance=replica-2;region=ams;t=1" });
    assert.equal(replayed.status, 200);
    assert.match(replayed.headers.get("set-cookie") ?? "", /^vitrine_wrote=1; Max-Age=5;/);
    // A write made here directly needs no cookie: this client reads here anyway.
    const direct = await post(svc);
    assert.equal(direct.headers.get("set-cookie"), null);
  } finally {
    await svc.close();
  }
});

Deno.test("on Fly, a replica replays the reads of a client that just wrote", async () => {
  const { svc } = replicaService();
  Deno.env.set("FLY_APP_NAME", "vitrine-test-app");
  try {
    const read = await svc.client.get("/data/t.json", { cookies: { vitrine_wrote: "1" } });
    assert.equal(read.headers.get("fly-replay"), "instance=primary-node-1");
    const other = await svc.client.get("/data/t.json");
    assert.equal(other.status, 200);
    assert.equal(other.headers.get("fly-replay"), null);
  } finally {
    Deno.env.delete("FLY_APP_NAME");
    await svc.close();
  }
});

Deno.test("a write the primary got but did not answer is not called unreached: it may be made", async () => {
  // A primary that reads the write and drops the connection without an answer.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const served = (async () => {
    for await (const conn of listener) {
      await conn.read(new Uint8Array(64 * 1024));
      conn.close();
    }
  })();
  const { svc } = replicaService({ litefs_primary_url: `http://127.0.0.1:${port}` });
  try {
    const response = await post(svc);
    assert.equal(response.status, 502);
    assert.equal(response.headers.get("retry-after"), null);
    assert.match(
      response.json().error,
      /sent the write to the primary \(primary-node-1\), whose answer did not come back\. The write may have been made there: check before sending it again/,
    );
    // A primary that cannot be reached never got it: that one may be sent again.
    listener.close();
    await served.catch(() => {});
    const refused = await post(svc);
    assert.equal(refused.status, 503);
    assert.match(refused.json().error, /could not be reached\. Try again/);
  } finally {
    await svc.close();
  }
});

Deno.test("each write looks at .primary afresh: it appears, names another host and goes", async () => {
  const { svc, dir, rows } = replicaService();
  Deno.env.set("FLY_APP_NAME", "vitrine-test-app");
  const replayedTo = async () => {
    const response = await post(svc);
    return response.status === 200 ? "here" : response.headers.get("fly-replay");
  };
  try {
    Deno.removeSync(`${dir}/.primary`);
    // Many writes in a row here first: nothing may be kept from them (a node may become a
    // replica at any moment, and must not write from then on).
    for (let i = 0; i < 5; i++) assert.equal(await replayedTo(), "here");
    Deno.writeTextFileSync(`${dir}/.primary`, "node-a\n");
    assert.equal(await replayedTo(), "instance=node-a");
    Deno.writeTextFileSync(`${dir}/.primary`, "node-b\n");
    assert.equal(await replayedTo(), "instance=node-b");
    // Promoted: the very next write is made here.
    Deno.removeSync(`${dir}/.primary`);
    assert.equal(await replayedTo(), "here");
    assert.equal(rows(), 6);
  } finally {
    Deno.env.delete("FLY_APP_NAME");
    await svc.close();
  }
});
