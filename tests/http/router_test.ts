import assert from "node:assert/strict";
import { isMethodMismatch, literalPrefix, literalSuffix, Router } from "../../src/http/router.ts";

function routes() {
  const router = new Router<string>();
  router.add(["GET"], /^\/-\/versions(?:\.(?<format>\w+))?$/, "versions", { name: "versions" });
  router.add(["POST"], "/-/logout", "logout");
  router.add(["GET"], /^\/(?<database>[^/.]+)(?:\.(?<format>\w+))?$/, "database");
  router.add(["GET", "POST"], /^\/(?<database>[^/.]+)\/(?<table>[^/.]+)$/, "table");
  return router;
}

Deno.test("first matching route wins, in insertion order", () => {
  const found = routes().match("GET", "/-/versions.json");
  assert.ok(found && !isMethodMismatch(found));
  assert.equal(found.view, "versions");
  assert.deepEqual(found.url_vars, { format: "json" });
  assert.equal(found.route.name, "versions");
});

Deno.test("unmatched optional groups are left out of url_vars", () => {
  const found = routes().match("GET", "/fixtures");
  assert.ok(found && !isMethodMismatch(found));
  assert.equal(found.view, "database");
  assert.deepEqual(found.url_vars, { database: "fixtures" });
});

Deno.test("groups keep percent- and tilde-encoding", () => {
  const found = routes().match("GET", "/db/a~2Fb%20c");
  assert.ok(found && !isMethodMismatch(found));
  assert.deepEqual(found.url_vars, { database: "db", table: "a~2Fb%20c" });
});

Deno.test("HEAD matches GET routes", () => {
  const found = routes().match("HEAD", "/fixtures.json");
  assert.ok(found && !isMethodMismatch(found));
  assert.equal(found.view, "database");
});

Deno.test("a path matched with the wrong method reports the allowed methods", () => {
  assert.deepEqual(routes().match("GET", "/-/logout"), { allowedMethods: ["POST"] });
  const mismatch = routes().match("DELETE", "/db/t");
  assert.ok(isMethodMismatch(mismatch));
  assert.deepEqual(mismatch.allowedMethods.sort(), ["GET", "HEAD", "POST"]);
});

Deno.test("the same path registered for another method still matches after a mismatch", () => {
  const router = new Router<string>()
    .add(["POST"], "/-/thing", "post-thing")
    .add(["GET"], "/(?<database>[^/]+)/(?<table>[^/]+)", "table")
    .add(["GET"], "/-/thing", "get-thing");
  const found = router.match("GET", "/-/thing");
  assert.ok(found && !isMethodMismatch(found));
  assert.equal(found.view, "get-thing");
});

Deno.test("no match at all is null", () => {
  assert.equal(routes().match("GET", "/a/b/c/d"), null);
});

Deno.test("prepend puts plugin routes first", () => {
  const router = routes();
  router.prepend("*", "/(?P<database>special)", "plugin");
  const found = router.match("PUT", "/special");
  assert.ok(found && !isMethodMismatch(found));
  assert.equal(found.view, "plugin");
  assert.deepEqual(found.url_vars, { database: "special" });
  assert.equal(router.routes[0].view, "plugin");
});

Deno.test("string patterns are anchored at both ends", () => {
  const router = new Router<string>().add(["GET"], "/hello", "hello");
  assert.equal(router.match("GET", "/hello/extra"), null);
  assert.equal(router.match("GET", "/x/hello"), null);
  assert.ok(router.match("GET", "/hello"));
});

Deno.test("a route's literal prefix is what every match starts with, or nothing", () => {
  assert.equal(literalPrefix(/^\/-\/versions(?:\.(?<format>\w+))?$/), "/-/versions");
  assert.equal(literalPrefix(/^\/favicon\.ico$/), "/favicon.ico");
  assert.equal(literalPrefix(/^\/-\/static\/(?<path>.+)$/), "/-/static/");
  assert.equal(literalPrefix(/^\/(?<database>[^/.]+)$/), "/");
  // A quantified last character is optional; a class or escape ends the prefix.
  assert.equal(literalPrefix(/^\/items?\/x/), "/item");
  assert.equal(literalPrefix(/^\/ab{2}/), "/a");
  assert.equal(literalPrefix(/^\/v\d+/), "/v");
  // No prefix: unanchored, case-insensitive, multi-line, or alternatives at the top level.
  assert.equal(literalPrefix(/\/anywhere/), "");
  assert.equal(literalPrefix(/^\/Case/i), "");
  assert.equal(literalPrefix(/^\/a$/m), "");
  assert.equal(literalPrefix(/^\/one|^\/two/), "");
  // A bar inside a group or a class is not an alternative of the whole pattern.
  assert.equal(literalPrefix(/^\/x(?:a|b)/), "/x");
  assert.equal(literalPrefix(/^\/y[|]/), "/y");
});

Deno.test("a route's literal suffix is what every match ends with, or nothing", () => {
  assert.equal(literalSuffix(/^\/(?<database>[^/.]+)\/-\/insert$/), "/-/insert");
  assert.equal(literalSuffix(/^\/favicon\.ico$/), "/favicon.ico");
  assert.equal(literalSuffix(/^\/a+b$/), "b");
  // Ends with a group, a quantifier, a class or an escape: nothing is certain.
  assert.equal(literalSuffix(/^\/(?<database>[^/.]+)(?:\.(?<format>\w+))?$/), "");
  assert.equal(literalSuffix(/^\/ab?$/), "");
  assert.equal(literalSuffix(/^\/.*$/), "");
  assert.equal(literalSuffix(/^\/x\d$/), "");
  // Not anchored at the end (an escaped dollar is a character), case-insensitive, alternatives.
  assert.equal(literalSuffix(/^\/price\$/), "");
  assert.equal(literalSuffix(/^\/end/), "");
  assert.equal(literalSuffix(/^\/End$/i), "");
  assert.equal(literalSuffix(/^\/one$|^\/two$/), "");
});

Deno.test("plugin patterns the prefix cannot describe still match", () => {
  const router = routes();
  router.prepend("*", /^\/(?:one|two)$/, "either");
  router.prepend("*", /^\/SHOUT$/i, "loud");
  router.prepend("*", /^\/first|^\/-\/second$/, "bar");
  router.prepend("*", /^\/(?<db>[^/]+)\/-\/Go$/i, "shouted-suffix");
  const view = (path: string) => {
    const found = router.match("GET", path);
    return found && !isMethodMismatch(found) ? found.view : null;
  };
  assert.equal(view("/two"), "either");
  assert.equal(view("/shout"), "loud");
  assert.equal(view("/-/second"), "bar");
  assert.equal(view("/first/anything"), "bar");
  assert.equal(view("/-/versions"), "versions");
  assert.equal(view("/three"), "database");
  assert.equal(view("/x/-/go"), "shouted-suffix");
  assert.equal(router.claimant("/-/second")?.view, "bar");
});
