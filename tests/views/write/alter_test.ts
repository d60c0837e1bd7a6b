import assert from "node:assert/strict";
import { Service } from "../../../src/service.ts";
import { auth, errorsOf, post } from "./_write_helpers.ts";

// A library: authors, books (FK to authors, an index, a unique constraint, a trigger keeping an
// external-content FTS5 index in step, a view), and loans pointing at books.
const SCHEMA = `
create table authors (id integer primary key, name text not null);
create table books (
  id integer primary key,
  title text not null,
  author_id integer references authors(id),
  pages text default '0',
  isbn text unique
);
create index books_title on books(title);
create virtual table books_fts using fts5(title, content='books', content_rowid='id');
create trigger books_ai after insert on books begin
  insert into books_fts(rowid, title) values (new.id, new.title);
end;
create view long_books as select id, title from books where cast(pages as integer) > 300;
create table loans (id integer primary key, book_id integer references books(id), who text);
create table tags (name text, book text);
create table checked (id integer primary key, n integer check (n > 0));
insert into checked values (1, 5);
create trigger loans_touch after insert on loans begin
  update books set pages = pages where id = new.book_id;
end;
insert into authors values (1, 'Le Guin'), (2, 'Borges');
insert into books (id, title, author_id, pages, isbn) values
  (1, 'The Dispossessed', 1, '387', 'a'), (2, 'Ficciones', 2, '174', 'b'),
  (3, 'Earthsea', 1, '205', 'c');
insert into loans values (1, 1, 'ann'), (2, 3, 'bob');
insert into tags values ('classic', 'Ficciones'), ('sf', 'The Dispossessed');
`;

function libraryDb(): string {
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-alter-" });
  const path = `${dir}/lib.db`;
  sqlite3(path, SCHEMA);
  return path;
}

async function withLibrary(fn: (svc: Service, path: string) => Promise<void>): Promise<void> {
  const path = libraryDb();
  await using svc = new Service({
    files: [path],
    secret: "alter-tests",
    metadata: { databases: { lib: { permissions: { "alter-table": { id: "writer" } } } } },
  });
  try {
    await fn(svc, path);
  } finally {
    await svc.close?.();
    Deno.removeSync(path.replace(/\/lib\.db$/, ""), { recursive: true });
  }
}

function sqlite3(path: string, ...args: string[]): string {
  const out = new Deno.Command("sqlite3", { args: [path, ...args] }).outputSync();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout);
}

const alter = (svc: Service, table: string, operations: unknown[], extra = {}) =>
  post(svc, `/lib/${table}/-/alter`, { operations, ...extra }, auth(svc));

function dump(path: string): string {
  return sqlite3(path, ".dump");
}

