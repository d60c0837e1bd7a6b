/**
 * A seeded HTTP fuzzer for a running server: random requests over every route, format suffix,
 * query parameter and filter operator, every method with junk bodies, tilde / percent /
 * invalid-UTF-8 names, huge and deeply nested values, `<script>` payloads, bad tokens and cookies.
 * Some requests go over a raw socket, so that bytes `fetch` would clean up reach the server.
 *
 * Every answer is checked: no 5xx, no stack trace or server file path in the body, no `<script>`
 * payload reflected into HTML. The same seed gives the same requests. Used by
 * tests/security/fuzz_test.ts (5,000 requests) and bench/fuzz.ts (100,000 and more).
 *
 * @module
 */

/** A small, fast, seedable PRNG (mulberry32). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The marker of reflected-markup payloads; it must never appear raw in an HTML answer. */
export const XSS_MARKER = "<script>alert('vitrine-fuzz')</script>";

/** One generated request. */
export interface FuzzRequest {
  method: string;
  /** Path and query string, already encoded (may hold invalid percent sequences). */
  target: string;
  headers: Record<string, string>;
  body: string | null;
  /** Send over a raw socket, byte for byte (invalid UTF-8, odd request lines). */
  raw: Uint8Array | null;
}

const METHODS = [
  "GET",
  "GET",
  "GET",
  "GET",
  "GET",
  "HEAD",
  "POST",
  "POST",
  "PUT",
  "DELETE",
  "PATCH",
  "OPTIONS",
];

const DATABASES = [
  "shop",
  "frozen",
  "_memory",
  "nope",
  "sh~6Fp",
  "shop%2Fx",
  "%FF%FE",
  "~",
  "..",
  "%2E%2E",
  "shop.db",
  "_internal",
  "-",
];
const TABLES = [
  "products",
  "categories",
  "orders",
  "order_items",
  "log",
  "cheap_products",
  "products_fts",
  "products_fts_data",
  "sqlite_master",
  "nope",
  "pro~64ucts",
  "A~2F1001",
  "add_log_entry",
  "products_by_category",
  "%C3%28",
  "~FF~FE",
  "-",
  "products%00",
];
const ROWS = [
  "1",
  "2",
  "9",
  "0",
  "-1",
  "A~2F1001",
  "A%2F1001",
  "A~2F1001,1",
  "1,2,3",
  "abc",
  "%FF",
  "~",
  "9999999999999999999999",
  "1e308",
];
const SUFFIXES = [
  "",
  "",
  "",
  ".json",
  ".json",
  ".csv",
  ".tsv",
  ".xml",
  ".db",
  ".JSON",
  ".json.json",
  ".html",
  ".",
];
const SPECIAL = [
  "/-/versions",
  "/-/plugins",
  "/-/settings",
  "/-/config",
  "/-/threads",
  "/-/databases",
  "/-/metadata",
  "/-/actor",
  "/-/static/app.css",
  "/-/static/../../etc/passwd",
  "/-/static/%2E%2E/%2E%2E/deno.json",
  "/-/static-plugins/x/y.js",
  "/-/auth-token",
  "/-/create-token",
  "/-/logout",
  "/-/messages",
  "/-/permissions",
  "/-/allow-debug",
  "/-/nope",
  "/-/",
  "/favicon.ico",
  "/robots.txt",
  "/.env",
  "//etc/passwd",
];

const PARAMS = [
  "sql",
  "_size",
  "_sort",
  "_sort_desc",
  "_next",
  "_facet",
  "_facet_array",
  "_facet_date",
  "_facet_size",
  "_where",
  "_search",
  "_search_name",
  "_col",
  "_nocol",
  "_shape",
  "_labels",
  "_nolabels",
  "_extra",
  "_timelimit",
  "_trace",
  "_context",
  "_stream",
  "_dl",
  "_json",
  "_nl",
  "_through",
  "_fts_table",
  "_hash",
  "_header",
  "_ttl",
  "_nofacet",
  "_nosuggest",
  "_nocount",
  "_run",
  "category",
  "message",
  "csrftoken",
  "_filter_column",
  "_filter_op",
  "_filter_value",
  "_sort_by_desc",
  "_ignore",
];
const COLUMNS = [
  "id",
  "name",
  "price",
  "category_id",
  "tags",
  "added",
  "notes",
  "rowid",
  "nope",
  "na~6De",
  "%FF",
  "",
];
const OPERATORS = [
  "exact",
  "not",
  "contains",
  "notcontains",
  "endswith",
  "startswith",
  "gt",
  "gte",
  "lt",
  "lte",
  "like",
  "notlike",
  "glob",
  "in",
  "notin",
  "arraycontains",
  "arraynotcontains",
  "date",
  "isnull",
  "notnull",
  "isblank",
  "notblank",
  "nope",
  "",
];

