/** `html --at` in a real browser: the page opens scrolled to the event a search hit names, marked, its parents open. */
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasBrowser, launchBrowser } from "../../helpers/browser.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { tempDir } from "../../helpers/temp.ts";
import { ensureWebBuilt, exportPages, openExport, watchedPage } from "./_pages.ts";

let browser: Browser;
beforeAll(async () => {
  if (!hasBrowser) return;
  ensureWebBuilt();
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const capture = "fixtures/claude-session/ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl";

/** Where the page stands once open: the marked block's seq and text, whether it is in view, how far down the page is. */
async function opened(
  file: string,
  hash = "",
): Promise<{ seq: number; text: string; inView: boolean; scrolled: number; errors: string[] }> {
  const { page, watch } = await watchedPage(browser, 1280);
  await openExport(page, `${file}${hash}`);
  const state = await page.evaluate(() => {
    const target = document.querySelector<HTMLElement>(".as-target");
    const box = target?.getBoundingClientRect();
    return {
      seq: Number(target?.dataset.seq ?? -1),
      text: target?.textContent ?? "",
      inView: box !== undefined && box.top >= 0 && box.top < window.innerHeight,
      scrolled: window.scrollY,
    };
  });
  await page.context().close();
  return { ...state, errors: watch.errors };
}

describe.skipIf(!hasBrowser || !hasShared)("html --at", () => {
  it("opens the page at the event, and a link to #event-N does the same", async () => {
    const dir = tempDir("export-at");
    const [file] = await exportPages({ path: sharedPath(capture) }, join(dir, "at"), ["--at", "716"]);
    const at = await opened(file as string);
    expect(at).toMatchObject({ seq: 716, inView: true, errors: [] });
    expect(at.text).toContain("npm run build");
    expect(at.scrolled).toBeGreaterThan(1000);
    const [plain] = await exportPages({ path: sharedPath(capture) }, join(dir, "plain"));
    expect(await opened(plain as string)).toMatchObject({ seq: -1, scrolled: 0 });
    expect(await opened(plain as string, "#event-716")).toMatchObject({ seq: 716, inView: true });
  });
});
