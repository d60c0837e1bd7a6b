/**
 * The five example plugins that port well-known Datasette plugins (examples/plugins/): each
 * loaded as a real plugin module into a service over the shop database, used through
 * `svc.client` as a visitor or a script would.
 */
import assert from "node:assert/strict";
import { SHOP_METADATA, shopService } from "../fixtures/shop.ts";
import type { ServiceOptions } from "../../src/service.ts";
import { signedIn, submitForm } from "../views/_auth_helpers.ts";
import { hashPassword, verifyPassword } from "../../examples/plugins/password_login.ts";
import { toLatex, toMarkdown, toTsv } from "../../examples/plugins/copyable.ts";

const example = (name: string) =>
  new URL(`../../examples/plugins/${name}`, import.meta.url).pathname;

function withPlugin(
  file: string,
  metadata: Record<string, unknown> = {},
  options: ServiceOptions = {},
) {
  return shopService({
    plugins: [example(file)],
    metadata: { ...SHOP_METADATA, ...metadata },
    secret: "s",
    ...options,
  });
}

Deno.test("block_robots: /robots.txt disallows everything, or what the configuration lists; pages say noindex", async () => {
  {
    await using svc = withPlugin("block_robots.ts");
    const robots = await svc.client.get("/robots.txt");
    assert.equal(robots.status, 200);
    assert.match(robots.headers.get("content-type") ?? "", /^text\/plain/);
    assert.equal(robots.text, "User-agent: *\nDisallow: /\n");
    const page = await svc.client.get("/shop/products");
    assert.equal(page.headers.get("x-robots-tag") ?? "", "noindex");
  }
  {
    await using svc = withPlugin("block_robots.ts", {
      plugins: { block_robots: { disallow: ["/shop/orders", "/-/"] } },
    });
    assert.equal(
      (await svc.client.get("/robots.txt")).text,
      "User-agent: *\nDisallow: /shop/orders\nDisallow: /-/\n",
    );
  }
  {
    await using svc = withPlugin("block_robots.ts", {
      plugins: { block_robots: { allow_only_index: true } },
    });
    const text = (await svc.client.get("/robots.txt")).text;
    assert.match(text, /^Disallow: \/shop\/$/m);
    assert.match(text, /^Disallow: \/shop\.db$/m);
    assert.doesNotMatch(text, /^Disallow: \/$/m);
  }
});