Deno.test("alter: a rebuild keeps rows, rowids, index, unique, trigger, view, FTS and foreign keys", async () => {
  await withLibrary(async (svc, path) => {
    const response = await alter(svc, "books", [
      { op: "rename_column", args: { name: "isbn", to: "code" } },
      { op: "alter_column", args: { name: "pages", type: "integer", default: 0 } },
      { op: "add_column", args: { name: "added", type: "text", default_expr: "current_date" } },
      { op: "reorder_columns", args: { columns: ["id", "code", "title"] } },
    ]);
    assert.equal(response.status, 200, response.text);
    const body = response.json();
    assert.equal(body.altered, true);
    assert.equal(body.operations_applied, 4);
    assert.match(body.before_schema, /isbn text unique/);
    assert.equal(
      body.schema,
      'CREATE TABLE "books" (\n   [id] INTEGER PRIMARY KEY,\n   [code] TEXT,\n' +
        "   [title] TEXT NOT NULL,\n   [author_id] INTEGER,\n   [pages] INTEGER DEFAULT 0,\n" +
        "   [added] TEXT DEFAULT CURRENT_DATE,\n   UNIQUE ([code]),\n" +
        "   FOREIGN KEY ([author_id]) REFERENCES [authors]([id])\n)",
    );
    assert.ok(
      body.statements.some((sql: string) => sql.startsWith("ALTER TABLE [books] RENAME COLUMN")),
    );
    // Every row, with its rowid; pages took INTEGER affinity; the new column got its default.
    assert.equal(
      sqlite3(
        path,
        "select id, code, title, typeof(pages), pages, added = date() from books order by id",
      ),
      "1|a|The Dispossessed|integer|387|1\n2|b|Ficciones|integer|174|1\n3|c|Earthsea|integer|205|1\n",
    );
    // Index, trigger and view are back; the FTS index still finds old rows and the trigger feeds it.
    assert.equal(
      sqlite3(
        path,
        "select type || ' ' || name from sqlite_master where tbl_name in ('books', 'long_books') and type != 'table' order by name",
      ),
      "trigger books_ai\nindex books_title\nview long_books\nindex sqlite_autoindex_books_1\n"
        .split("\n").filter(Boolean).sort((a, b) => a.split(" ")[1].localeCompare(b.split(" ")[1]))
        .join("\n") + "\n",
    );
    sqlite3(path, "insert into books (id, title, code) values (4, 'Labyrinths', 'd')");
    assert.equal(
      sqlite3(
        path,
        "select rowid from books_fts where books_fts match 'earthsea OR labyrinths' order by rowid",
      ),
      "3\n4\n",
    );
    sqlite3(path, "insert into books_fts(books_fts) values ('integrity-check')");
    assert.equal(
      sqlite3(
        path,
        "select rowid from books_fts where books_fts match 'earthsea OR labyrinths' order by rowid",
      ),
      "3\n4\n",
    );
    assert.equal(sqlite3(path, "select title from long_books"), "The Dispossessed\n");
    // A trigger on another table that names books is back too.
    assert.match(
      sqlite3(path, "select sql from sqlite_master where name = 'loans_touch'"),
      /update books/,
    );
    // The unique constraint holds, foreign keys still point both ways.
    assert.throws(
      () => sqlite3(path, "insert into books (title, code) values ('x', 'a')"),
      /UNIQUE/,
    );
    assert.equal(sqlite3(path, "pragma foreign_key_check"), "");
    assert.throws(
      () => sqlite3(path, "pragma foreign_keys = on; delete from books where id = 1"),
      /FOREIGN KEY constraint failed/,
    );
    // The table page shows the new columns.
    const page = await svc.client.get("/lib/books.json?_shape=objects");
    assert.deepEqual(Object.keys(page.json().rows[0]), [
      "id",
      "code",
      "title",
      "author_id",
      "pages",
      "added",
    ]);
  });
});

Deno.test("alter: drop a column, set the primary key, add and drop foreign keys, NOT NULL", async () => {
  await withLibrary(async (svc, path) => {
    let response = await alter(svc, "tags", [
      { op: "add_column", args: { name: "id", type: "integer" } },
      { op: "drop_column", args: { name: "name" } },
      { op: "add_column", args: { name: "label", type: "text", not_null: true, default: "none" } },
      { op: "set_primary_key", args: { columns: ["book", "label"] } },
      { op: "add_foreign_key", args: { column: "book", fk_table: "books", fk_column: "isbn" } },
    ]);
    assert.equal(response.status, 400, "titles are not isbns: the foreign key check refuses");
    assert.match(errorsOf(response)[0], /^Foreign key check failed: 2 rows would break/);
    sqlite3(
      path,
      "update tags set book = 'a' where book = 'The Dispossessed'; update tags set book = 'b' where book = 'Ficciones'",
    );
    response = await alter(svc, "tags", [
      { op: "drop_column", args: { name: "name" } },
      { op: "add_column", args: { name: "label", type: "text", not_null: true, default: "none" } },
      { op: "set_primary_key", args: { columns: ["book", "label"] } },
      { op: "add_foreign_key", args: { column: "book", fk_table: "books", fk_column: "isbn" } },
    ]);
    assert.equal(response.status, 200, response.text);
    assert.equal(
      response.json().schema,
      "CREATE TABLE \"tags\" (\n   [book] TEXT,\n   [label] TEXT NOT NULL DEFAULT 'none',\n" +
        "   PRIMARY KEY ([book], [label]),\n   FOREIGN KEY ([book]) REFERENCES [books]([isbn])\n)",
    );
    assert.equal(sqlite3(path, "select book, label from tags order by book"), "a|none\nb|none\n");
    response = await alter(svc, "tags", [
      { op: "drop_foreign_key", args: { column: "book" } },
      { op: "alter_column", args: { name: "label", not_null: false, default: null } },
    ]);
    assert.equal(response.status, 200, response.text);
    assert.equal(
      response.json().schema,
      'CREATE TABLE "tags" (\n   [book] TEXT,\n   [label] TEXT,\n   PRIMARY KEY ([book], [label])\n)',
    );
    // A foreign key to a table's single primary key needs no fk_column.
    response = await alter(svc, "loans", [
      { op: "add_column", args: { name: "author", type: "integer" } },
      { op: "add_foreign_key", args: { column: "author", fk_table: "authors" } },
    ]);
    assert.equal(response.status, 200, response.text);
    assert.match(
      response.json().schema,
      /FOREIGN KEY \(\[author\]\) REFERENCES \[authors\]\(\[id\]\)/,
    );
    assert.match(
      response.json().schema,
      /FOREIGN KEY \(\[book_id\]\) REFERENCES \[books\]\(\[id\]\)/,
    );
  });
});

