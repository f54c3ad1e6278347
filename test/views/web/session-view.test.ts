/**
 * SessionView's contract, in chromium, one event at a time (what the live page does): a delta
 * extends its message in place, the completed message replaces it with Markdown, a tool call's
 * arguments, progress, files, subagent and result fill its one block, and the chart appears when
 * usage arrives.
 */
import { join } from "node:path";
import { build } from "esbuild";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasBrowser, launchBrowser, noBrowserReason } from "../../helpers/browser.ts";
import { repoRoot } from "../../helpers/shared.ts";

if (!hasBrowser) console.warn(`[agentstream tests] ${noBrowserReason}`);

let browser: Browser;
let page: Page;
beforeAll(async () => {
  if (!hasBrowser) return;
  const bundle = await build({
    entryPoints: [join(repoRoot, "src/views/web/session-view.ts")],
    bundle: true,
    write: false,
    format: "iife",
    globalName: "AgentstreamWeb",
    platform: "browser",
  });
  browser = await launchBrowser();
  page = await browser.newPage();
  await page.setContent('<main id="agentstream" data-mode="live"></main>');
  await page.addScriptTag({
    content: `${bundle.outputFiles[0]?.text}\nwindow.view = new AgentstreamWeb.SessionView(document.getElementById("agentstream"));`,
  });
});
afterAll(async () => browser?.close());

let seq = 0;
/** Appends one event (v and seq stamped) and lets queued work (the header, the chart) run. */
async function append(event: object): Promise<void> {
  const stamped = { v: 1, seq: seq++, sessionId: "s1", ...event };
  await page.evaluate((e) => (window as unknown as { view: { append(e: unknown): void } }).view.append(e), stamped);
}

describe.skipIf(!hasBrowser)("SessionView, event by event", () => {
  it("a streamed answer grows in place, then becomes Markdown", async () => {
    await append({ type: "session.started", agent: "claude-code", model: "m1", cwd: "/w" });
    await append({ type: "message.started", messageId: "a1", role: "assistant", kind: "text" });
    await append({ type: "message.delta", messageId: "a1", role: "assistant", kind: "text", text: "Hello ", position: 0 });
    await append({ type: "message.delta", messageId: "a1", role: "assistant", kind: "text", text: "**wor", position: 6 });
    expect(await page.locator(".as-assistant").count()).toBe(1);
    expect(await page.locator(".as-assistant .as-streaming").textContent()).toBe("Hello **wor");
    await append({ type: "message.completed", messageId: "a1", role: "assistant", kind: "text", text: "Hello **world**" });
    expect(await page.locator(".as-assistant").count()).toBe(1);
    expect(await page.locator(".as-assistant .as-markdown strong").textContent()).toBe("world");
    expect(await page.textContent(".as-title")).toContain("claude-code");
  });

  it("a tool call's arguments, progress, file change, subagent and result fill its one block", async () => {
    await append({ type: "tool.started", toolCallId: "t1", name: "Task", kind: "subagent" });
    await append({ type: "tool.input.delta", toolCallId: "t1", text: '{"description":"che' });
    await append({ type: "tool.input.delta", toolCallId: "t1", text: 'ck it"}' });
    await append({ type: "tool.progress", toolCallId: "t1", output: "step 1\n" });
    await append({ type: "tool.progress", toolCallId: "t1", output: "step 2\n" });
    const block = page.locator(".as-tool");
    expect(await block.count()).toBe(1);
    expect(await block.locator(".as-tool-progress .as-pre").textContent()).toBe("step 1\nstep 2\n");
    await append({ type: "session.started", agent: "claude-code", sessionId: "sub", parentSessionId: "s1", parentToolCallId: "t1" });
    await append({ type: "message.completed", messageId: "u9", role: "user", kind: "text", text: "check it", sessionId: "sub" });
    await append({ type: "file.changed", toolCallId: "t1", changes: [{ path: "/w/a.ts", kind: "update", diff: "@@ -1 +1 @@\n-a\n+b\n" }] });
    await append({ type: "tool.completed", toolCallId: "t1", output: "done", isError: false, durationMs: 1500 });
    expect(await page.locator(".as-tool").count()).toBe(1);
    expect(await block.locator(".as-arg").textContent()).toBe("check it");
    expect(await block.locator(".as-badge-ok").textContent()).toBe("ok · 1.5s");
    expect(await block.locator(".as-tool-progress").count()).toBe(0);
    expect(await block.locator(".as-children .as-user").textContent()).toContain("check it");
    expect(await block.locator(".as-file .as-path").textContent()).toBe("a.ts");
    expect(await block.locator(".as-diff .as-diff-add").textContent()).toBe("+b\n");
    expect(await block.locator(".as-tool-output .as-pre").textContent()).toBe("done");
  });

  it("the chart appears once two steps reported usage, and the header counts them", async () => {
    expect(await page.locator(".as-timeline").isHidden()).toBe(true);
    const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 1000, cacheWriteTokens: 0, reasoningTokens: null };
    await append({ type: "turn.completed", turnId: "1", usage, costUsd: 0.01 });
    await append({ type: "turn.completed", turnId: "2", usage, costUsd: 0.02 });
    await page.waitForSelector(".as-timeline svg");
    expect(await page.locator(".as-timeline rect").count()).toBe(6);
    expect(await page.locator(".as-timeline .as-cost-line").count()).toBe(1);
    expect(await page.textContent(".as-facts")).toContain("$0.0300");
  });
});
