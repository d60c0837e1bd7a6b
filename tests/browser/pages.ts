/**
 * Small helpers shared by the browser tests: what a user sees on a page (body classes, the
 * summary line, the visible cells of a column) read through Playwright.
 */
import type { Page } from "playwright-core";

/** The `<body>` classes, in document order. */
export async function bodyClasses(page: Page): Promise<string[]> {
  const value = await page.getAttribute("body", "class");
  return (value ?? "").split(/\s+/).filter(Boolean);
}

/** Trimmed text of the first element matching `selector`, or null when absent. */
export async function textOf(page: Page, selector: string): Promise<string | null> {
  const locator = page.locator(selector).first();
  if ((await locator.count()) === 0) return null;
  return (await locator.innerText()).replace(/\s+/g, " ").trim();
}

/** The text of every data cell of one column in the rows table. */
export async function columnValues(page: Page, column: string): Promise<string[]> {
  const cells = await page.locator(`table.rows-and-columns tbody td.col-${column}`).allInnerTexts();
  return cells.map((text) => text.replace(/\s+/g, " ").trim());
}

/** Whether the page is wider than the viewport (a horizontal page scrollbar). */
export function overflowsHorizontally(page: Page): Promise<boolean> {
  // A string, so the test files need no DOM type library.
  return page.evaluate<boolean>(
    "document.documentElement.scrollWidth > document.documentElement.clientWidth",
  );
}

/**
 * Replaces the SQL in the page's editor: the CodeMirror editor when the `sql_editor` plugin has
 * enhanced the text box, else the text box itself.
 */
export async function typeSql(page: Page, sql: string): Promise<void> {
  const editor = page.locator(".cm-content").first();
  if (await editor.count()) {
    await editor.click();
    await page.keyboard.press("Control+a");
    await page.keyboard.insertText(sql);
  } else {
    await page.fill("textarea[name=sql]", sql);
  }
}

/**
 * Waits until the JavaScript expression `expression` is truthy in the page. Playwright's
 * `waitForFunction` with a string polls through `eval` in the page, which the pages'
 * Content-Security-Policy (no `'unsafe-eval'`) forbids; evaluating from outside is not subject
 * to it.
 */
export async function waitForExpression(
  page: Page,
  expression: string,
  timeoutMs = 10_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate(`Boolean(${expression})`))) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${expression}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
