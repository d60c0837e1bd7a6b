/**
 * Response headers the pipeline adds or withholds, checked on every route: HEAD for each GET
 * route, `Allow` on 405s, `--cors` on errors too, `Cache-Control` from `default_cache_ttl` /
 * `_ttl`, and `force_https_urls` in `next_url` and `Link` headers.
 */
import assert from "node:assert/strict";
import { Connection } from "../../src/sqlite/mod.ts";
import { Service, type ServiceOptions } from "../../src/service.ts";
import { shopService } from "../fixtures/shop.ts";

/** `data.db` (tables `items` with 3 rows and `other`, a view), a --static mount and a page. */
function fixture(): { dir: string; path: string } {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-headers-" });
  const path = `${dir}/data.db`;
  const conn = Connection.open(path, { mode: "rwc" });
  conn.exec(`
    create table items (id integer primary key, name text);
    insert into items values (1, 'one'), (2, 'two'), (3, 'three');
    create table other (id integer primary key, item_id integer references items(id));
    insert into other values (1, 1);
    create view item_names as select name from items;
  `);
  conn.close();
  Deno.mkdirSync(`${dir}/assets`);
  Deno.writeTextFileSync(`${dir}/assets/a.txt`, "hello");
  Deno.mkdirSync(`${dir}/templates/pages`, { recursive: true });
  Deno.writeTextFileSync(`${dir}/templates/pages/about.html`, "About");
  Deno.mkdirSync(`${dir}/plugins`);
  Deno.writeTextFileSync(
    `${dir}/plugins/boom.ts`,
    `export function register_routes() {
  return [["/-/boom", () => { throw new Error("kaboom"); }]];
}
`,
  );
  return { dir, path };
}

const QUERIES = {
  q: "select * from items",
  slow: "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c",
};

/** A service over a temporary directory; `await using` closes it and removes the directory. */
interface Site extends AsyncDisposable {
  svc: Service;
  dir: string;
}