Deno.test("alter: a rebuild keeps an expression default (SQLite reports it without its parentheses)", async () => {
  await withLibrary(async (svc, path) => {
    sqlite3(path, "create table stamps (id integer primary key, at integer default (1 + 2))");
    const response = await alter(svc, "stamps", [
      { op: "alter_column", args: { name: "at", not_null: true } },
    ]);
    assert.equal(response.status, 200, response.text);
    assert.match(response.json().schema, /\[at\] INTEGER NOT NULL DEFAULT \(1 \+ 2\)/);
    sqlite3(path, "insert into stamps (id) values (1)");
    assert.equal(sqlite3(path, "select at from stamps"), "3\n");
  });
});

Deno.test("alter: a failing alter leaves schema and data byte-identical (sqlite3 .dump)", async () => {
  await withLibrary(async (svc, path) => {
    sqlite3(path, "insert into loans values (3, 2, null); create index loans_who on loans(who)");
    const before = dump(path);
    const failing: [string, unknown[], RegExp][] = [
      [
        "loans",
        [{ op: "drop_column", args: { name: "who" } }],
        /^Cannot keep index loans_who: /,
      ],
      ["loans", [
        { op: "rename_column", args: { name: "who", to: "borrower" } },
        { op: "alter_column", args: { name: "borrower", not_null: true } },
      ], /NOT NULL constraint failed: _vitrine_alter_loans\.borrower/],
      ["loans", [
        { op: "reorder_columns", args: { columns: ["who"] } },
        { op: "add_foreign_key", args: { column: "who", fk_table: "authors" } },
      ], /^Foreign key check failed: 2 rows would break a foreign key/],
      ["loans", [
        { op: "add_foreign_key", args: { column: "who", fk_table: "authors", fk_column: "name" } },
      ], /^foreign key mismatch/],
      ["books", [
        { op: "alter_column", args: { name: "pages", type: "integer" } },
        { op: "set_primary_key", args: { columns: ["author_id"] } },
      ], /UNIQUE constraint failed/],
    ];
    for (const [table, operations, message] of failing) {
      const response = await alter(svc, table, operations);
      assert.equal(response.status, 400, response.text);
      assert.match(errorsOf(response)[0], message);
      assert.equal(dump(path), before, JSON.stringify(operations));
    }
    // The write connection is usable afterwards, foreign keys back on.
    const ok = await alter(svc, "loans", [{
      op: "add_column",
      args: { name: "due", type: "text" },
    }]);
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json().statements, ["ALTER TABLE [loans] ADD COLUMN [due] TEXT"]);
  });
});

