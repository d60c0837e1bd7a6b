import assert from "node:assert/strict";
import { Metadata } from "../../src/config/metadata.ts";
import {
  appCssHash,
  baseContext,
  normaliseAssets,
  normaliseMessages,
  normaliseScripts,
} from "../../src/render/page_context.ts";
import { Markup } from "../../src/util/markup.ts";

const urls = {
  instance: () => "/",
  database: (db: string) => `/${db}`,
  table: (db: string, t: string) => `/${db}/${t}`,
};

Deno.test("normaliseAssets() merges metadata and hook URLs into {url, sri, module}", () => {
  assert.deepEqual(
    normaliseAssets([
      ["https://a/x.css", { url: "https://b/y.js", sri: "sha384-abc", module: true }],
      [["/nested.js"]],
      "https://a/x.css",
      null,
    ]),
    [
      { url: "https://a/x.css", sri: null, module: false },
      { url: "https://b/y.js", sri: "sha384-abc", module: true },
      { url: "/nested.js", sri: null, module: false },
    ],
  );
});

Deno.test("normaliseScripts() keeps script text trusted and the module flag", () => {
  const scripts = normaliseScripts(["alert(1)", { script: "import x", module: true }, null, ""]);
  assert.equal(scripts.length, 2);
  assert.ok(scripts[0].script instanceof Markup);
  assert.equal(String(scripts[0].script), "alert(1)");
  assert.equal(scripts[1].module, true);
});

Deno.test("normaliseMessages() names the message types", () => {
  assert.deepEqual(
    normaliseMessages([["Saved", 1], ["Careful", 2], ["Broken", 3], {
      message: "Obj",
      type: "warning",
    }]),
    [
      { message: "Saved", type: "info" },
      { message: "Careful", type: "warning" },
      { message: "Broken", type: "error" },
      { message: "Obj", type: "warning" },
    ],
  );
});

Deno.test("baseContext() assembles what base.html needs", () => {
  const metadata = new Metadata({
    title: "Shop",
    license: "CC0",
    extra_css_urls: ["/extra.css"],
    databases: { shop: { tables: { products: { description: "All products" } } } },
  });
  const context = baseContext({
    page: "row",
    metadata,
    database: "shop",
    table: "products",
    urls,
    csrftoken: () => "tok",
    actor: { id: "ada" },
    extra_js_urls: [[{ url: "/app.js", module: true }]],
    messages: [["Hello", 1]],
  });
  assert.deepEqual(context.extra_css_urls, [{ url: "/extra.css", sri: null, module: false }]);
  assert.deepEqual(context.extra_js_urls, [{ url: "/app.js", sri: null, module: true }]);
  assert.deepEqual(context.crumbs, [
    { href: "/", label: "home" },
    { href: "/shop", label: "shop" },
    { href: "/shop/products", label: "products" },
  ]);
  assert.deepEqual(context.metadata, { description: "All products", license: "CC0" });
  assert.equal(context.instance_title, "Shop");
  assert.equal((context.csrftoken as () => string)(), "tok");
  assert.deepEqual(context.messages, [{ message: "Hello", type: "info" }]);
  assert.match(context.app_css_hash as string, /^[0-9a-f]{6}$/);
  assert.equal(context.app_css_hash, appCssHash());
});

Deno.test("baseContext() crumbs stop before the current page", () => {
  const crumbs = (page: string) =>
    baseContext({ page, urls, database: "shop", table: "products" }).crumbs;
  assert.deepEqual(crumbs("index"), []);
  assert.deepEqual(crumbs("database"), [{ href: "/", label: "home" }]);
  assert.deepEqual(crumbs("table"), [{ href: "/", label: "home" }, {
    href: "/shop",
    label: "shop",
  }]);
});