const SQL = [
  "select * from products",
  "select name, price from products where price > :min order by price",
  "select fts3_tokenizer('simple')",
  "select fts3_tokenizer('x', x'4141414141414141')",
  "select load_extension('/tmp/evil.so')",
  "attach database '/etc/passwd' as p",
  "pragma query_only = 0",
  "select * from pragma_table_info('products')",
  "select zeroblob(20000000) as b",
  "select randomblob(30000000)",
  "select length(zeroblob(5000000))",
  "with recursive c(x) as (select 1 union all select x + 1 from c) select count(*) from c",
  "select printf('%.*c', 50000000, 'x')",
  "select group_concat(hex(randomblob(1000))) from (with recursive c(x) as (select 1 union " +
  "all select x + 1 from c where x < 20000) select x from c)",
  `select '${XSS_MARKER}' as "${XSS_MARKER}"`,
  "select * from sqlite_master",
  "select * from sqlite_stmt",
  "select * from dbstat",
  "selec * from nowhere",
  "select 1; select 2",
  "with x as (select 1) insert into log select 'x', 'y' from x",
  "delete from products",
  "select " + "1 + ".repeat(3000) + "1",
  "select " + "(".repeat(500) + "1" + ")".repeat(500),
  "select * from products where name like '" + "%a".repeat(2000) + "'",
  "select 1" + " union select 1".repeat(600),
  "select * from products, products, products, products, products, products",
  "select json(:x)",
  "select :a, :b, :c, :_magic, :_actor_id, :_header_user_agent, :_now_epoch, :_cookie_x",
  "select x'00ff' as blob, 9007199254740993 as big, -0.0 as z, 9e999 as inf",
  "select cast(x'ff00fe' as text) as bad_utf8",
  "",
  " ",
  "--",
  "/* */ select 1",
];

function chooser(next: () => number) {
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const chance = (p: number) => next() < p;
  return { int, pick, chance };
}