function service(options: ServiceOptions = {}): Site {
  const { dir, path } = fixture();
  const svc = new Service({
    immutables: [path],
    crossdb: true,
    static_mounts: [["assets", `${dir}/assets`]],
    template_dir: `${dir}/templates`,
    plugins_dir: `${dir}/plugins`,
    metadata: { databases: { data: { queries: QUERIES } } },
    ...options,
  });
  return {
    svc,
    dir,
    async [Symbol.asyncDispose]() {
      await svc.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** One URL of every built-in GET route (and a static mount, a custom page, a plugin route). */
const GET_ROUTES = [
  "/",
  "/.json",
  "/-/versions",
  "/-/versions.json",
  "/-/plugins",
  "/-/plugins.json",
  "/-/settings",
  "/-/settings.json",
  "/-/config",
  "/-/config.json",
  "/-/threads.json",
  "/-/databases",
  "/-/databases.json",
  "/-/metadata",
  "/-/metadata.json",
  "/-/actor",
  "/-/actor.json",
  "/-/static/app.css",
  "/-/auth-token",
  "/-/create-token",
  "/-/logout",
  "/-/messages",
  "/-/permissions",
  "/-/allow-debug",
  "/assets/a.txt",
  "/data.db",
  "/data",
  "/data.json",
  "/data?sql=select+1",
  "/data/-/query?sql=select+1",
  "/data/-/query.json?sql=select+1",
  "/data/items",
  "/data/items.json",
  "/data/items.csv",
  "/data/item_names",
  "/data/q",
  "/data/q.json",
  "/data/items/1",
  "/data/items/1.json",
  "/_memory?sql=select+1",
  "/about",
  "/nope",
  "/data/nope.json",
];

/**
 * Headers that legitimately differ between two requests (a fresh CSRF cookie each time; the
 * database download streams its GET body but can state its length for HEAD).
 */
const VOLATILE = new Set(["date", "set-cookie", "vary", "content-length"]);

function stableHeaders(headers: Headers): Record<string, string> {
  return Object.fromEntries(
    [...headers].filter(([name]) => !VOLATILE.has(name))
      // Each page gets its own script nonce.
      .map(([name, value]) => [name, value.replace(/'nonce-[^']+'/, "'nonce-…'")]),
  );
}

Deno.test("HEAD answers every GET route with GET's status and headers and no body", async () => {
  await using site = service();
  const { svc } = site;
  for (const path of GET_ROUTES) {
    const get = await svc.client.get(path);
    const head = await svc.client.head(path);
    assert.equal(head.status, get.status, path);
    assert.deepEqual(stableHeaders(head.headers), stableHeaders(get.headers), path);
    assert.equal(head.content.length, 0, path);
  }
});

Deno.test("HEAD over a real socket sends headers only", async () => {
  await using site = service();
  const { svc } = site;
  const controller = new AbortController();
  const { serve } = await import("../../src/app/server.ts");
  let base = "";
  const server = await serve(svc, {
    port: 0,
    signal: controller.signal,
    onListen: (url) => (base = url),
  });
  try {
    const head = await fetch(`${base}/data/items`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.match(head.headers.get("content-type")!, /^text\/html/);
    // The page links its JSON twin by an absolute URL made from the Host header, so shared
    // caches may not keep it (src/app/origin.ts); the browser's own cache may.
    assert.equal(head.headers.get("cache-control"), "private, max-age=5");
    assert.equal(await head.text(), "");
    // A body of known length is announced as GET sends it; a streamed export's is not known.
    const json = await fetch(`${base}/data/items.json`, { headers: { "accept-encoding": "" } });
    const jsonHead = await fetch(`${base}/data/items.json`, { method: "HEAD" });
    assert.equal(
      jsonHead.headers.get("content-length"),
      String((await json.arrayBuffer()).byteLength),
    );
    await jsonHead.body?.cancel();
    const stream = await fetch(`${base}/data/items.csv?_stream=on`, { method: "HEAD" });
    assert.equal(stream.status, 200);
    assert.equal(stream.headers.get("content-length"), null);
    assert.equal(await stream.text(), "");
  } finally {
    controller.abort();
    await server.finished;
  }
});

Deno.test("a 405 names the allowed methods in Allow", async () => {
  await using site = service();
  const { svc } = site;
  const post = await svc.client.post("/-/versions.json", { json: {} });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get("allow"), "GET, HEAD");
  assert.equal(post.json().status, 405);
  const put = await svc.client.put("/data");
  assert.equal(put.status, 405);
  assert.equal(put.headers.get("allow"), "GET, HEAD");
  const options = await svc.client.options("/-/messages");
  assert.equal(options.status, 200);
  // The URL of a table, a view or a read-only canned query takes no POST, and Allow says so.
  for (const path of ["/data/items", "/data/items.json", "/data/q"]) {
    assert.equal((await svc.client.options(path)).headers.get("allow"), "GET, HEAD", path);
    assert.equal((await svc.client.put(path)).headers.get("allow"), "GET, HEAD", path);
  }
  // A writable canned query's does.
  await using shop = shopService();
  const write = await shop.client.options("/shop/add_log_entry");
  assert.equal(write.headers.get("allow"), "GET, POST, HEAD");
});

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-headers": "Authorization, Content-Type",
  "access-control-expose-headers": "Link",
  "access-control-allow-methods": "GET, POST, HEAD, OPTIONS",
  "access-control-max-age": "3600",
};

function assertCors(headers: Headers, label: string): void {
  for (const [name, value] of Object.entries(CORS)) {
    assert.equal(headers.get(name), value, `${label}: ${name}`);
  }
}

Deno.test("--cors headers are on successes, errors of every status and OPTIONS", async () => {
  await using site = service({
    cors: true,
    metadata: { databases: { data: { queries: QUERIES, tables: { other: { allow: false } } } } },
  });
  const { svc } = site;
  const quiet = console.error;
  console.error = () => {};
  try {
    const cases: [string, string, number][] = [
      ["GET", "/data/items.json", 200],
      ["GET", "/data/items", 200],
      ["GET", "/data/nope.json", 404],
      ["GET", "/data/nope", 404],
      ["GET", "/data/items.json?_size=x", 400],
      ["GET", "/data.json?sql=select+nope", 400],
      ["GET", "/data/other.json", 403],
      ["GET", "/data/other", 403],
      ["POST", "/-/versions.json", 405],
      ["GET", "/-/boom", 500],
      ["OPTIONS", "/data/items.json", 200],
      ["OPTIONS", "/no/such/path", 200],
      ["HEAD", "/data/nope.json", 404],
    ];
    for (const [method, path, status] of cases) {
      const response = await svc.client.request(method, path);
      assert.equal(response.status, status, `${method} ${path}`);
      assertCors(response.headers, `${method} ${path}`);
    }
    const invalidToken = await svc.client.get("/data/items.json", {
      headers: { authorization: "Bearer dstok_not-a-token" },
    });
    assert.equal(invalidToken.status, 401);
    assertCors(invalidToken.headers, "401");
  } finally {
    console.error = quiet;
  }
});

Deno.test("Cache-Control: max-age from default_cache_ttl or _ttl, no-cache for 0, none on errors", async () => {
  await using site = service({
    // The slow table never finishes; the others must, so the limit is not too tight for a
    // loaded machine (every query of a request shares it).
    settings: { default_cache_ttl: 60, sql_time_limit_ms: 300, num_sql_threads: 0 },
  });
  const { svc } = site;
  const cases: [string, number, string | null][] = [
    ["/data/items", 200, "max-age=60"],
    ["/data/items.json", 200, "max-age=60"],
    ["/data/items.csv", 200, "max-age=60"],
    ["/data/item_names.json", 200, "max-age=60"],
    ["/data/items/1", 200, "max-age=60"],
    ["/data/items/1.json", 200, "max-age=60"],
    ["/data/q", 200, "max-age=60"],
    ["/data/q.json", 200, "max-age=60"],
    ["/data/items.json?_ttl=10", 200, "max-age=10"],
    ["/data/items/1.json?_ttl=0", 200, "no-cache"],
    ["/data/items?_ttl=0", 200, "no-cache"],
    ["/data/q.json?_ttl=0", 200, "no-cache"],
    // Not all digits: the default applies.
    ["/data/items.json?_ttl=-1", 200, "max-age=60"],
    ["/data/items.json?_ttl=1e3", 200, "max-age=60"],
    ["/data/items.json?_ttl=", 200, "max-age=60"],
    // Custom SQL, database and index pages send none (API-DETAILS §0).
    ["/data.json?sql=select+1", 200, null],
    ["/data.json", 200, null],
    ["/.json", 200, null],
    // Errors never do, whatever _ttl says.
    ["/data/nope.json?_ttl=30", 404, null],
    ["/data/items/99.json", 404, null],
    ["/data/items.json?_size=x&_ttl=30", 400, null],
    ["/data/items.json?_sort=nope", 400, null],
    ["/data/slow.json?_ttl=30", 400, null],
    ["/data/slow?_ttl=30", 400, null],
  ];
  for (const [path, status, expected] of cases) {
    const response = await svc.client.get(path);
    assert.equal(response.status, status, path);
    assert.equal(response.headers.get("cache-control"), expected, path);
  }
});

Deno.test("force_https_urls makes next_url, Link headers and next-page links https", async () => {
  {
    await using site = service({
      settings: { force_https_urls: true, default_page_size: 2, base_url: "/pre/" },
    });
    const { svc } = site;
    const json = await svc.client.get("/pre/data/items.json?_extra=next_url");
    const body = json.json();
    assert.equal(body.next, "2");
    assert.equal(body.next_url, "https://localhost/pre/data/items.json?_extra=next_url&_next=2");
    assert.equal(json.headers.get("link"), `<${body.next_url}>; rel="next"`);
    for (const shape of ["array", "arrays", "object"]) {
      const shaped = await svc.client.get(`/pre/data/items.json?_shape=${shape}`);
      assert.equal(
        shaped.headers.get("link"),
        `<https://localhost/pre/data/items.json?_shape=${shape}&_next=2>; rel="next"`,
        shape,
      );
    }
    const html = await svc.client.get("/pre/data/items?_sort=name");
    // A paginated HTML page names its next page too (issue 37 item 19), then its JSON twin.
    assert.equal(
      html.headers.get("link"),
      '<https://localhost/pre/data/items?_next=three%2C3&_sort=name>; rel="next", ' +
        '<https://localhost/pre/data/items.json?_sort=name>; rel="alternate"; ' +
        'type="application/json+datasette"',
    );
    // …and its head links the JSON twin, as the reference's pages do.
    assert.match(
      html.text,
      /<head>[^]*<link rel="alternate" type="application\/json\+datasette" href="https:\/\/localhost\/pre\/data\/items\.json\?_sort=name">[^]*<\/head>/,
    );
    assert.match(
      html.text,
      /<a href="https:\/\/localhost\/pre\/data\/items\?_next=three%2C3&amp;_sort=name" rel="next">/,
    );
  }
  await using plain = service({ settings: { default_page_size: 2 } });
  const body = (await plain.svc.client.get("/data/items.json?_extra=next_url")).json();
  assert.equal(body.next_url, "http://localhost/data/items.json?_extra=next_url&_next=2");
});
