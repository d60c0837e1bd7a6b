/**
 * What the UI browser tests share: the four screens they run on (1280×900 and 390×844, light
 * and dark), a service with the demo database plus `slow.db` (a view whose facet cannot finish
 * in time), and in-page checks written as strings so the test files need no DOM type library.
 */
import type { Page } from "playwright-core";
import { Service } from "../../src/service.ts";
import { Connection } from "../../src/sqlite/mod.ts";
import { parse_metadata } from "../../src/config/metadata.ts";

/** One screen the tests run on. */
export interface Screen {
  name: string;
  width: number;
  height: number;
  scheme: "light" | "dark";
}

export const SCREENS: Screen[] = [
  { name: "1280×900 light", width: 1280, height: 900, scheme: "light" },
  { name: "1280×900 dark", width: 1280, height: 900, scheme: "dark" },
  { name: "390×844 light", width: 390, height: 844, scheme: "light" },
  { name: "390×844 dark", width: 390, height: 844, scheme: "dark" },
];

/** Sizes the page and sets its colour scheme. */
export async function useScreen(page: Page, screen: Screen): Promise<void> {
  await page.setViewportSize({ width: screen.width, height: screen.height });
  await page.emulateMedia({ colorScheme: screen.scheme });
}

let built: string | null = null;

/** Builds demo.db and slow.db once per test process; later services reuse the files. */
function databases(): string {
  if (built) return built;
  const dir = Deno.makeTempDirSync({ prefix: "vitrine-ui-" });
  const result = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-lock",
      new URL("../../demo/build.ts", import.meta.url).pathname,
      `${dir}/demo.db`,
    ],
    stdout: "null",
  }).outputSync();
  if (result.code !== 0) throw new Error(new TextDecoder().decode(result.stderr));
  // Ten million generated rows: a page of them is instant, counting them per value is not.
  const slow = Connection.open(`${dir}/slow.db`, { mode: "rwc" });
  slow.exec(
    "create view counting as with recursive n(i) as (select 1 union all select i + 1 from n " +
      "limit 10000000) select i as id, i % 7 as k from n",
  );
  slow.close();
  built = dir;
  return dir;
}

/**
 * The demo (with its metadata) and slow.db, maps drawn without tiles (no network in tests), plus
 * any other `settings`.
 */
export function uiService(settings: Record<string, unknown> = {}): Service {
  const dir = databases();
  const metadata = parse_metadata(
    Deno.readTextFileSync(new URL("../../demo/metadata.yaml", import.meta.url)),
  );
  return new Service({
    files: [`${dir}/demo.db`, `${dir}/slow.db`],
    metadata,
    // A generous query limit: a loaded test machine must not turn a map's 1,000-row page into
    // a "query interrupted" answer (slow.db's facet has its own, shorter limit).
    settings: { map_tile_url: "", sql_time_limit_ms: 10_000, ...settings },
  });
}

/**
 * Elements that stick out of the window and cannot be scrolled to: each one outside the window
 * must sit in a box that scrolls sideways and itself fits the window. Map internals (Leaflet
 * positions tiles and markers outside its clipped frame on purpose) and visually hidden text
 * are left out.
 */
export function unreachable(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const width = document.documentElement.clientWidth;
    const problems = [];
    for (const el of document.querySelectorAll("body *")) {
      if (el.closest(".leaflet-container, .visually-hidden, [hidden], script, style")) continue;
      // The contents of a closed <details> are not shown.
      if (el.closest("details:not([open]) > :not(summary)")) continue;
      const box = el.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) continue;
      if (box.right <= width + 1 && box.left >= -1) continue;
      let reachable = false;
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
        const style = getComputedStyle(up);
        if (/auto|scroll/.test(style.overflowX) && up.scrollWidth > up.clientWidth) {
          const outer = up.getBoundingClientRect();
          reachable = outer.right <= width + 1 && outer.left >= -1;
          break;
        }
      }
      if (!reachable) problems.push(el.tagName.toLowerCase() + "." + String(el.className));
    }
    return problems.slice(0, 10);
  })()`);
}

/** Boxes that scroll up and down inside the page (hiding rows or facet values). */
export function innerVerticalScrollers(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(`(() => [...document.querySelectorAll("main *")]
    .filter((el) => !el.closest(".leaflet-container, .cm-editor, .visually-hidden"))
    .filter((el) => el.scrollHeight > el.clientHeight + 2 &&
      /auto|scroll|hidden/.test(getComputedStyle(el).overflowY) && el.clientHeight > 0)
    .map((el) => el.tagName.toLowerCase() + "." + String(el.className)))()`);
}

/** Top of the element's box relative to the window. */
export function topOf(page: Page, selector: string): Promise<number> {
  return page.evaluate<number>(
    `document.querySelector(${JSON.stringify(selector)}).getBoundingClientRect().top`,
  );
}

/** True when the centre of the element is what the window shows there (not covered). */
export function onTop(page: Page, selector: string): Promise<boolean> {
  return page.evaluate<boolean>(`(() => {
    const el = document.querySelector(${JSON.stringify(selector)});
    const box = el.getBoundingClientRect();
    const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    return Boolean(hit) && (hit === el || el.contains(hit));
  })()`);
}

/** Relative luminance (WCAG) of the computed background of the first match. */
export function backgroundLuminance(page: Page, selector: string): Promise<number> {
  return page.evaluate<number>(`(() => {
    const color = getComputedStyle(document.querySelector(${JSON.stringify(selector)}))
      .backgroundColor;
    const [r, g, b] = color.match(/[\\d.]+/g).slice(0, 3).map((part) => {
      const c = Number(part) / 255;
      return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  })()`);
}