Deno.test("atom_feed: a query with atom_ columns is a feed; pages without them are not offered one", async () => {
  await using svc = withPlugin("atom_feed.ts", {
    databases: {
      shop: {
        queries: {
          new_products: {
            title: "New <products>",
            sql: "select id as atom_id, name as atom_title, added as atom_updated, " +
              "notes as atom_content, 'https://example.com/p/' || id as atom_link " +
              "from products order by id limit 3",
          },
        },
      },
    },
  });
  const feed = await svc.client.get("/shop/new_products.atom");
  assert.equal(feed.status, 200, feed.text);
  assert.match(feed.headers.get("content-type") ?? "", /^application\/atom\+xml/);
  assert.match(
    feed.text,
    /^<\?xml version="1.0" encoding="utf-8"\?>\n<feed xmlns="http:\/\/www.w3.org\/2005\/Atom">/,
  );
  assert.match(feed.text, /<title>New &#60;products&#62;<\/title>/);
  assert.equal(feed.text.match(/<entry>/g)?.length, 3);
  assert.match(
    feed.text,
    /<title>Chef knife<\/title>\n {4}<updated>2024-01-15T00:00:00.000Z<\/updated>/,
  );
  assert.match(feed.text, /<link href="https:\/\/example.com\/p\/1"\/>/);
  assert.match(feed.text, /<content type="text">Hand wash only<\/content>/);
  const page = await svc.client.get("/shop/new_products");
  assert.match(page.text, /new_products\.atom/);
  const table = await svc.client.get("/shop/products");
  assert.doesNotMatch(table.text, /products\.atom/);
  const refused = await svc.client.get("/shop/products.atom");
  assert.equal(refused.status, 400);
  assert.match(refused.text, /needs the columns atom_id, atom_title, atom_updated/);
});

Deno.test("password_login: a hashed password signs in through the form; wrong ones do not", async () => {
  const hash = await hashPassword("correct horse", { iterations: 1000 });
  assert.match(hash, /^pbkdf2_sha256\$1000\$[0-9a-f]+\$[A-Za-z0-9+/=]+$/);
  assert.equal(await verifyPassword("correct horse", hash), true);
  assert.equal(await verifyPassword("wrong", hash), false);
  await using svc = withPlugin("password_login.ts", {
    plugins: {
      password_login: {
        accounts: { alice: { password_hash: hash, actor: { id: "alice", roles: ["staff"] } } },
        http_basic_auth: true,
      },
    },
  });
  const home = await svc.client.get("/");
  assert.match(home.text, /href="\/-\/login">Sign in</);
  const wrong = await submitForm(svc, "/-/login", { username: "alice", password: "nope" });
  assert.equal(wrong.status, 401);
  assert.match(wrong.text, /Wrong username or password/);
  const unknown = await submitForm(svc, "/-/login", { username: "mallory", password: "x" });
  assert.equal(unknown.status, 401);
  const right = await submitForm(svc, "/-/login", { username: "alice", password: "correct horse" });
  assert.equal(right.status, 302);
  const cookie = right.cookies.ds_actor;
  assert.ok(cookie, "the form sets the ds_actor cookie");
  const me = await svc.client.get("/-/actor.json", { cookies: { ds_actor: cookie } });
  assert.deepEqual(me.json().actor, { id: "alice", roles: ["staff"] });
  // Scripts: HTTP Basic with the same account.
  const basic = await svc.client.get("/-/actor.json", {
    headers: { authorization: `Basic ${btoa("alice:correct horse")}` },
  });
  assert.deepEqual(basic.json().actor, { id: "alice", roles: ["staff"] });
  const badBasic = await svc.client.get("/-/actor.json", {
    headers: { authorization: `Basic ${btoa("alice:nope")}` },
  });
  assert.equal(badBasic.json().actor, null);
  // The tool turns a password into a hash that verifies.
  const tool = await submitForm(svc, "/-/password-tool", { password: "pa55" });
  const made = /<textarea class="password-hash"[^>]*>([^<]+)<\/textarea>/.exec(tool.text)?.[1];
  assert.ok(made && await verifyPassword("pa55", made.replaceAll("&#36;", "$")));
});

Deno.test("search_all: one search over every full-text table the actor may see, as a page and JSON", async () => {
  await using svc = withPlugin("search_all.ts");
  const json = await svc.client.get("/-/search.json?q=knife");
  assert.equal(json.status, 200, json.text);
  const body = json.json();
  assert.equal(body.q, "knife");
  assert.equal(body.results.length, 1);
  assert.equal(body.results[0].table, "products");
  assert.equal(body.results[0].url, "/shop/products?_search=knife");
  assert.deepEqual(body.results[0].rows.map((row: { name: string }) => row.name), ["Chef knife"]);
  const page = await svc.client.get("/-/search?q=knife");
  assert.match(page.text, /<a href="\/shop\/products\?_search=knife">shop: products<\/a>/);
  assert.match(page.text, /<td>Chef knife<\/td>/);
  const none = await svc.client.get("/-/search?q=zebra");
  assert.match(none.text, /No results for “zebra”/);
  // FTS syntax in a search is searched for, not obeyed.
  assert.equal((await svc.client.get('/-/search.json?q=knife"%20OR')).status, 200);
  const home = await svc.client.get("/");
  assert.match(home.text, /<form class="search-all" action="\/-\/search"/);
});

Deno.test("search_all: a table the actor may not see is not searched", async () => {
  await using svc = withPlugin("search_all.ts", {
    databases: { shop: { tables: { products: { allow: { id: "staff" } } } } },
  });
  assert.deepEqual((await svc.client.get("/-/search.json?q=knife")).json().results, []);
  const staff = await svc.client.get("/-/search.json?q=knife", {
    cookies: signedIn(svc, { id: "staff" }),
  });
  assert.equal(staff.json().results.length, 1);
});

Deno.test("copyable: the current page's rows as TSV, Markdown or LaTeX, on a page with a copy button", async () => {
  await using svc = withPlugin("copyable.ts");
  const raw = await svc.client.get(
    "/shop/categories.copyable?_table_format=markdown&_raw=1&_sort=name",
  );
  assert.equal(raw.status, 200, raw.text);
  assert.match(raw.headers.get("content-type") ?? "", /^text\/plain/);
  assert.equal(
    raw.text,
    "| id | name |\n| --- | --- |\n| 2 | Garden |\n| 1 | Kitchen |\n| 3 | Tools |\n",
  );
  const tsv = await svc.client.get("/shop/categories.copyable?_raw=1&id__gt=1");
  assert.equal(tsv.text, "id\tname\n2\tGarden\n3\tTools\n");
  const page = await svc.client.get("/shop/categories.copyable?_table_format=latex");
  assert.match(
    page.text,
    /<textarea id="copyable-text"[^>]*>&#92;begin\{tabular\}\{ll\}\nid &amp; name/,
  );
  assert.match(page.text, /<button type="button" id="copyable-button">Copy to clipboard<\/button>/);
  assert.match(page.text, /href="\/shop\/categories\.copyable\?_table_format=tsv"/);
  const table = await svc.client.get("/shop/categories");
  assert.match(table.text, /categories\.copyable/);
  const bad = await svc.client.get("/shop/categories.copyable?_table_format=csv");
  assert.equal(bad.status, 400);

  assert.equal(toTsv(["a"], [["x\ty\nz"]]), "a\nx y z\n");
  assert.equal(toMarkdown(["a|b"], [[null]]), "| a\\|b |\n| --- |\n|  |\n");
  assert.equal(
    toLatex(["cost"], [["50% & $5_x"]]),
    "\\begin{tabular}{l}\ncost \\\\\n\\hline\n50\\% \\& \\$5\\_x \\\\\n\\end{tabular}\n",
  );
});
