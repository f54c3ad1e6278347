/**
 * The live page's search box in a real browser (Debian's chromium through playwright-core, one browser for the
 * file): typing finds the served sessions' events, a click opens the session scrolled to the event, shown and
 * marked; the facets narrow the search; the panel fits 390 px and both themes; hostile text in a session shows as
 * text and runs nothing.
 */
import { copyFileSync, existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWebAssets } from "../../../src/server/assets.ts";
import { createCatalog } from "../../../src/server/catalog.ts";
import { startServer, type SessionServer } from "../../../src/server/http-server.ts";
import { createSearchService } from "../../../src/server/search-service.ts";
import { hasBrowser, launchBrowser, noBrowserReason } from "../../helpers/browser.ts";
import { INERT, openWatchedPage, pageVerdict, xssPayloads } from "../../helpers/hostile-page.ts";
import { hasShared, repoRoot, sharedPath } from "../../helpers/shared.ts";
import { tempDir } from "../../helpers/temp.ts";

const built = existsSync(join(repoRoot, "dist/web/app.js"));
if (!hasBrowser) console.warn(`[agentstream tests] ${noBrowserReason}`);
else if (!built) console.warn("[agentstream tests] dist/ not built: test/views/web/live-search.test.ts is skipped (npm run build)");

const claudeCapture = sharedPath("fixtures/claude/archistrator_success_with_tools.jsonl");
const codexCapture = sharedPath("fixtures/codex/adkharness_warning_error_items_before_turn_zsh_command.jsonl");
/** The answer that holds the word searched for: far down a long session, so opening it must scroll. */
const TURNS = 120;
const HIT_TURN = 100;

let browser: Browser;
let server: SessionServer;
let dir: string;

/** A session in our own event format (one JSON event a line): `turns` prompts and answers, one word in one answer. */
function longSession(sessionId: string, word: string): string {
  const time = "2026-07-01T10:00:00.000Z";
  const events: object[] = [{ type: "session.started", agent: "codex", sessionId, cwd: "/work/long-project", model: "gpt-test" }];
  for (let turn = 0; turn < TURNS; turn++) {
    events.push({ type: "message.completed", messageId: `u${turn}`, role: "user", kind: "text", text: `question number ${turn}` });
    const extra = turn === HIT_TURN ? ` the ${word} is here` : "";
    const answer = `answer number ${turn}${extra}\n${"a line of the answer\n".repeat(4)}`;
    events.push({ type: "message.completed", messageId: `a${turn}`, role: "assistant", kind: "text", text: answer });
  }
  events.push({ type: "session.completed", status: "success" });
  return events
    .map((event, seq) => JSON.stringify({ v: 1, seq, time, ...event }))
    .join("\n")
    .concat("\n");
}

/** A session with a payload as its agent, folder, prompt, answer, tool name and command, each found by `marker`. */
function hostileSession(id: string, marker: string, payload: string): string {
  const time = "2026-06-01T11:00:00.000Z";
  const events: object[] = [
    { type: "session.started", agent: payload, sessionId: id, cwd: payload, model: payload },
    { type: "message.completed", messageId: "u", role: "user", kind: "text", text: `${marker} ${payload}` },
    { type: "message.completed", messageId: "a", role: "assistant", kind: "text", text: `${payload} ${marker} ${payload}` },
    { type: "tool.started", toolCallId: "t", name: payload, input: { command: `${marker} ${payload}` } },
    { type: "tool.completed", toolCallId: "t", name: payload, output: `${marker} ${payload}` },
    { type: "session.completed", status: "success" },
  ];
  return events
    .map((event, seq) => JSON.stringify({ v: 1, seq, time, ...event }))
    .join("\n")
    .concat("\n");
}

