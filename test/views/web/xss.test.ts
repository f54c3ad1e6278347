/**
 * Every payload of ../shared/corpus/web/xss-payloads.json, placed in every slot the page shows
 * (prompt, answer, reasoning, streamed text, tool name, input, output, error output, file path, diff,
 * plan, errors, notices, text lines, unknown records, the header, a subagent), in our event format
 * and in a Claude stream: nothing runs, nothing loads, no element or attribute comes from it, the
 * CSP reports nothing, and the text is shown as text.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasBrowser, launchBrowser, noBrowserReason } from "../../helpers/browser.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { artifacts, ensureWebBuilt, exportPages, openExport, watchedPage } from "./_pages.ts";

if (!hasBrowser) console.warn(`[agentstream tests] ${noBrowserReason}`);

interface Payload {
  readonly id: string;
  readonly text?: string;
  readonly text_repeat?: { unit: string; times: number };
}

const payloads: { id: string; text: string }[] = hasShared
  ? (JSON.parse(readFileSync(sharedPath("corpus/web/xss-payloads.json"), "utf8")).payloads as Payload[]).map((p) => ({
      id: p.id,
      text: p.text ?? (p.text_repeat === undefined ? "" : p.text_repeat.unit.repeat(p.text_repeat.times)),
    }))
  : [];

/** Our own event format with the payload in every slot. */
function agentstreamStream(p: string): string {
  const s = "s1";
  const drafts: object[] = [
    { type: "session.started", agent: p, agentVersion: p, model: p, cwd: p, sessionId: s },
    { type: "message.completed", messageId: "u1", role: "user", kind: "text", text: p, sessionId: s },
    { type: "message.completed", messageId: "r1", role: "assistant", kind: "reasoning", text: p, sessionId: s },
    {
      type: "message.completed",
      messageId: "a1",
      role: "assistant",
      kind: "text",
      text: `${p}\n\n[link](${p}) <${p}> \`${p}\``,
      sessionId: s,
    },
    { type: "message.completed", messageId: "sys", role: "system", kind: "text", text: p, sessionId: s },
    {
      type: "tool.started",
      toolCallId: "t1",
      name: p,
      kind: "command",
      input: { command: p, description: p },
      description: p,
      sessionId: s,
    },
    { type: "tool.progress", toolCallId: "t1", output: p, status: p, sessionId: s },
    { type: "tool.completed", toolCallId: "t1", name: p, output: p, isError: true, exitCode: 1, sessionId: s },
    {
      type: "tool.started",
      toolCallId: "t2",
      name: "Edit",
      kind: "file_edit",
      input: { file_path: p, old_string: p, new_string: p },
      sessionId: s,
    },
    {
      type: "file.changed",
      toolCallId: "t2",
      changes: [{ path: p, kind: "rename", newPath: p, diff: `--- a\n+++ b\n@@ -1 +1 @@\n-${p}\n+${p}` }],
      sessionId: s,
    },
    { type: "tool.completed", toolCallId: "t2", result: { p }, isError: false, sessionId: s },
    { type: "file.changed", changes: [{ path: p, kind: "add", diff: p }], sessionId: s },
    { type: "plan.updated", items: [{ text: p, status: "in_progress" }], sessionId: s },
    { type: "tool.started", toolCallId: "t3", name: "Task", kind: "subagent", input: { prompt: p }, sessionId: s },
    { type: "session.started", agent: p, model: p, sessionId: "s2", parentSessionId: s, parentToolCallId: "t3" },
    { type: "message.completed", messageId: "u2", role: "user", kind: "text", text: p, sessionId: "s2" },
    { type: "message.started", messageId: "a2", role: "assistant", kind: "text", sessionId: "s2" },
    { type: "message.delta", messageId: "a2", role: "assistant", kind: "text", text: p, position: 0, sessionId: "s2" },
    { type: "tool.completed", toolCallId: "t3", output: p, isError: false, sessionId: s },
    { type: "error", scope: "api", message: p, code: p, sessionId: s },
    { type: "notice", kind: p, level: "warning", text: p, sessionId: s },
    { type: "text", text: p, position: "interleaved", sessionId: s },
    { type: "metric", name: p, text: p, values: { [p.slice(0, 100)]: p }, sessionId: s },
    { type: "retry", attempt: 1, error: p, sessionId: s },
    { type: "rate_limit", status: p, limit: p, sessionId: s },
    { type: "unknown", raw: { p, [p.slice(0, 100)]: p }, reason: p, sessionId: s },
    { type: "turn.completed", turnId: "t", status: "error", error: p, sessionId: s },
    { type: "session.completed", status: "error", error: p, finalText: p, sessionId: s },
  ];
  return `${drafts.map((d, seq) => JSON.stringify({ v: 1, seq, ...d })).join("\n")}\n`;
}

