/**
 * Browser-test support: Debian's Chromium driven by playwright-core, against a real server on
 * 127.0.0.1. When no Chromium is installed the tests are registered as ignored and one line says
 * why, so `deno task test` still passes on machines without a browser (CI installs it).
 */
import { type Browser, chromium, type Page } from "playwright-core";
import type { Service } from "../../src/service.ts";
import { serve } from "../../src/app/server.ts";

const CANDIDATES = [
  Deno.env.get("VITRINE_CHROMIUM"),
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
].filter((path): path is string => Boolean(path));

/** Path of a Chromium binary, or null. */
export const chromiumPath: string | null = CANDIDATES.find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}) ?? null;

let warned = false;

/** Registers a browser test; ignored (with a message) when Chromium is missing. */
export function browserTest(
  name: string,
  fn: (page: Page, base: string) => Promise<void>,
  makeService: () => Service,
): void {
  if (!chromiumPath && !warned) {
    warned = true;
    console.log(
      "Browser tests ignored: no Chromium found (apt-get install chromium, or set VITRINE_CHROMIUM)",
    );
  }
  Deno.test({
    name: `browser: ${name}`,
    ignore: !chromiumPath,
    sanitizeOps: false,
    sanitizeResources: false,
    fn: async () => {
      await using svc = makeService();
      const controller = new AbortController();
      let base = "";
      const server = await serve(svc, {
        port: 0,
        signal: controller.signal,
        onListen: (url) => (base = url),
      });
      let browser: Browser | null = null;
      try {
        browser = await chromium.launch({
          executablePath: chromiumPath!,
          args: [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
          ],
        });
        const page = await browser.newPage();
        // What the page said on the way, to tell a failure's cause from its symptom.
        const trail: string[] = [];
        page.on("pageerror", (error) => trail.push(`page error: ${error.message}`));
        page.on("console", (message) => {
          if (message.type() === "error") trail.push(`console: ${message.text()}`);
        });
        page.on(
          "requestfailed",
          (request) =>
            trail.push(`request failed: ${request.url()} ${request.failure()?.errorText}`),
        );
        try {
          await fn(page, base);
        } catch (error) {
          if (trail.length && error instanceof Error) {
            error.message += `\n${trail.join("\n")}`;
          }
          throw error;
        }
      } finally {
        await browser?.close();
        controller.abort();
        await server.finished;
      }
    },
  });
}
