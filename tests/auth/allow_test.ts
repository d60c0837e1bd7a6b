import assert from "node:assert/strict";
import { actor_matches_allow } from "../../src/auth/allow.ts";

// [actor, allow block, expected] — the cases of API-DETAILS §15 and Datasette's documentation.
const CASES: [Record<string, unknown> | null, unknown, boolean][] = [
  [{ id: "root" }, undefined, true],
  [null, undefined, true],
  [null, null, true],
  [{ id: "root" }, true, true],
  [null, true, true],
  [{ id: "root" }, false, false],
  [null, false, false],
  [{ id: "root" }, {}, false],
  [{ id: "root" }, { id: "root" }, true],
  [{ id: "root" }, { id: "alice" }, false],
  [null, { id: "root" }, false],
  [{ id: "root" }, { id: "*" }, true],
  [{ name: "x" }, { id: "*" }, false],
  [null, { id: "*" }, false],
  [{ id: "bob" }, { id: ["alice", "bob"] }, true],
  [{ id: "carl" }, { id: ["alice", "bob"] }, false],
  [{ id: "x", roles: ["staff", "dev"] }, { roles: ["admin", "dev"] }, true],
  [{ id: "x", roles: ["staff"] }, { roles: "staff" }, true],
  [{ id: "x", roles: ["staff"] }, { roles: ["admin"] }, false],
  [{ id: "x", roles: [] }, { roles: ["admin"] }, false],
  // keys are OR-ed
  [{ id: "x", team: "blue" }, { id: "alice", team: "blue" }, true],
  [{ id: "x", team: "red" }, { id: "alice", team: "blue" }, false],
  [null, { unauthenticated: true }, true],
  [{ id: "root" }, { unauthenticated: true }, false],
  [null, { unauthenticated: true, id: "root" }, true],
  [{ id: "root" }, { unauthenticated: true, id: "root" }, true],
  [null, { unauthenticated: false }, false],
  // values compare strictly: 1 is not "1"
  [{ id: 1 }, { id: "1" }, false],
  [{ id: 1 }, { id: [1, 2] }, true],
  [{ id: null }, { id: "*" }, true],
];

Deno.test("actor_matches_allow() follows the allow-block rules", async (t) => {
  for (const [actor, allow, expected] of CASES) {
    await t.step(`${JSON.stringify(actor)} vs ${JSON.stringify(allow)} → ${expected}`, () => {
      assert.equal(actor_matches_allow(actor, allow as never), expected);
    });
  }
});
