/**
 * Security headers: every HTML page carries a Content-Security-Policy whose scripts need the
 * page's nonce (and every `<script>` the templates and plugin hooks emit carries it), every
 * response `nosniff` and a Referrer-Policy, framing follows `frame_ancestors`, and the cookies
 * Vitrine sets are HttpOnly, SameSite=Lax and Secure behind HTTPS.
 */
import assert from "node:assert/strict";
import { shopService } from "../fixtures/shop.ts";
import { SettingsError } from "../../src/config/settings.ts";
import { Service } from "../../src/service.ts";

const PLUGIN = `
export function extra_body_script() {
  return { script: "globalThis.fromPlugin = 1;", module: true };
}
export function extra_js_urls() {
  return [{ url: "https://cdn.example.net/lib/widget.js", module: true }, "/local.js"];
}
export function extra_css_urls() {
  return ["https://fonts.example.com/css?family=X"];
}
export function register_routes() {
  return [["^/-/raw$", () => new Response("<p>raw</p><script>alert(1)</script>", {
    headers: { "content-type": "text/html; charset=utf-8" },
  })]];
}
`;

function withPlugin(settings: Record<string, unknown> = {}) {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-headers-" });
  Deno.writeTextFileSync(`${dir}/page_assets.ts`, PLUGIN);
  return shopService({ plugins_dir: dir, settings });
}

/** The nonce of a CSP header, or null. */
function nonceOf(csp: string | null): string | null {
  return /'nonce-([^']+)'/.exec(csp ?? "")?.[1] ?? null;
}

const PAGES = [
  "/",
  "/shop",
  "/shop/products",
  "/shop/products/1",
  "/shop/products_by_category?category=Garden",
  "/shop/add_log_entry",
  "/shop/-/query?sql=select+1",
  "/-/messages",
  "/-/permissions",
  "/-/allow-debug",
  "/-/logout",
  "/nope", // the 404 page
];

Deno.test("every script on every page carries the page's nonce; the policy has no unsafe-inline", async () => {
  await using svc = withPlugin();
  for (const path of PAGES) {
    const response = await svc.client.get(path);
    const csp = response.headers.get("content-security-policy");
    assert.match(response.headers.get("content-type") ?? "", /^text\/html/, path);
    const nonce = nonceOf(csp);
    assert.ok(nonce && nonce.length >= 22, `${path}: ${csp}`);
    const scriptSrc = /script-src ([^;]*)/.exec(csp!)![1];
    assert.doesNotMatch(scriptSrc, /unsafe-inline|unsafe-eval|\*/, path);
    assert.match(csp!, /frame-ancestors 'self'/);
    assert.match(csp!, /object-src 'none'/);
    const tags = response.text.match(/<script\b[^>]*>/g) ?? [];
    assert.ok(tags.length >= 3, `${path} has the plugin's scripts`);
    for (const tag of tags) assert.ok(tag.includes(`nonce="${nonce}"`), `${path}: ${tag}`);
    assert.equal(response.headers.get("x-content-type-options"), "nosniff", path);
    // Data pages (their URLs may hold SQL) say no-referrer; the rest at least strip the path.
    assert.match(
      response.headers.get("referrer-policy") ?? "",
      /^(no-referrer|strict-origin-when-cross-origin)$/,
      path,
    );
    assert.equal(response.headers.get("x-frame-options"), "SAMEORIGIN", path);
  }
  // A fresh nonce per response.
  const [a, b] = await Promise.all([svc.client.get("/shop"), svc.client.get("/shop")]);
  assert.notEqual(
    nonceOf(a.headers.get("content-security-policy")),
    nonceOf(b.headers.get("content-security-policy")),
  );
});

Deno.test("the policy lets in the plugins' own origins, and the map tiles' (nothing else)", async () => {
  await using svc = withPlugin({ map_tile_url: "https://{s}.tile.example.org/{z}/{x}/{y}.png" });
  const page = await svc.client.get("/shop/products");
  const csp = page.headers.get("content-security-policy")!;
  assert.match(
    /script-src ([^;]*)/.exec(csp)![1],
    /^'self' 'nonce-[^']+' https:\/\/cdn\.example\.net$/,
  );
  assert.match(/style-src ([^;]*)/.exec(csp)![1], /https:\/\/fonts\.example\.com$/);
  assert.match(
    page.text,
    /<script nonce="[^"]+" type="module">globalThis\.fromPlugin = 1;<\/script>/,
  );
  // A page with coordinates shows a map: its tile host joins img-src, wildcard for {s}.
  const sql = "select 51.5 as latitude, -0.12 as longitude";
  const map = await svc.client.get(`/shop/-/query?sql=${encodeURIComponent(sql)}`);
  const mapCsp = map.headers.get("content-security-policy")!;
  assert.match(/img-src ([^;]*)/.exec(mapCsp)![1], /https:\/\/\*\.tile\.example\.org/);
  assert.doesNotMatch(/img-src ([^;]*)/.exec(csp)![1], /tile\.example\.org/);
});

Deno.test("HTML a plugin builds by hand gets frame-ancestors only; JSON gets no policy", async () => {
  await using svc = withPlugin();
  const raw = await svc.client.get("/-/raw");
  assert.equal(raw.headers.get("content-security-policy"), "frame-ancestors 'self'");
  assert.equal(raw.headers.get("x-content-type-options"), "nosniff");
  const json = await svc.client.get("/shop/products.json");
  assert.equal(json.headers.get("content-security-policy"), null);
  assert.equal(json.headers.get("x-content-type-options"), "nosniff");
  const csv = await svc.client.get("/shop/products.csv");
  assert.equal(csv.headers.get("x-content-type-options"), "nosniff");
});

Deno.test("frame_ancestors decides who may frame pages; a value that breaks the header is refused", async () => {
  await using none = shopService({ settings: { frame_ancestors: "'none'" } });
  const page = await none.client.get("/shop");
  assert.match(page.headers.get("content-security-policy")!, /frame-ancestors 'none'$/);
  assert.equal(page.headers.get("x-frame-options"), "DENY");
  await using partner = shopService({
    settings: { frame_ancestors: "'self' https://partner.example" },
  });
  const framed = await partner.client.get("/shop");
  assert.match(
    framed.headers.get("content-security-policy")!,
    /frame-ancestors 'self' https:\/\/partner\.example$/,
  );
  assert.equal(framed.headers.get("x-frame-options"), null);
  for (const bad of ["'self'; script-src *", "a,b", ""]) {
    assert.throws(() => new Service({ settings: { frame_ancestors: bad } }), SettingsError);
  }
});

Deno.test("cookies: HttpOnly and SameSite=Lax always, Secure behind HTTPS", async () => {
  await using svc = shopService();
  const plain = await svc.client.get("/shop/add_log_entry");
  const csrf = plain.headers.getSetCookie().find((c) => c.startsWith("ds_csrftoken="))!;
  assert.match(csrf, /; HttpOnly/);
  assert.match(csrf, /; SameSite=lax/i);
  assert.doesNotMatch(csrf, /Secure/);
  const posted = await svc.client.post("/shop/add_log_entry", { data: { message: "hi" } });
  const messages = posted.headers.getSetCookie().find((c) => c.startsWith("ds_messages="))!;
  assert.match(messages, /; HttpOnly/);
  assert.match(messages, /; SameSite=lax/i);

  await using https = shopService({ settings: { public_url: "https://data.example.org" } });
  const secure = await https.client.get("/shop/add_log_entry");
  const secureCsrf = secure.headers.getSetCookie().find((c) => c.startsWith("ds_csrftoken="))!;
  assert.match(secureCsrf, /; Secure/);
});
