/**
 * Issue 37 item 20: what the docs say is checked against the code where it can be — the settings
 * table of docs/configuration.md lists every setting with its real default, and names no feature
 * "not implemented" that is; docs/plugins.md names every hook there is and no other.
 */
import assert from "node:assert/strict";
import { DEFAULT_SETTINGS } from "../src/config/settings.ts";
import { HOOK_NAMES } from "../src/plugins/hook_names.ts";

const text = Deno.readTextFileSync(new URL("../docs/configuration.md", import.meta.url));

/** `| \`name\` | \`default\` | meaning |` rows of the settings table. */
function documentedSettings(): Map<string, { default: string; meaning: string }> {
  const rows = new Map<string, { default: string; meaning: string }>();
  for (const line of text.split("\n")) {
    // A default in backticks is the value itself; in words (`OpenStreetMap`) it is described.
    const match = /^\| `([a-z_]+)`\s*\| (`[^`]*`|[^|`]+?)\s*\| (.*)\|$/.exec(line);
    if (match) {
      rows.set(match[1], { default: match[2].replace(/^`|`$/g, ""), meaning: match[3].trim() });
    }
  }
  return rows;
}

Deno.test("docs/configuration.md lists every setting with its default", () => {
  const documented = documentedSettings();
  for (const setting of DEFAULT_SETTINGS) {
    const row = documented.get(setting.name);
    assert.ok(row, `${setting.name} is not documented`);
    if (/^[A-Z(]/.test(row.default)) continue; // described in words: OpenStreetMap, (none)
    assert.equal(row.default, String(setting.default), setting.name);
  }
});

Deno.test("docs/configuration.md does not call template_debug's ?_context=1 unimplemented", () => {
  const row = documentedSettings().get("template_debug");
  assert.ok(row);
  assert.match(row.meaning, /\?_context=1/);
  assert.doesNotMatch(row.meaning, /not implemented|no effect/);
});

Deno.test("docs/plugins.md names every hook, and only hooks that exist", () => {
  const plugins = Deno.readTextFileSync(new URL("../docs/plugins.md", import.meta.url));
  for (const name of HOOK_NAMES) assert.match(plugins, new RegExp(`\\b${name}\\b`), name);
  const listed = [...plugins.matchAll(/^\| `([a-z_]+)\(/gm)].map((m) => m[1]);
  assert.ok(listed.length > 30, "the hook table was found");
  for (const name of listed) assert.ok(HOOK_NAMES.includes(name as never), name);
});
