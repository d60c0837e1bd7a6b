/**
 * A CSV uploaded in the browser, end to end: Debian's Chromium (playwright-core) chooses the file
 * on a database page, previews it, presses Upload and waits for "Done"; the time from the press to
 * "Done" is what an editor waits. The browser cuts the file into parts of at most
 * `max_post_body_bytes` (default 2 MiB) and sends them to `/<db>/<table>/-/upload`, which reads
 * each with the importer and inserts it in one transaction, into a database file in the system's
 * temporary folder. The floor, measured in the same run, is `vitrine insert` of the same file (one
 * process, one transaction).
 *
 * The change history (`docs/history.md`) is off for the database unless `--history` is given:
 * with it on, as it is by default, each uploaded row is also recorded, by default in the in-memory
 * internal database (trimmed to 32 MB, oldest first).
 *
 * Run: `deno run -A bench/upload.ts [MB] [max_post_body_bytes] [--history]` (default 50 MB, 2 MiB).
 */

import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { Connection } from "../src/sqlite/connection.ts";
import { Service } from "../src/service.ts";
import { serve } from "../src/app/server.ts";
import { encodeActorCookie } from "../src/auth/actor_cookie.ts";
import { chromiumPath } from "../tests/browser/browser.ts";

const numbers = Deno.args.filter((arg) => !arg.startsWith("--"));
const MB = Number(numbers[0] ?? 50);
const PART = Number(numbers[1] ?? 2 * 1024 * 1024);
const history = Deno.args.includes("--history");
const CLI = fileURLToPath(new URL("../cli.ts", import.meta.url));
const EDITOR = { id: "editor" };

if (!chromiumPath) {
  console.log("No Chromium found (apt-get install chromium, or set VITRINE_CHROMIUM)");
  Deno.exit(1);
}

const dir = Deno.makeTempDirSync({ prefix: "vitrine-bench-upload-" });

/** A CSV of about `bytes` bytes: a code with leading zeros, a quoted label, a real, a date. */
function writeCsv(path: string, bytes: number): number {
  const lines = ["code,label,amount,day"];
  let size = 0;
  let rows = 0;
  while (size < bytes) {
    rows++;
    const line =
      `${String(rows).padStart(8, "0")},"Item ${rows}, boxed",${(rows / 8).toFixed(3)},` +
      `2024-03-${String(rows % 28 + 1).padStart(2, "0")}`;
    lines.push(line);
    size += line.length + 1;
  }
  Deno.writeTextFileSync(path, lines.join("\n") + "\n");
  return rows;
}

const csv = `${dir}/deliveries.csv`;
const rows = writeCsv(csv, MB * 1024 * 1024);
const size = Deno.statSync(csv).size;
console.log(`CSV: ${rows.toLocaleString("en")} rows, ${(size / 1024 / 1024).toFixed(1)} MB`);

// The floor: the command-line import of the same file.
const floorStarted = performance.now();
const floor = await new Deno.Command(Deno.execPath(), {
  args: ["run", "-A", CLI, "insert", `${dir}/floor.db`, "deliveries", csv, "--silent"],
}).output();
if (!floor.success) throw new Error(new TextDecoder().decode(floor.stderr));
const floorSeconds = (performance.now() - floorStarted) / 1000;

const dbPath = `${dir}/shop.db`;
Connection.open(dbPath, { mode: "rwc" }).close();
const svc = new Service({
  files: [dbPath],
  metadata: {
    databases: {
      shop: {
        permissions: { "create-table": EDITOR, "insert-row": EDITOR },
        ...(history ? {} : { history: "off" }),
      },
    },
  },
  settings: { max_post_body_bytes: PART },
});
const controller = new AbortController();
let base = "";
const server = await serve(svc, {
  port: 0,
  signal: controller.signal,
  onListen: (url) => (base = url),
});
const browser = await chromium.launch({
  executablePath: chromiumPath,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
});
let seconds = 0;
try {
  const page = await browser.newPage();
  await page.context().addCookies([
    { name: "ds_actor", value: encodeActorCookie(svc.signer, EDITOR), url: base },
  ]);
  await page.goto(`${base}/shop`);
  await page.getByText("Upload a CSV file as a new table").click();
  await page.locator(".upload-file").setInputFiles(csv);
  await page.locator(".upload-preview-table").waitFor();
  const started = performance.now();
  await page.getByRole("button", { name: "Upload" }).click();
  // The end: "Done", or the error that stopped the upload.
  const end = page.locator(".upload-done:visible, .upload-error:visible").first();
  await end.waitFor({ timeout: 30 * 60_000 });
  seconds = (performance.now() - started) / 1000;
  const done = await end.textContent() ?? "";
  if (!done.startsWith(`Done: ${rows.toLocaleString("en")} rows added.`)) {
    throw new Error(`The upload ended with: ${done}`);
  }
} finally {
  await browser.close();
  controller.abort();
  await server.finished;
  await svc.close();
}
const check = Connection.open(dbPath, { mode: "ro" });
const stored = Number(check.query("select count(*) from deliveries").rows[0][0]);
check.close();
Deno.removeSync(dir, { recursive: true });
if (stored !== rows) throw new Error(`${stored} rows stored, ${rows} expected`);

const line = (name: string, s: number) =>
  `${name.padEnd(44)} ${s.toFixed(1).padStart(7)} s ${
    Math.round(rows / s).toLocaleString("en").padStart(9)
  } rows/s ${(floorSeconds / s).toFixed(2).padStart(6)}x`;
console.log(
  `${"".padEnd(44)} ${"time".padStart(9)} ${"rows/s".padStart(16)} ${"ratio".padStart(7)}`,
);
console.log(line("vitrine insert (floor)", floorSeconds));
console.log(
  line(
    `browser upload, parts of ${(PART / 1024).toLocaleString("en")} KiB${
      history ? ", history" : ""
    }`,
    seconds,
  ),
);
