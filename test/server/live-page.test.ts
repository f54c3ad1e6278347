/**
 * The live page in a real browser (Debian's chromium through playwright-core): a live run reaches
 * the page, a broken connection resumes without gap or duplicate, and no payload of
 * ../shared/corpus/web/xss-payloads.json, in any slot the page shows, executes anything.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/model/events.ts";
import { loadWebAssets } from "../../src/server/assets.ts";
import { createCatalog, type SessionCatalog } from "../../src/server/catalog.ts";
import { startServer, type SessionServer } from "../../src/server/http-server.ts";
import { SessionFeed } from "../../src/server/session-feed.ts";
import { hasBrowser, launchBrowser, noBrowserReason } from "../helpers/browser.ts";
import { hostileSessionEvents, INERT, openWatchedPage, pageVerdict, xssPayloads } from "../helpers/hostile-page.ts";
import { readAll } from "../helpers/read.ts";
import { hasShared, repoRoot, sharedPath } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const bin = join(repoRoot, "dist/cli/bin.js");
const built = existsSync(join(repoRoot, "dist/web/app.js")) && existsSync(bin);
if (!hasBrowser) console.warn(`[agentstream tests] ${noBrowserReason}`);
else if (!built) console.warn("[agentstream tests] dist/ not built: test/server/live-page.test.ts is skipped (npm run build)");

let browser: Browser;
let catalog: SessionCatalog;
let server: SessionServer;
let dir: string;

/** A page logged in (the URL's token exchanged for the cookie), counting what must never happen. */
async function openPage(fragment = ""): Promise<{ page: Page; dialogs: string[]; foreign: string[] }> {
  return openWatchedPage(browser, server.origin, `${server.url}${fragment}`);
}

let seq = 0;
const ev = (fields: Record<string, unknown>): AgentEvent => ({ v: 1, seq: seq++, time: new Date().toISOString(), ...fields }) as AgentEvent;