Deno.test("alter: rename the table, dry runs, refusals", async () => {
  await withLibrary(async (svc, path) => {
    const before = dump(path);
    const dry = await alter(svc, "books", [{ op: "drop_column", args: { name: "pages" } }], {
      dry_run: true,
    });
    assert.equal(dry.status, 200, dry.text);
    assert.equal(dry.json().altered, false);
    assert.doesNotMatch(dry.json().schema, /pages/);
    assert.ok(dry.json().statements.includes("DROP TABLE [books]"));
    assert.equal(dump(path), before);
    const bad: [unknown[], RegExp][] = [
      [[{ op: "explode", args: {} }], /^Operation 1 \(explode\): unknown operation/],
      [
        [{ op: "rename_column", args: { name: "title", to: "headline" } }],
        /^Column title is indexed by the full-text index books_fts/,
      ],
      [
        [{ op: "drop_column", args: { name: "Title" } }],
        /^Column title is indexed by the full-text index books_fts/,
      ],
      [
        [{ op: "drop_column", args: { name: "nope" } }],
        /^Operation 1 \(drop_column\): no column nope in books/,
      ],
      [[{ op: "add_column", args: { name: "x", type: "varchar" } }], /type must be one of/],
      [[{ op: "add_column", args: { name: "x", not_null: true } }], /needs a default/],
      [[{ op: "add_column", args: { name: "Title" } }], /column Title already exists/],
      [[], /"operations" must be a list/],
    ];
    for (const [operations, message] of bad) {
      const response = await alter(svc, "books", operations);
      assert.equal(response.status, 400, JSON.stringify(operations));
      assert.match(errorsOf(response)[0], message);
    }
    // A CHECK constraint survives ALTER TABLE but not a rebuild: renames and additions only.
    const lossy = await alter(svc, "checked", [{
      op: "alter_column",
      args: { name: "n", type: "text" },
    }]);
    assert.equal(lossy.status, 400);
    assert.match(
      errorsOf(lossy)[0],
      /^checked uses CHECK constraints, which rebuilding the table would lose/,
    );
    assert.equal(dump(path), before);
    const denied = await post(svc, "/lib/books/-/alter", {
      operations: [{ op: "drop_column", args: { name: "pages" } }],
    }, {});
    assert.equal(denied.status, 403);
    assert.equal(dump(path), before);
    const renamed = await alter(svc, "loans", [
      { op: "rename_table", args: { to: "borrowings" } },
      { op: "alter_column", args: { name: "who", type: "text", not_null: false } },
    ]);
    assert.equal(renamed.status, 200, renamed.text);
    assert.equal(renamed.json().table, "borrowings");
    assert.equal(renamed.json().table_url, "http://localhost/lib/borrowings");
    assert.equal(sqlite3(path, "select count(*) from borrowings"), "2\n");
    assert.equal((await svc.client.get("/lib/borrowings.json")).status, 200);
    const renamedColumn = await alter(svc, "checked", [
      { op: "rename_column", args: { name: "n", to: "amount" } },
      { op: "add_column", args: { name: "note", type: "text" } },
    ]);
    assert.equal(renamedColumn.status, 200, renamedColumn.text);
    assert.match(
      renamedColumn.json().schema,
      /"amount" integer check \("amount" > 0\), \[note\] TEXT/,
    );
  });
});

Deno.test("alter: sends alter-table and rename-table events; a dry run sends none", async () => {
  await withLibrary(async (svc) => {
    const events: { name: string; properties: Record<string, unknown> }[] = [];
    svc.pm.register({
      track_event: (
        { event }: { event: { name: string; properties(): Record<string, unknown> } },
      ) => {
        events.push({ name: event.name, properties: event.properties() });
      },
    }, { name: "event-recorder" });
    const drop = [{ op: "drop_column", args: { name: "who" } }];
    assert.equal((await alter(svc, "loans", drop, { dry_run: true })).status, 200);
    assert.equal(events.length, 0);
    assert.equal((await alter(svc, "loans", drop)).status, 200);
    assert.deepEqual(events.map((event) => event.name), ["alter-table"]);
    assert.equal(events[0].properties.table, "loans");
    assert.match(String(events[0].properties.before_schema), /who text/);
    assert.doesNotMatch(String(events[0].properties.after_schema), /who/);
    events.length = 0;
    const rename = [{ op: "rename_table", args: { to: "borrowings" } }];
    assert.equal((await alter(svc, "loans", rename)).status, 200);
    assert.deepEqual(events.map((event) => [event.name, event.properties.new_table]), [
      ["rename-table", "borrowings"],
    ]);
  });
});

Deno.test("alter: a new type that changes stored values says which, how many and an example", async () => {
  await withLibrary(async (svc, path) => {
    sqlite3(path, "insert into tags values ('0042', '12'), ('12', '1.50'), ('007', '2.0')");
    const operations = [
      { op: "alter_column", args: { name: "name", type: "integer" } },
      { op: "alter_column", args: { name: "book", type: "float" } },
    ];
    const dry = await alter(svc, "tags", operations, { dry_run: true });
    assert.equal(dry.status, 200, dry.text);
    // Words, and numbers read back the same ("12" as 12.0), are no change; lost zeros are.
    assert.deepEqual(dry.json().changed_values, [
      { column: "name", rows: 2, before: "0042", after: 42 },
      { column: "book", rows: 1, before: "1.50", after: 1.5 },
    ]);
    assert.equal(sqlite3(path, "select name from tags where rowid = 3").trim(), "0042");
    // A change that converts nothing reports nothing.
    const pages = await alter(svc, "books", [
      { op: "alter_column", args: { name: "pages", type: "integer" } },
    ], { dry_run: true });
    assert.deepEqual(pages.json().changed_values, []);
  });
});
