/**
 * The core `write_wrapper`'s schema events (alter-table, rename-table) when the schema also
 * changes outside it: it keeps the tables it read before a write while the schema cookie stays,
 * so a change made by another connection, or a write that rolled back, must not leave it
 * comparing against tables that are no more.
 */
import assert from "node:assert/strict";
import type { Service } from "../../../src/service.ts";
import { Connection } from "../../../src/sqlite/mod.ts";
import { post, withWriter } from "../../views/write/_write_helpers.ts";

interface Seen {
  name: string;
  properties: Record<string, unknown>;
}

function recordEvents(svc: Service): Seen[] {
  const events: Seen[] = [];
  svc.pm.register({
    track_event: ({ event }: { event: { name: string; properties(): Record<string, unknown> } }) =>
      void events.push({ name: event.name, properties: event.properties() }),
  }, { name: "event-recorder" });
  return events;
}

/** Changes the file's schema through a connection of its own, as another process would. */
function alterOutside(svc: Service, sql: string): void {
  const conn = Connection.open(svc.get_database("shop").path!);
  try {
    conn.exec(sql);
  } finally {
    conn.close();
  }
}

const schemaEvents = (events: Seen[]) =>
  events.filter((event) => event.name === "alter-table" || event.name === "rename-table");

Deno.test("alter-table compares with the schema as it is, after changes made elsewhere", async () => {
  await withWriter(async (svc) => {
    const events = recordEvents(svc);
    // Rows only: no schema event.
    assert.equal((await post(svc, "/shop/log/-/insert", { rows: [{ message: "a" }] })).status, 201);
    assert.deepEqual(schemaEvents(events), []);

    alterOutside(svc, "alter table log add column outside text");
    assert.equal((await post(svc, "/shop/log/-/insert", { rows: [{ message: "b" }] })).status, 201);
    // Not this write's change: nothing to tell.
    assert.deepEqual(schemaEvents(events), []);

    const altered = await post(svc, "/shop/log/-/insert", {
      rows: [{ message: "c", source: "cron" }],
      alter: true,
    });
    assert.equal(altered.status, 201, altered.text);
    const [event] = schemaEvents(events);
    assert.equal(event.name, "alter-table");
    assert.match(String(event.properties.before_schema), /outside text/);
    assert.doesNotMatch(String(event.properties.before_schema), /source/);
    assert.match(String(event.properties.after_schema), /outside text, \[source\] TEXT/);
  });
});

Deno.test("a write that rolled back leaves no trace in the next write's alter-table", async () => {
  await withWriter(async (svc) => {
    const events = recordEvents(svc);
    // The new column is added, then the second row fails: all of it rolls back.
    const failed = await post(svc, "/shop/categories/-/insert", {
      rows: [{ name: "ok", colour: "red" }, { name: null }],
      alter: true,
    });
    assert.equal(failed.status, 400, failed.text);
    // Another process moves the schema cookie as far as the rolled-back write had.
    alterOutside(svc, "alter table categories add column size integer");
    const altered = await post(svc, "/shop/categories/-/insert", {
      rows: [{ name: "fine", weight: 2 }],
      alter: true,
    });
    assert.equal(altered.status, 201, altered.text);
    assert.deepEqual(schemaEvents(events).map((event) => event.name), ["alter-table"]);
    const { before_schema, after_schema } = schemaEvents(events)[0].properties;
    assert.match(String(before_schema), /size integer\)$/);
    assert.doesNotMatch(String(before_schema), /colour|weight/);
    assert.match(String(after_schema), /size integer, \[weight\] INTEGER\)$/);
  });
});

Deno.test("rename-table after another connection renamed a table too", async () => {
  await withWriter(async (svc) => {
    const events = recordEvents(svc);
    assert.equal((await post(svc, "/shop/log/-/insert", { rows: [{ message: "a" }] })).status, 201);
    alterOutside(svc, "alter table orders rename to purchases");
    const response = await post(svc, "/shop/log/-/alter", {
      operations: [{ op: "rename_table", args: { to: "journal" } }],
    });
    assert.equal(response.status, 200, response.text);
    assert.deepEqual(
      schemaEvents(events).map((event) => [event.name, event.properties.old_table]),
      [["rename-table", "log"]],
    );
  });
});