beforeAll(async () => {
  if (!hasBrowser || !built) return;
  dir = tempDir("live");
  catalog = await createCatalog({ paths: [dir], read: { dialect: "auto", redact: true }, pollMs: 50, rescanMs: 0 });
  server = await startServer({ catalog, assets: loadWebAssets() });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe.skipIf(!hasBrowser || !built)("the live page in chromium", () => {
  it("shows a run log's new lines as they are appended, and says when the run ended", async () => {
    const lines = readAll([readFileSync(join(repoRoot, "test/fixtures/claude/edit-write-todowrite-file-changed-plan.ndjson"))]).events.map(
      (e) => JSON.stringify(e),
    );
    writeFileSync(join(dir, "run-a.raw"), "");
    writeFileSync(join(dir, "run-a.events.ndjson"), `${lines.slice(0, 2).join("\n")}\n`);
    const { page } = await openPage();
    await page.locator(".as-list-item").first().click();
    const pane = page.locator(".as-pane");
    await pane.locator("[data-seq='1']").waitFor();
    expect(await pane.locator(".as-liveness").textContent()).not.toBe("ended");
    appendFileSync(join(dir, "run-a.events.ndjson"), `${lines.slice(2, -1).join("\n")}\n`);
    await page.waitForFunction(() => document.querySelector(".as-pane")?.getAttribute("data-seq") === "16");
    appendFileSync(join(dir, "run-a.events.ndjson"), `${lines.at(-1)}\n`);
    writeFileSync(join(dir, "run-a.summary.json"), "{}\n");
    await page.locator(".as-pane[data-ended='yes']").waitFor();
    expect(await pane.locator(".as-liveness").textContent()).toBe("ended");
    expect(await pane.locator(".as-end").textContent()).toMatch(/session success/);
    await page.close();
  });

  it("resumes a broken stream without a gap or a duplicate", async () => {
    const feed = new SessionFeed("resume", { file: null, live: true });
    catalog.add(feed);
    seq = 0;
    feed.push(ev({ type: "session.started", agent: "fake", cwd: "/w" }));
    for (let i = 1; i <= 10; i++) feed.push(ev({ type: "text", text: `line ${i}` }));
    const { page } = await openPage("#open=resume");
    await page.waitForFunction(() => document.querySelector(".as-pane")?.getAttribute("data-seq") === "10");
    await page.context().setOffline(true); // the connection dies in the middle
    for (let i = 11; i <= 20; i++) feed.push(ev({ type: "text", text: `line ${i}` }));
    await page.context().setOffline(false);
    await page.waitForFunction(() => document.querySelector(".as-pane")?.getAttribute("data-seq") === "20");
    const shown = await page.locator(".as-pane .as-meta-entry").allTextContents();
    expect(shown).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i + 1}`));
    feed.end();
    await page.close();
  });

  it("a run through `agentstream run --serve` reaches the page as the agent writes it", async () => {
    const child: ChildProcess = spawn(process.execPath, [bin, "run", "--serve", "--from", "claude", "--mode", "none", "--", "cat"], {
      stdio: ["pipe", "ignore", "pipe"],
    });
    const closed = new Promise((resolve) => child.on("close", resolve));
    let stderr = "";
    const url = await new Promise<string>((resolve) => {
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        const found = /watch it at (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(stderr)?.[1];
        if (found !== undefined) resolve(found);
      });
    });
    const page = await browser.newPage();
    await page.goto(url);
    const say = (record: object): void => void child.stdin?.write(`${JSON.stringify(record)}\n`);
    say({ type: "system", subtype: "init", session_id: "live", cwd: "/work/live", model: "m", tools: [] });
    await page.locator(".as-pane").waitFor(); // the run's one session opens by itself
    say({
      type: "assistant",
      session_id: "live",
      message: { id: "m1", role: "assistant", content: [{ type: "text", text: "first answer" }] },
    });
    await page.getByText("first answer").waitFor();
    say({
      type: "assistant",
      session_id: "live",
      message: { id: "m2", role: "assistant", content: [{ type: "text", text: "second answer" }] },
    });
    await page.getByText("second answer").waitFor();
    expect(await page.locator(".as-liveness").textContent()).toBe("working");
    say({ type: "result", subtype: "success", session_id: "live", result: "second answer", is_error: false });
    child.stdin?.end();
    await page.locator(".as-pane[data-ended='yes']").waitFor();
    await closed;
    await page.close();
  });
});

describe.skipIf(!hasBrowser || !built || !hasShared)("a Claude Code session with a subagent file", () => {
  it("lists the subagent under its parent, each row with its title, and opens it", async () => {
    const session = "a4731909-31bc-4ad5-bac9-cd59ee7e0615";
    const project = join(dir, "project");
    mkdirSync(join(project, session, "subagents"), { recursive: true });
    copyFileSync(sharedPath("fixtures/claude-session/ralph_2.1.223_interactive_parent_a4731909.jsonl"), join(project, `${session}.jsonl`));
    for (const ext of [".jsonl", ".meta.json"])
      copyFileSync(
        sharedPath(`fixtures/claude-session/ralph_2.1.223_interactive_a4731909_subagents/agent-a4ff0e1ce30e00726${ext}`),
        join(project, session, "subagents", `agent-a4ff0e1ce30e00726${ext}`),
      );
    const parent = (await catalog.list()).find((s) => s.file === join(project, `${session}.jsonl`));
    const subagent = parent?.subagents[0];
    if (parent === undefined || subagent === undefined) throw new Error("the session and its subagent are not listed");
    const { page } = await openPage();
    const row = page.locator(`.as-list-item[data-session="${parent.id}"]`);
    expect(await row.locator(".as-list-title").textContent()).toBe("Revise plan with repository evidence and feedback");
    const nested = page.locator(`.as-list-subagents .as-list-subagent[data-session="${subagent.id}"]`);
    expect(await nested.locator(".as-list-title").textContent()).toBe("Explore: Read planning task inputs");
    expect(
      await page.locator(".as-list-items > li > .as-list-item").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-session"))),
    ).not.toContain(subagent.id);
    await nested.click();
    await page.locator(`.as-pane[data-session="${subagent.id}"][data-ended='yes']`).waitFor();
    await page.close();
  });
});

describe.skipIf(!hasBrowser || !built || !hasShared)("hostile text on the live page", () => {
  it("no payload, in any slot, runs a script, makes a request or injects an element", { timeout: 180_000 }, async () => {
    const all = xssPayloads();
    for (const { id, text } of all) {
      const feed = new SessionFeed(`xss-${id}`, { file: null, live: true });
      for (const event of hostileSessionEvents(text, text.length < 100_000)) feed.push(event);
      feed.end();
      catalog.add(feed);
    }
    const { page, dialogs, foreign } = await openPage();
    await page
      .locator(".as-list-item")
      .nth(all.length - 1)
      .waitFor();
    for (const { id } of all) {
      await page.locator(`.as-list-item[data-session="xss-${id}"]`).click();
      const pane = page.locator(`.as-pane[data-session="xss-${id}"]`);
      await pane.and(page.locator("[data-ended='yes']")).waitFor();
      await pane.hover();
      await pane.locator(".as-pane-close").click();
    }
    // Every session open at once, side by side, for the injection check over the whole page.
    for (const { id } of all.slice(0, 4)) await page.locator(`.as-list-item[data-session="xss-${id}"]`).click();
    await page.locator(".as-pane[data-ended='yes']").nth(3).waitFor();
    const verdict = await pageVerdict(page);
    expect(verdict).toEqual(INERT);
    expect(dialogs).toEqual([]);
    expect(foreign).toEqual([]);
    // Shown literally, as text.
    expect(await page.locator(".as-pane").first().textContent()).toContain("<script>window.__xss=1</script>");
    await page.close();
  });
});