beforeAll(async () => {
  if (!hasBrowser || !built) return;
  dir = tempDir("live-search");
  writeFileSync(join(dir, "long.jsonl"), longSession("long-1", "pangolinzest"));
  if (hasShared) {
    copyFileSync(claudeCapture, join(dir, "claude.jsonl"));
    copyFileSync(codexCapture, join(dir, "codex.jsonl"));
    for (const { id, text } of xssPayloads().filter((p) => p.text.length < 100_000))
      writeFileSync(join(dir, `xss-${id}.jsonl`), hostileSession(`xss-${id}`, "hostilemarker", text));
  }
  const catalog = await createCatalog({ paths: [dir], read: { dialect: "auto", redact: true }, rescanMs: 0 });
  const search = createSearchService({ env: { HOME: dir }, cacheDir: join(dir, ".cache") });
  server = await startServer({ catalog, assets: loadWebAssets(), search });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function typeSearch(page: Page, text: string): Promise<void> {
  await page.keyboard.press("s");
  await page.keyboard.type(text);
  await answered(page, text);
}

/** Waits for the answer to the search of `text` (with the facets chosen, when given as `facets`). */
async function answered(page: Page, text: string, facets = ""): Promise<void> {
  const query = new URLSearchParams({ limit: "50", q: text }).toString() + facets;
  await page.waitForFunction((q) => {
    const panel = document.querySelector<HTMLElement>(".as-search-panel");
    return panel?.dataset.state === "done" && panel.dataset.query === q;
  }, query);
}

describe.skipIf(!hasBrowser || !built)("the search box of the live page in chromium", () => {
  it("types a word, lists the hit, and a click opens the session scrolled to its event, marked", async () => {
    const { page, dialogs, foreign } = await openWatchedPage(browser, server.origin, server.url);
    await page.locator(".as-list-item").first().waitFor();
    await typeSearch(page, "pangolinzest");
    const hits = page.locator(".as-search-hit");
    expect(await hits.count()).toBe(1);
    const hit = hits.first();
    expect(await hit.locator(".as-hit-agent").textContent()).toBe("codex");
    expect(await hit.locator(".as-hit-project").textContent()).toBe("/work/long-project");
    expect(await hit.locator(".as-hit-time").textContent()).toBe("2026-07-01 10:00 UTC");
    expect(await hit.locator("mark").allTextContents()).toEqual(["pangolinzest"]);
    const event = Number(await hit.getAttribute("data-event"));
    expect(event).toBe(2 + HIT_TURN * 2);
    await hit.click();
    const target = page.locator(".as-pane .as-hit-target");
    await target.waitFor();
    expect(await target.getAttribute("data-seq")).toBe(String(event));
    expect(await target.textContent()).toContain("the pangolinzest is here");
    await expect
      .poll(() =>
        target.evaluate((e) => {
          const box = e.getBoundingClientRect();
          const pane = (e.closest(".as-pane") as HTMLElement).getBoundingClientRect();
          return box.top >= pane.top && box.bottom <= Math.min(pane.bottom, window.innerHeight) + 1;
        }),
      )
      .toBe(true);
    // The pane scrolled: the session's first prompt is out of view.
    expect(
      await page
        .locator(".as-pane [data-seq='1']")
        .evaluate(
          (e) =>
            e.getBoundingClientRect().bottom < 0 ||
            e.getBoundingClientRect().bottom < (e.closest(".as-pane") as HTMLElement).getBoundingClientRect().top,
        ),
    ).toBe(true);
    expect(await target.evaluate((e) => getComputedStyle(e).outlineStyle)).toBe("solid");
    // Escape in the box clears it and the results.
    await page.locator(".as-global-search").click();
    await page.keyboard.press("Escape");
    expect(await page.locator(".as-global-search").inputValue()).toBe("");
    expect(await page.locator(".as-search-panel").isHidden()).toBe(true);
    expect(dialogs).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });

  it.skipIf(!hasShared)("narrows by the agent and tool facets; a real Claude Code tool call opens, marked", async () => {
    const { page } = await openWatchedPage(browser, server.origin, server.url);
    await page.locator(".as-list-item").first().waitFor();
    await typeSearch(page, "number 10");
    // 10 and 100 to 110: a question and an answer each.
    expect(await page.locator(".as-facet[data-facet='agent']").allTextContents()).toEqual(["codex 24"]);
    await page.locator(".as-global-search").fill("the");
    await answered(page, "the");
    expect(await page.locator(".as-facet[data-facet='agent']").count()).toBeGreaterThan(1);
    // 50 at a time: the next ones below them.
    expect(await page.locator(".as-search-hit").count()).toBe(50);
    await page.locator(".as-search-more").click();
    await answered(page, "the", "&offset=50");
    expect(await page.locator(".as-search-hit").count()).toBeGreaterThan(50);
    expect(await page.locator(".as-search-line").textContent()).toMatch(/^\d+\+? hits$/);
    await page.locator(".as-facet[data-facet='agent']", { hasText: "codex" }).click();
    await answered(page, "the", "&agent=codex");
    expect(new Set(await page.locator(".as-search-hit .as-hit-agent").allTextContents())).toEqual(new Set(["codex"]));
    await page.locator(".as-facet[data-facet='agent'][aria-pressed='true']").click();
    await page.locator(".as-global-search").fill("hello");
    await answered(page, "hello");
    await page.locator(".as-facet[data-facet='tool']", { hasText: "Write" }).click();
    await answered(page, "hello", "&tool=Write");
    const tools = await page.locator(".as-search-hit .as-hit-field").allTextContents();
    expect(tools.length).toBeGreaterThan(0);
    for (const tool of tools) expect(tool).toMatch(/^Write /);
    await page.locator(".as-search-hit").first().click();
    const target = page.locator(".as-pane .as-hit-target");
    await target.waitFor();
    expect(await target.evaluate((e) => e.classList.contains("as-tool"))).toBe(true);
    expect(await target.isVisible()).toBe(true);
    await page.close();
  });

  it("fits 390 px without scrolling sideways, with its marks readable in the dark theme too", async () => {
    for (const colorScheme of ["light", "dark"] as const) {
      const page = await browser.newPage({ viewport: { width: 390, height: 800 }, colorScheme });
      await page.goto(server.url);
      await page.locator(".as-list-item").first().waitFor();
      await typeSearch(page, "answer");
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      expect(overflow).toBe(0);
      const box = await page.locator(".as-global-search").boundingBox();
      expect(box?.width).toBeGreaterThan(150);
      const [mark, body] = await page
        .locator(".as-hit-snippet mark")
        .first()
        .evaluate((e) => [getComputedStyle(e).backgroundColor, getComputedStyle(document.body).backgroundColor]);
      expect(mark).not.toBe(body);
      expect(mark).toBe(colorScheme === "light" ? "rgb(255, 248, 197)" : "rgba(187, 128, 9, 0.45)");
      if (!hasShared) continue;
      // In one column the page itself scrolls: the hit's event (a real Codex capture's last answer, under a header
      // that grows as the session's end arrives) ends up in the window.
      await page.locator(".as-global-search").fill("py files");
      await answered(page, "py files");
      await page.locator(".as-search-hit").first().click();
      const target = page.locator(".as-pane .as-hit-target");
      await target.waitFor();
      await expect
        .poll(() => target.evaluate((e) => e.getBoundingClientRect().top >= 0 && e.getBoundingClientRect().top < window.innerHeight))
        .toBe(true);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(0);
      await page.close();
    }
  });

  it.skipIf(!hasShared)("shows hostile text in hits and opened sessions as text, and runs nothing", { timeout: 120_000 }, async () => {
    const { page, dialogs, foreign } = await openWatchedPage(browser, server.origin, server.url);
    await page.locator(".as-list-item").first().waitFor();
    await typeSearch(page, "hostilemarker");
    const hits = page.locator(".as-search-hit");
    expect(await hits.count()).toBeGreaterThan(20);
    expect(await page.locator(".as-search-panel").textContent()).toContain("<script>window.__xss=1</script>");
    for (let i = 0; i < 6; i++) {
      await hits.nth(i).click();
      await page.locator(".as-pane .as-hit-target").first().waitFor();
    }
    await page.mouse.move(10, 10);
    await page.locator(".as-search-panel").hover();
    expect(await pageVerdict(page)).toEqual(INERT);
    expect(dialogs).toEqual([]);
    expect(foreign).toEqual([]);
    await page.close();
  });
});
