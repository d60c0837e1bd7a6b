import assert from "node:assert/strict";
import { Connection } from "../../../src/sqlite/mod.ts";
import { ChangeCapture } from "../../../src/db/history/capture.ts";
import { ReferenceCapture } from "./_reference_capture.ts";

// The capture reads rows back in stretches and scattered chunks and writes the JSON itself; the
// reference names every value and goes through rowJson. Both run the same SQL on copies of the
// same database (one preupdate hook per connection) and must record the very same changes.

function recorded(
  setup: string,
  write: string,
  capture: "fast" | "reference",
): unknown[] {
  using conn = Connection.open(":memory:");
  conn.exec(setup);
  const watch = capture === "fast" ? ChangeCapture.start(conn)! : ReferenceCapture.start(conn)!;
  conn.exec("begin");
  try {
    conn.exec(write);
  } catch (error) {
    watch.stop();
    throw error;
  }
  const records = watch.finish(conn);
  conn.exec("commit");
  return records;
}

function assertSame(setup: string, write: string, atLeast: number): void {
  const fast = recorded(setup, write, "fast");
  assert.deepEqual(fast, recorded(setup, write, "reference"));
  assert.ok(fast.length >= atLeast, `${fast.length} records, expected ${atLeast} or more`);
}

const ROWS = `
create table items (id integer primary key, name text, price real, n integer, data blob,
  twice as (n * 2), thrice as (n * 3) stored);
with recursive k(i) as (select 1 union all select i + 1 from k where i < 300)
insert into items (id, name, price, n, data)
  select i * 3, 'item ' || i || ' "quoted" é ☃', i / 4.0, i * 1000000000000, x'00ff' from k;
`;

Deno.test("capture matches the reference: inserts in a stretch and scattered, of every kind of value", () => {
  assertSame(
    ROWS,
    `insert into items (id, name, price, n, data) select id + 1, name, price, n, data from items;
    insert into items (name, price) values ('auto', 3.0);
    insert into items (id, name, price, n, data) values
      (5000, null, 12.0, 9007199254740993, x''), (-7, '', -0.5, -9223372036854775808, null),
      (9223372036854775807, 'last', 1e300, 0, zeroblob(3))`,
    300,
  );
});

Deno.test("capture matches the reference: updates, deletes, upserts, replaces and key changes", () => {
  assertSame(
    ROWS,
    `update items set price = price * 2 where id % 9 = 0;
    update items set name = 'changed' where id in (3, 600, 900);
    delete from items where id between 30 and 120 or id = 897;
    insert into items (id, name) values (3, 'up') on conflict (id) do update set name = excluded.name;
    insert into items (id, name) values (4, 'new') on conflict (id) do update set name = excluded.name;
    insert or replace into items (id, name, price) values (6, 'replaced', 6.0);
    update items set id = id + 100000 where id in (12, 15);
    update items set price = 1.0 where id = 18; update items set price = 4.5 where id = 18;
    savepoint s; delete from items; rollback to s; release s`,
    100,
  );
});

Deno.test("capture matches the reference: WITHOUT ROWID, text keys, no key, cascades and triggers", () => {
  assertSame(
    `pragma foreign_keys = on;
    create table pairs (a text, b integer, v real, primary key (b, a)) without rowid;
    create table tags (tag text primary key, label);
    create table log (what text);
    create table parent (id integer primary key, name);
    create table child (id integer primary key, parent integer references parent on delete cascade
      on update cascade);
    create trigger parent_gone after delete on parent begin insert into log values (old.name); end;
    create trigger tag_seen after insert on tags begin update pairs set v = v + 1; end;
    insert into pairs values ('x', 1, 1.0), ('y', 2, 2.5), ('z', 3, null);
    insert into tags values ('a', 1), ('b', 2);
    insert into parent values (1, 'one'), (2, 'two'), (3, 'three');
    insert into child select i, 1 + i % 3 from
      (with recursive k(i) as (select 1 union all select i + 1 from k where i < 40) select i from k)`,
    `insert into pairs values ('w', 0, 0.0); delete from pairs where b = 2;
    update pairs set a = 'zz' where b = 3;
    update tags set label = 1.5 where tag = 'a'; insert into tags values ('c', 3);
    delete from parent where id = 1; update parent set id = 20 where id = 2;
    insert into log values ('direct')`,
    30,
  );
});

Deno.test("capture matches the reference: a table created, one altered, one with more than 30 columns", () => {
  const columns = Array.from({ length: 40 }, (_, i) => `c${i}`);
  assertSame(
    `create table wide (${columns.join(", ")});
    insert into wide values (${columns.map((_, i) => i % 2 ? `${i}.0` : `${i}`).join(", ")});
    create table grows (id integer primary key, a); insert into grows values (1, 1), (2, 2)`,
    `create table fresh (id integer primary key, name text, amount real);
    insert into fresh (name, amount)
      with recursive k(i) as (select 1 union all select i + 1 from k where i < 50)
      select 'n' || i, i / 2.0 from k;
    update wide set c35 = 36.0, c3 = 3, c33 = 'x';
    insert into wide select * from wide;
    alter table grows add column b default 7.0; update grows set a = 3 where id = 1;
    insert into grows (id, a) values (3, 3)`,
    54,
  );
});

Deno.test("capture matches the reference: a dropped column's table is left out, the rest kept", () => {
  assertSame(
    `create table shrinks (id integer primary key, a, b); insert into shrinks values (1, 1, 2);
    create table other (id integer primary key, a); insert into other values (1, 1)`,
    `update shrinks set a = 5; alter table shrinks drop column b; update other set a = 2`,
    1,
  );
});
