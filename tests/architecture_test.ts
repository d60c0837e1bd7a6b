/**
 * The layer rule of DESIGN.md "Layout": a module under `src/` imports only from its own layer or
 * the layers below it. Runtime imports, type imports, dynamic `import()`s and module URLs built
 * with `new URL("…", import.meta.url)` (worker entries) all count. The one exception is
 * `src/plugins/hookspecs.ts`, which describes every hook's parameters and so may import *types*
 * from any layer.
 */
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

/** Top to bottom. Each entry: the layer's name and the path prefixes that belong to it. */
const LAYERS: [string, string[]][] = [
  ["cli", ["src/cli/"]],
  // The composition root: builds the pipeline (`svc.client`, `svc.handler()`), so it sits above
  // app/; the layers below see it only through the interfaces they declare (`*/host.ts`).
  ["service", ["src/service.ts"]],
  ["app", ["src/app/"]],
  // Core behaviour written as plugins sits beside the views.
  ["views", ["src/views/", "src/plugins/defaults/"]],
  ["render", ["src/render/"]],
  ["table", ["src/table/"]],
  ["auth", ["src/auth/"]],
  ["config", ["src/config/"]],
  ["plugins", ["src/plugins/"]],
  ["http", ["src/http/"]],
  ["db", ["src/db/"]],
  ["sqlite", ["src/sqlite/"]],
  ["util", ["src/util/", "src/version.ts"]],
];

const TYPE_EXCEPTION = "src/plugins/hookspecs.ts";

/** One import edge: who imports what, and whether only types cross it. */
export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** The layer index of a repository path (0 is the top), or -1 outside the layered tree. */
function layerOf(path: string): number {
  let best = -1;
  let bestLength = 0;
  LAYERS.forEach(([, prefixes], index) => {
    for (const prefix of prefixes) {
      // The longest prefix wins: `src/plugins/defaults/` before `src/plugins/`.
      if (path.startsWith(prefix) && prefix.length > bestLength) {
        [best, bestLength] = [index, prefix.length];
      }
    }
  });
  return best;
}

/** Every edge that points up the layer list, as readable sentences. */
export function layerViolations(edges: ImportEdge[]): string[] {
  const problems: string[] = [];
  for (const { from, to, typeOnly } of edges) {
    const [source, target] = [layerOf(from), layerOf(to)];
    if (source < 0 || target < 0 || target >= source) continue;
    if (from === TYPE_EXCEPTION && typeOnly) continue;
    problems.push(
      `${from} (${LAYERS[source][0]}) imports ${to} (${LAYERS[target][0]}), a layer above it`,
    );
  }
  for (const { from, to } of edges) {
    if (layerOf(from) === 3 && to.startsWith("src/sqlite/")) {
      problems.push(`${from} is a view and imports ${to}: views go through src/db/`);
    }
  }
  return problems;
}

const SPECIFIERS = [
  // import … from "x" / export … from "x" (type-only when the statement starts with `import type`
  // or `export type`)
  /^\s*(import|export)\s+(type\s+)?(?:[^;]*?\s+from\s+)?["'](\.{1,2}\/[^"']+)["']/gm,
  // import("x")
  /\bimport\(\s*["'](\.{1,2}\/[^"']+)["']\s*\)/g,
  // new URL("x", import.meta.url)
  /new URL\(\s*["'](\.{1,2}\/[^"']+)["']\s*,\s*import\.meta\.url\s*\)/g,
];

/** The import edges of one module's source text (paths relative to the repository root). */
export function importsOf(path: string, source: string): ImportEdge[] {
  const edges: ImportEdge[] = [];
  const directory = path.slice(0, path.lastIndexOf("/") + 1);
  const resolve = (specifier: string) =>
    new URL(specifier, `file:///${directory}`).pathname.slice(1);
  for (const match of source.matchAll(SPECIFIERS[0])) {
    edges.push({ from: path, to: resolve(match[3]), typeOnly: Boolean(match[2]) });
  }
  for (const pattern of SPECIFIERS.slice(1)) {
    for (const match of source.matchAll(pattern)) {
      edges.push({ from: path, to: resolve(match[1]), typeOnly: false });
    }
  }
  return edges;
}

const ROOT = fileURLToPath(new URL("..", import.meta.url));

async function sourceEdges(): Promise<ImportEdge[]> {
  const edges: ImportEdge[] = [];
  async function walk(directory: string) {
    for await (const entry of Deno.readDir(directory)) {
      const path = join(directory, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith(".ts")) {
        edges.push(...importsOf(relative(ROOT, path), await Deno.readTextFile(path)));
      }
    }
  }
  await walk(join(ROOT, "src"));
  return edges;
}

Deno.test("architecture: every import in src/ points down the layer list", async () => {
  const edges = await sourceEdges();
  assert.ok(edges.length > 300, `only ${edges.length} imports found: is the parser broken?`);
  assert.deepEqual(layerViolations(edges), []);
});

Deno.test("architecture: every module under src/ belongs to a layer", async () => {
  const unplaced = (await sourceEdges()).map((edge) => edge.from).filter((path) =>
    layerOf(path) < 0
  );
  assert.deepEqual([...new Set(unplaced)], []);
});

Deno.test("architecture: an upward import is reported with both modules and layers", () => {
  const edges = [
    ...importsOf("src/db/pool.ts", 'import { renderPage } from "../render/render_page.ts";'),
    ...importsOf("src/http/request.ts", 'import type { Actor } from "../auth/allow.ts";'),
    ...importsOf("src/views/row/row.ts", 'import { Connection } from "../../sqlite/mod.ts";'),
    ...importsOf("src/db/pool.ts", 'const w = new URL("../app/read_worker.ts", import.meta.url);'),
    ...importsOf("src/render/x.ts", 'const m = await import("../views/host.ts");'),
    // Downward and same-layer imports are fine.
    ...importsOf("src/views/row/row.ts", 'import { Database } from "../../db/database.ts";'),
    ...importsOf(
      "src/plugins/defaults/a.ts",
      'import type { ViewHost } from "../../views/host.ts";',
    ),
  ];
  assert.deepEqual(layerViolations(edges), [
    "src/db/pool.ts (db) imports src/render/render_page.ts (render), a layer above it",
    "src/http/request.ts (http) imports src/auth/allow.ts (auth), a layer above it",
    "src/db/pool.ts (db) imports src/app/read_worker.ts (app), a layer above it",
    "src/render/x.ts (render) imports src/views/host.ts (views), a layer above it",
    "src/views/row/row.ts is a view and imports src/sqlite/mod.ts: views go through src/db/",
  ]);
});

Deno.test("architecture: hookspecs.ts may import types from any layer, nothing else", () => {
  const types = importsOf(TYPE_EXCEPTION, 'import type { Service } from "../service.ts";');
  const runtime = importsOf(TYPE_EXCEPTION, 'import { Service } from "../service.ts";');
  assert.deepEqual(layerViolations(types), []);
  assert.equal(layerViolations(runtime).length, 1);
});