/** Generates the requests of one seeded run, in order. */
export function* fuzzRequests(seed: number, count: number): Generator<FuzzRequest> {
  const next = random(seed);
  const { int, pick, chance } = chooser(next);

  const value = (): string => {
    switch (int(16)) {
      case 0:
        return "";
      case 1:
        return String(int(1000) - 10);
      case 2:
        return pick(["9e999", "-1", "0", "max", "1e308", "NaN", "99999999999999999999", "0x10"]);
      case 3:
        return "x".repeat(pick([1000, 10_000, 60_000, 200_000]));
      case 4:
        return "[".repeat(int(5000)) + "]".repeat(int(5000));
      case 5:
        return XSS_MARKER;
      case 6:
        return `"><img src=x onerror=alert(1)>${XSS_MARKER}`;
      case 7:
        return "'; drop table products; --";
      case 8:
        return pick(["%00", "%FF%FE", "%C0%AE", "~2F", "~~", "~", "%", "%%", "%E2%82"]);
      case 9:
        return pick(["🎉", "\u0000", "\r\nX-Injected: 1", "null", "true", "{}", "[]"]);
      case 10:
        return pick(COLUMNS);
      case 11:
        return JSON.stringify({ a: [1, { b: "c" }], s: XSS_MARKER });
      case 12:
        return pick(SQL);
      case 13:
        return `${int(100)}-${int(100)}-${int(100)}`;
      case 14:
        return "a,".repeat(int(3000));
      default:
        return pick(["Kitchen", "Garden", "steel", "Chef knife", "A/1001", "1", "2"]);
    }
  };

  const encode = (text: string): string =>
    // Keep pre-encoded sequences ("%FF") as they are: they are the point.
    /%[0-9A-F]{2}/i.test(text) && chance(0.5)
      ? text.replace(/[ #&?+]/g, encodeURIComponent)
      : encodeURIComponent(text);

  const query = (): string => {
    const parts: string[] = [];
    const n = chance(0.3) ? 0 : 1 + int(chance(0.1) ? 300 : 5);
    for (let i = 0; i < n; i++) {
      let key: string;
      if (chance(0.35)) key = `${pick(COLUMNS)}__${pick(OPERATORS)}`;
      else if (chance(0.1)) key = pick(COLUMNS);
      else key = pick(PARAMS);
      const v = key === "sql" && chance(0.7) ? pick(SQL) : value();
      parts.push(`${encode(key)}=${encode(v)}`);
    }
    if (chance(0.03)) parts.push("%FF=%FE", "=", "&&", "a=b=c");
    return parts.length ? `?${parts.join("&")}` : "";
  };

  const path = (): string => {
    const db = pick(DATABASES);
    switch (int(8)) {
      case 0:
        return pick(["/", "/index", "/.json", "/-/"]) + (chance(0.5) ? pick(SUFFIXES) : "");
      case 1:
        return pick(SPECIAL) + pick(SUFFIXES);
      case 2:
        return `/${db}${pick(SUFFIXES)}`;
      case 3:
        return `/${db}/-/query${pick(SUFFIXES)}`;
      case 4:
      case 5:
        return `/${chance(0.8) ? "shop" : db}/${pick(TABLES)}${pick(SUFFIXES)}`;
      case 6:
        return `/${chance(0.8) ? "shop" : db}/${pick(TABLES)}/${pick(ROWS)}${pick(SUFFIXES)}`;
      default:
        return "/" + Array.from({ length: 1 + int(6) }, () => encode(value().slice(0, 300)))
          .join("/");
    }
  };

  const headers = (): Record<string, string> => {
    const out: Record<string, string> = {};
    if (chance(0.2)) {
      out["accept"] = pick(["application/json", "text/csv", "*/*", "text/html", "x/y"]);
    }
    if (chance(0.15)) {
      out["cookie"] = pick([
        "ds_actor=garbage",
        'ds_actor="eyJhIjp7ImlkIjoicm9vdCJ9fQ.forged"',
        "ds_csrftoken=nope",
        "ds_messages=%FF%FE",
        "ds_actor=" + "x".repeat(5000),
        "a=b; a=c; ;;; =",
      ]);
    }
    if (chance(0.1)) {
      out["authorization"] = pick([
        "Bearer dstok_garbage",
        "Bearer dstok_eyJhIjoicm9vdCJ9.sig",
        "Bearer ",
        "Basic YTpi",
        "Bearer " + "x".repeat(3000),
      ]);
    }
    if (chance(0.05)) out["x-forwarded-host"] = pick(["evil.example", XSS_MARKER.slice(0, 20)]);
    if (chance(0.05)) out["x-forwarded-proto"] = pick(["https", "gopher"]);
    if (chance(0.05)) out["x-csrftoken"] = value().slice(0, 200);
    if (chance(0.03)) out["range"] = pick(["bytes=0-10", "bytes=-5", "bytes=99999999-", "junk"]);
    if (chance(0.03)) out["if-none-match"] = pick(['"x"', "*", "W/junk"]);
    // No HTTP request can carry control characters in a header value: fetch refuses them.
    // nor characters beyond Latin-1.
    for (const name in out) {
      out[name] = [...out[name]].map((c) => {
        const code = c.codePointAt(0)!;
        return code < 0x20 || code === 0x7f ? " " : code > 0xff ? "?" : c;
      }).join("");
    }
    return out;
  };

  const body = (): { body: string | null; type: string | null } => {
    switch (int(7)) {
      case 0:
        return { body: null, type: null };
      case 1:
        return {
          body: JSON.stringify({ message: value(), category: value() }),
          type: "application/json",
        };
      case 2:
        return { body: `{"message": ${"[".repeat(20_000)}`, type: "application/json" };
      case 3:
        return {
          body: `message=${encode(value())}&csrftoken=${encode(value().slice(0, 50))}`,
          type: "application/x-www-form-urlencoded",
        };
      case 4:
        return {
          body: value(),
          type: pick(["text/plain", "application/json", "multipart/form-data"]),
        };
      case 5:
        return {
          body: JSON.stringify({ rows: [{ id: 1, name: XSS_MARKER }], row: {} }),
          type: "application/json",
        };
      default:
        return { body: "x".repeat(pick([10, 3_000_000])), type: "application/octet-stream" };
    }
  };

  for (let i = 0; i < count; i++) {
    const method = pick(METHODS);
    const target = path() + query();
    const h = headers();
    let b: string | null = null;
    if (method !== "GET" && method !== "HEAD" && method !== "OPTIONS") {
      const made = body();
      b = made.body;
      if (made.type) h["content-type"] = made.type;
    }
    let raw: Uint8Array | null = null;
    if (chance(0.04)) raw = rawRequest(target, pick, int);
    yield { method, target, headers: h, body: b, raw };
  }
}

/** A hand-made request: invalid UTF-8 bytes, odd versions and lines, oversized headers. */
function rawRequest(
  target: string,
  pick: <T>(items: readonly T[]) => T,
  int: (n: number) => number,
): Uint8Array {
  const text = new TextEncoder();
  const invalid = new Uint8Array([0xff, 0xfe, 0xc0, 0xae, 0x80]);
  const line = pick([
    `GET ${target} HTTP/1.1`,
    `GET /shop/${"\u00e9"} HTTP/1.1`,
    `GET ${target} HTTP/1.0`,
    `BREW ${target} HTTP/1.1`,
    `GET ${target}`,
    `GET ${"/x".repeat(20_000)} HTTP/1.1`,
  ]);
  const parts = [text.encode(line)];
  if (int(2) === 0) parts.push(invalid);
  const extra = pick([
    "",
    `X-Big: ${"y".repeat(int(2) ? 70_000 : 500)}\r\n`,
    "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n",
    "Host: \r\n",
    "Content-Length: -1\r\n",
  ]);
  const host = pick(["fuzz", "fuzz", "ev il<script>", "a/b?c", "x@y", "[::1", "h:99999999", ""]);
  parts.push(text.encode(`\r\nHost: ${host}\r\n${extra}Connection: close\r\n\r\n`));
  const size = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** What a run found. */
export interface FuzzReport {
  requests: number;
  byStatus: Record<string, number>;
  failures: string[];
  /** Highest server RSS sampled during the run, MiB (0 when no pid was given). */
  maxRssMiB: number;
  /** Server RSS after the last request, MiB. */
  finalRssMiB: number;
  durationMs: number;
}

/** How to run the fuzzer against a server. */
export interface FuzzOptions {
  url: string;
  seed: number;
  count: number;
  concurrency?: number;
  /** The server's pid, to sample its RSS. */
  pid?: number;
  /** Text that must never appear in a body: the source tree, database folders … */
  secrets?: string[];
  /** Paths whose bodies may show database folders (`/-/databases` lists file paths). */
  pathsAllowedToShowFiles?: RegExp;
  /** Called every `progressEvery` requests. */
  onProgress?: (done: number, report: FuzzReport) => void;
  progressEvery?: number;
  /** Per-request time limit, ms (default 30 s). */
  timeoutMs?: number;
}

const STACK = /\n\s+at\s+(?:async\s+)?[\w$.<>[\] ]*\(?(?:file|ext|node):|\.ts:\d+:\d+/;

/** Runs the fuzzer; resolves to the report (failures listed, never thrown). */
export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const started = performance.now();
  const report: FuzzReport = {
    requests: 0,
    byStatus: {},
    failures: [],
    maxRssMiB: 0,
    finalRssMiB: 0,
    durationMs: 0,
  };
  const origin = new URL(options.url);
  const generator = fuzzRequests(options.seed, options.count);
  const fail = (request: FuzzRequest, why: string) => {
    if (report.failures.length < 50) {
      const target = request.target.length > 200
        ? `${request.target.slice(0, 200)}… (${request.target.length} chars)`
        : request.target;
      report.failures.push(`${request.method} ${target}: ${why.slice(0, 300)}`);
    }
  };
  const sampleRss = () => {
    if (options.pid === undefined) return;
    try {
      const rss = readRss(options.pid);
      report.maxRssMiB = Math.max(report.maxRssMiB, rss);
      report.finalRssMiB = rss;
    } catch { /* process gone: the liveness check reports it */ }
  };
  const every = options.progressEvery ?? 500;

  const worker = async () => {
    for (let item = generator.next(); !item.done; item = generator.next()) {
      const request = item.value;
      // fetch refuses URLs over 64 KiB; such requests go over the socket as they are.
      const raw = request.raw ?? (request.target.length > 60_000 ? serialize(request) : null);
      try {
        const answer = raw
          ? await sendRaw(origin, raw, options.timeoutMs ?? 30_000)
          : await send(origin, request, options.timeoutMs ?? 30_000);
        check(request, answer, options, fail);
        report.byStatus[answer.status] = (report.byStatus[answer.status] ?? 0) + 1;
      } catch (error) {
        report.byStatus["error"] = (report.byStatus["error"] ?? 0) + 1;
        if (!raw) fail(request, `no answer: ${error}`);
      }
      report.requests++;
      if (report.requests % 100 === 0) sampleRss();
      if (report.requests % every === 0) options.onProgress?.(report.requests, report);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  sampleRss();
  report.durationMs = performance.now() - started;
  return report;
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/** `request` as HTTP/1.1 bytes. */
function serialize(request: FuzzRequest): Uint8Array {
  const body = request.body === null ? null : new TextEncoder().encode(request.body);
  const lines = [`${request.method} ${request.target} HTTP/1.1`, "Host: fuzz"];
  for (const [name, value] of Object.entries(request.headers)) {
    lines.push(`${name}: ${value.replace(/[\r\n]/g, " ")}`);
  }
  if (body) lines.push(`Content-Length: ${body.length}`);
  lines.push("Connection: close", "", "");
  const head = new TextEncoder().encode(lines.join("\r\n"));
  return body ? concat([head, body]) : head;
}

async function send(origin: URL, request: FuzzRequest, timeoutMs: number): Promise<Answer> {
  // Concatenated, not resolved: a target starting with "//" is a path here, not a host.
  const response = await fetch(origin.origin + request.target, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    redirect: "manual",
    signal: AbortSignal.timeout(timeoutMs),
  });
  const body = await response.text();
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", body };
}

async function sendRaw(origin: URL, bytes: Uint8Array, timeoutMs: number): Promise<Answer> {
  const conn = await Deno.connect({ hostname: origin.hostname, port: Number(origin.port) });
  const timer = setTimeout(() => conn.close(), timeoutMs);
  try {
    await conn.write(bytes).catch(() => 0);
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(64 * 1024);
    while (true) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
    }
    const text = new TextDecoder().decode(concat(chunks));
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
    const head = text.split("\r\n\r\n")[0];
    const contentType = /\r\ncontent-type:\s*([^\r\n]*)/i.exec(head)?.[1] ?? "";
    return { status, contentType, body: text.slice(head.length + 4) };
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch { /* closed by the timer */ }
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

function check(
  request: FuzzRequest,
  answer: Answer,
  options: FuzzOptions,
  fail: (request: FuzzRequest, why: string) => void,
): void {
  if (answer.status >= 500) fail(request, `status ${answer.status}: ${answer.body.slice(0, 300)}`);
  if (STACK.test(answer.body)) fail(request, `stack trace in body: ${answer.body.slice(0, 300)}`);
  const showsFiles = options.pathsAllowedToShowFiles?.test(request.target) ?? false;
  for (const secret of options.secrets ?? []) {
    if (!showsFiles && answer.body.includes(secret)) fail(request, `body shows ${secret}`);
  }
  const html = answer.contentType.startsWith("text/html");
  if (html && answer.body.includes(XSS_MARKER)) fail(request, "payload reflected raw into HTML");
  if (answer.status !== 0 && answer.body.length > 0 && answer.contentType === "") {
    fail(request, "a body without a Content-Type");
  }
}

function readRss(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Math.round(Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? 0) / 1024);
}
