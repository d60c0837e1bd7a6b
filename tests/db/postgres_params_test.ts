/** Vitrine's `:name` and `?` parameters turned into PostgreSQL's `$n`, and connection URLs. */
import assert from "node:assert/strict";
import { splitPgStatements, toPgStatement } from "../../src/db/postgres_params.ts";
import { maskUrl, parsePgTarget, pgpassLookup } from "../../src/db/postgres_url.ts";
import { pgCell } from "../../src/db/postgres_values.ts";
import { run } from "../cli/run_main.ts";

Deno.test("named parameters become $n, each name once, in first-seen order", () => {
  const { text, values } = toPgStatement(
    "select * from t where a = :a and b > :b or a2 = :a",
    { a: 1, b: "x" },
  );
  assert.equal(text, "select * from t where a = $1 and b > $2 or a2 = $1");
  assert.deepEqual(values, [1, "x"]);
});

Deno.test("literals, quoted identifiers, comments and :: casts are left alone", () => {
  const sql = `select ':a', "col:b", E'it\\'s :c', $$ :d $$, $tag$ :e $tag$, x::text, ` +
    `y /* :f /* nested :g */ */ -- :h\n, :real`;
  const { text, values } = toPgStatement(sql, { real: 5 });
  assert.equal(
    text,
    `select ':a', "col:b", E'it\\'s :c', $$ :d $$, $tag$ :e $tag$, x::text, ` +
      `y /* :f /* nested :g */ */ -- :h\n, $1`,
  );
  assert.deepEqual(values, [5]);
});

Deno.test("a missing named parameter binds NULL, as SQLite does", () => {
  assert.deepEqual(toPgStatement("select :gone", {}), { text: "select $1", values: [null] });
});

Deno.test("? is a parameter only with positional values (else jsonb's operator)", () => {
  assert.deepEqual(toPgStatement("select ? + ?2", [1, 2]), {
    text: "select $1 + $2",
    values: [1, 2],
  });
  assert.equal(
    toPgStatement("select j ? 'k' from t where a = :a", { a: 1 }).text,
    "select j ? 'k' from t where a = $1",
  );
});

Deno.test("arrays become JSON text; big integers stay exact numbers in JSON", () => {
  assert.equal(pgCell([1, 2, 3]), "[1,2,3]");
  assert.equal(pgCell(["a", null]), '["a",null]');
  assert.equal(pgCell(12n), 12n);
});

Deno.test("NAME=URL names the database; the URL's database name otherwise", () => {
  const env = { HOME: "/nonexistent" };
  const plain = parsePgTarget("postgres://ann@db.example:5433/sales", env);
  assert.equal(plain.name, "sales");
  assert.equal(plain.port, 5433);
  assert.equal(plain.user, "ann");
  assert.equal(plain.password, null);
  const named = parsePgTarget("shop=postgresql://ann:s%40cret@localhost/sales", env);
  assert.equal(named.name, "shop");
  assert.equal(named.password, "s@cret");
  assert.equal(parsePgTarget("postgres://ann@h/db", { PGPASSWORD: "pw" }).password, "pw");
});

Deno.test("a password is masked wherever a URL is shown", () => {
  assert.equal(maskUrl("postgres://ann:hunter2@h:5432/db"), "postgres://ann:***@h:5432/db");
  assert.equal(maskUrl("postgres://ann@h/db"), "postgres://ann@h/db");
  assert.throws(() => parsePgTarget("postgres://ann:hunter2@[bad/db"), (error: Error) => {
    assert.ok(!error.message.includes("hunter2"), error.message);
    return true;
  });
});

Deno.test(".pgpass: the first matching line wins, * matches anything, \\: escapes", () => {
  const file = Deno.makeTempFileSync();
  Deno.writeTextFileSync(
    file,
    "# comment\nother:*:*:*:nope\nh:5432:db:ann:pa\\:ss\n*:*:*:*:fallback\n",
  );
  const env = { PGPASSFILE: file };
  assert.equal(pgpassLookup({ host: "h", port: 5432, database: "db", user: "ann" }, env), "pa:ss");
  assert.equal(pgpassLookup({ host: "x", port: 1, database: "d", user: "u" }, env), "fallback");
  Deno.removeSync(file);
});

Deno.test("a server that cannot be reached is told at start, password masked", async () => {
  const result = await run(["postgres://ann:hunter2@127.0.0.1:1/sales", "--get", "/"]);
  assert.equal(result.code, 1);
  const printed = result.out + result.err;
  assert.match(printed, /cannot reach PostgreSQL database "sales" \(postgres:\/\/ann:\*\*\*@/);
  assert.ok(!printed.includes("hunter2"), printed);
});

Deno.test("a script is split at the semicolons outside literals, names, comments and bodies", () => {
  assert.deepEqual(
    splitPgStatements(
      "insert into t values ('a;b', E'c\\';d');\n-- a note; with a ;\n" +
        'update "odd;name" set x = 1 /* a /* nested; */ comment */ ;' +
        " create function f() returns int language sql as $f$ select 1; $f$;;  -- trailing",
    ),
    [
      "insert into t values ('a;b', E'c\\';d');",
      '-- a note; with a ;\nupdate "odd;name" set x = 1 /* a /* nested; */ comment */ ;',
      "create function f() returns int language sql as $f$ select 1; $f$;",
    ],
  );
  assert.deepEqual(splitPgStatements("  ; -- nothing\n"), []);
  assert.deepEqual(splitPgStatements("select 1"), ["select 1"]);
});