/** A Claude stream-json session with the payload in the prompt, the answer, a tool's input and output, a file path and the result. */
function claudeStream(p: string): string {
  const s = "c1";
  const records = [
    { type: "system", subtype: "init", session_id: s, model: p, cwd: p, tools: [p], claude_code_version: "2.1.206" },
    { type: "user", message: { role: "user", content: [{ type: "text", text: p }] }, session_id: s },
    {
      type: "assistant",
      message: {
        id: "m1",
        role: "assistant",
        content: [
          { type: "thinking", thinking: p, signature: "x" },
          { type: "text", text: p },
          { type: "tool_use", id: "tu1", name: "Bash", input: { command: p } },
          { type: "tool_use", id: "tu2", name: "Edit", input: { file_path: p, old_string: p, new_string: "x" } },
          { type: "tool_use", id: "tu3", name: p, input: { [p.slice(0, 100)]: p } },
        ],
      },
      session_id: s,
    },
    {
      type: "user",
      message: {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "tu1", content: p, is_error: true },
          { type: "tool_result", tool_use_id: "tu2", content: p },
          { type: "tool_result", tool_use_id: "tu3", content: [{ type: "text", text: p }] },
        ],
      },
      session_id: s,
    },
    { type: "result", subtype: "error_during_execution", is_error: true, result: p, session_id: s, errors: [p] },
  ];
  return `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
}

/** Everything under #agentstream that should not be there: elements that load or run, on* attributes, script URLs, ids. */
async function injected(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const bad: string[] = [];
    const root = document.getElementById("agentstream");
    if (root === null) return ["no #agentstream"];
    const forbidden = new Set([
      "script",
      "iframe",
      "frame",
      "object",
      "embed",
      "img",
      "style",
      "link",
      "meta",
      "base",
      "form",
      "video",
      "audio",
      "source",
      "image",
      "use",
      "foreignobject",
      "template",
      "textarea",
      "select",
    ]);
    for (const node of Array.from(root.querySelectorAll("*"))) {
      const tag = node.tagName.toLowerCase();
      if (forbidden.has(tag)) bad.push(`<${tag}>`);
      if (tag === "input" && !node.classList.contains("as-search")) bad.push("<input>");
      if (
        tag === "a" &&
        node.closest(".as-markdown") !== null &&
        (node.getAttribute("rel") !== "noopener noreferrer nofollow" || node.getAttribute("target") !== "_blank")
      )
        bad.push("a Markdown link that would open in the page or send a referrer");
      if (tag === "svg" && node.closest(".as-timeline") === null) bad.push("<svg> outside the timeline");
      for (const attr of Array.from(node.attributes)) {
        const name = attr.name.toLowerCase();
        if (name.startsWith("on")) bad.push(`${tag} ${name}`);
        if (name === "style" || name === "id" || name === "name" || name === "srcdoc" || name === "autofocus") bad.push(`${tag} ${name}`);
        if (["href", "src", "xlink:href", "action", "formaction"].includes(name)) {
          const url = attr.value.replace(/[\u0000-\u0020]/g, "").toLowerCase();
          // http(s), mailto, or relative (no scheme: a file beside the page, at worst)
          const scheme = /^([a-z][a-z0-9+.-]*):/.exec(url)?.[1];
          if (scheme !== undefined && !["http", "https", "mailto"].includes(scheme)) bad.push(`${tag} ${name}=${attr.value.slice(0, 60)}`);
        }
      }
    }
    const w = window as unknown as Record<string, unknown>;
    if (w.__xss !== undefined) bad.push("window.__xss set");
    if (document.querySelectorAll("[id]").length !== 2)
      bad.push(
        `ids: ${Array.from(document.querySelectorAll("[id]"))
          .map((e) => e.id)
          .join(",")}`,
      );
    return bad;
  });
}

let browser: Browser;
beforeAll(async () => {
  if (!hasBrowser) return;
  ensureWebBuilt();
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

describe.skipIf(!hasBrowser || !hasShared)("XSS payloads in every slot of the export", () => {
  it("the corpus is the one the security notes describe", () => {
    expect(payloads.length).toBeGreaterThanOrEqual(24);
  });

  for (const { id, text } of payloads) {
    it(id, async () => {
      const dir = join(artifacts, "pages", "xss", id);
      const files = [
        ...(await exportPages({ stdin: agentstreamStream(text) }, join(dir, "agentstream"), ["--from", "agentstream"])),
        ...(await exportPages({ stdin: claudeStream(text) }, join(dir, "claude"), ["--from", "claude"])),
      ];
      expect(files).toHaveLength(2);
      for (const file of files) {
        const { page, watch } = await watchedPage(browser, 1280);
        await openExport(page, file as string);
        // Open everything and show all, so every slot is in the DOM, then move over and focus it.
        await page.evaluate(() => {
          for (const d of Array.from(document.querySelectorAll("details"))) d.open = true;
          for (const b of Array.from(document.querySelectorAll<HTMLButtonElement>(".as-show-all"))) b.click();
        });
        await page.mouse.move(400, 300);
        await page.keyboard.press("j");
        await page.keyboard.press("Tab");
        expect(await injected(page), file).toEqual([]);
        // A run of a million characters is shown breaking anywhere (chromium lays it out in linear time then).
        if (id === "huge-unbroken") expect(await page.locator(".as-break-all").count()).toBeGreaterThan(0);
        expect(watch.dialogs).toEqual([]);
        expect(watch.requests).toEqual([]);
        expect(watch.errors).toEqual([]);
        expect(await watch.violations()).toEqual([]);
        await page.context().close();
      }
      // The 5M-character payload, shown whole in every slot, takes chromium 40 s to lay out on a 2-vCPU VM.
    }, 180_000);
  }

  it("shows a payload in a prompt as the very text, not as markup", async () => {
    const text = '<script>window.__xss=1</script><img src=x onerror="window.__xss=1">';
    const [file] = await exportPages({ stdin: agentstreamStream(text) }, join(artifacts, "pages", "xss-literal"), [
      "--from",
      "agentstream",
    ]);
    const { page } = await watchedPage(browser, 1280);
    await openExport(page, file as string);
    expect(await page.locator(".as-user").first().textContent()).toContain(text);
    expect(await page.locator(".as-markdown").first().textContent()).toContain(text);
    await page.context().close();
  });
});
