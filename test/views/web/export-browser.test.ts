/**
 * The HTML export in a real browser (Debian's chromium): real Claude, Codex and Gemini sessions at
 * 1280 and 390 px (screenshots under test/.artifacts/screenshots: look at them), every capture
 * without an error, keyboard use, "show all", and nothing loaded or blocked.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../../src/cli/run.ts";
import { hasBrowser, launchBrowser, noBrowserReason } from "../../helpers/browser.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { hasShared, listCaptures, sharedPath } from "../../helpers/shared.ts";
import { artifacts, ensureWebBuilt, exportPages, openExport, watchedPage } from "./_pages.ts";

if (!hasBrowser) console.warn(`[agentstream tests] ${noBrowserReason}`);

let browser: Browser;
beforeAll(async () => {
  if (!hasBrowser) return;
  ensureWebBuilt();
  browser = await launchBrowser();
});
afterAll(async () => browser?.close());

const sessions = [
  {
    name: "claude",
    path: "fixtures/claude/switchboard_2.1.206_tool_vocabulary_read_edit_write_bash_grep_sanitized.jsonl",
    agent: "claude-code",
  },
  { name: "codex", path: "fixtures/codex/md2okf_command_failed_exit2_then_success.jsonl", agent: "codex" },
  { name: "gemini", path: "fixtures/gemini/agentcmd_replace_edit.jsonl", agent: "gemini-cli" },
];

describe.skipIf(!hasBrowser || !hasShared)("one cost for one session in every view", () => {
  it("the ccviewer Claude transcript: summary --json, sessions --json, the text transcript and the page's header agree", async () => {
    const path = sharedPath("fixtures/claude-session/ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl");
    const cli = async (...args: string[]): Promise<string> => {
      const io = fakeIo();
      expect(await run(args, io)).toBe(0);
      return io.out();
    };
    const summary = JSON.parse(await cli("summary", "--json", path));
    const [session] = JSON.parse(await cli("sessions", "--json", "--no-cache", path));
    expect(summary).toMatchObject({ costUsd: session.costUsd, costEstimated: true, unpricedModels: [] });
    expect(session).toMatchObject({ costEstimated: true, unpricedModels: [] });
    expect(summary.costUsd).toBeCloseTo(2.393215, 6);
    expect(await cli("convert", "--to", "text", path)).toContain("Cost: ~$2.39");
    const [file] = await exportPages({ path }, join(artifacts, "pages", "ccviewer"));
    const { page, watch } = await watchedPage(browser, 1280);
    await openExport(page, file as string);
    const cost = await page.evaluate(
      () => Array.from(document.querySelectorAll(".as-facts dt")).find((dt) => dt.textContent === "cost")?.nextElementSibling?.textContent,
    );
    expect(cost).toBe("~$2.39");
    expect(watch.errors).toEqual([]);
    await page.context().close();
  });
});

describe.skipIf(!hasBrowser || !hasShared)("real sessions in chromium", () => {
  for (const session of sessions) {
    for (const width of [1280, 390]) {
      it(`${session.name} at ${width} px`, async () => {
        const [file] = await exportPages({ path: sharedPath(session.path) }, join(artifacts, "pages", session.name));
        const { page, watch } = await watchedPage(browser, width);
        await openExport(page, file as string);
        await page.evaluate(() => {
          for (const details of Array.from(document.querySelectorAll("details"))) details.open = true;
        });
        await page.screenshot({ path: join(artifacts, "screenshots", `${session.name}-${width}.png`), fullPage: true });
        expect(await page.textContent(".as-title")).toContain(session.agent);
        const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
        expect(scrollWidth).toBeLessThanOrEqual(width);
        const toolIds = new Set(
          JSON.parse(
            readFileSync(file as string, "utf8")
              .split('id="agentstream-session">\n')[1]
              ?.split("\n</script>")[0] ?? "{}",
          )
            .events.filter((e: { type: string }) => e.type === "tool.started")
            .map((e: { toolCallId: string }) => e.toolCallId),
        );
        expect(await page.locator(".as-tool").count()).toBe(toolIds.size);
        expect(watch.errors).toEqual([]);
        expect(watch.requests).toEqual([]);
        expect(await watch.violations()).toEqual([]);
        await page.context().close();
      });
    }
  }

  it("shows a Claude Edit as a diff, a failed Codex command as failed, and a subagent under its call", async () => {
    const { page } = await watchedPage(browser, 1280);
    const [claude] = await exportPages({ path: sharedPath(sessions[0]?.path as string) }, join(artifacts, "pages", "claude"));
    await openExport(page, claude as string);
    expect(await page.locator(".as-diff .as-diff-del").allTextContents()).toContain("-foo\n");
    expect(await page.locator(".as-diff .as-diff-add").allTextContents()).toContain("+bar\n");
    const [codex] = await exportPages({ path: sharedPath(sessions[1]?.path as string) }, join(artifacts, "pages", "codex"));
    await openExport(page, codex as string);
    expect(await page.locator('.as-tool[data-status="error"] .as-badge-error').textContent()).toContain("exit 2");
    const [sub] = await exportPages(
      { path: sharedPath("fixtures/claude/archistrator_success_with_subagent.jsonl") },
      join(artifacts, "pages", "subagent"),
    );
    await openExport(page, sub as string);
    const nested = page.locator('.as-tool[data-kind="subagent"] .as-children .as-user');
    expect(await nested.textContent()).toContain("What is 2+2?");
    await page.context().close();
  });

  it("keys: j and k move between entries, o opens and closes, / searches and Escape clears", async () => {
    const { page } = await watchedPage(browser, 1280);
    const [file] = await exportPages({ path: sharedPath(sessions[0]?.path as string) }, join(artifacts, "pages", "claude"));
    await openExport(page, file as string);
    await page.keyboard.press("j");
    expect(await page.evaluate(() => document.activeElement?.classList.contains("as-tool"))).toBe(true);
    await page.keyboard.press("o");
    expect(await page.evaluate(() => (document.activeElement as HTMLDetailsElement).open)).toBe(true);
    await page.keyboard.press("o");
    expect(await page.evaluate(() => (document.activeElement as HTMLDetailsElement).open)).toBe(false);
    await page.keyboard.press("j");
    await page.keyboard.press("k");
    expect(await page.evaluate(() => document.activeElement?.querySelector(".as-tool-name")?.textContent)).toBe("TaskCreate");
    await page.keyboard.press("/");
    await page.keyboard.type("Grep");
    const shown = await page.locator(".as-conversation > :not([hidden])").count();
    expect(shown).toBe(1);
    await page.keyboard.press("Escape");
    expect(await page.locator(".as-conversation > [hidden]").count()).toBe(0);
    await page.context().close();
  });

  it("a long output shows its start and a show all button that shows the rest", async () => {
    const lines = Array.from({ length: 500 }, (_, i) => `line ${i + 1}`).join("\n");
    const events = [
      { v: 1, seq: 0, type: "session.started", agent: "test-agent", sessionId: "s1" },
      {
        v: 1,
        seq: 1,
        type: "tool.started",
        toolCallId: "t1",
        name: "Bash",
        kind: "command",
        input: { command: "seq 500" },
        sessionId: "s1",
      },
      { v: 1, seq: 2, type: "tool.completed", toolCallId: "t1", output: lines, isError: false, sessionId: "s1" },
    ];
    const [file] = await exportPages({ stdin: `${events.map((e) => JSON.stringify(e)).join("\n")}\n` }, join(artifacts, "pages", "long"));
    const { page } = await watchedPage(browser, 1280);
    await openExport(page, file as string);
    await page.locator(".as-tool summary").click();
    const output = page.locator(".as-tool-output .as-pre");
    expect(await output.textContent()).not.toContain("line 500");
    await page.locator(".as-tool-output .as-show-all").click();
    expect(await output.textContent()).toContain("line 500");
    await page.context().close();
  });
});

describe.skipIf(!hasBrowser || !hasShared)("every capture renders in chromium", () => {
  it("without a page error, a blocked resource or a request, and with at least one entry", async () => {
    const { page, watch } = await watchedPage(browser, 1280);
    const failures: string[] = [];
    for (const [dialect, path] of listCaptures()) {
      const name = path.split("/").at(-1) as string;
      let files: string[];
      try {
        files = await exportPages({ path }, join(artifacts, "pages", "all", dialect, name));
      } catch (error) {
        if (String(error).includes("exited 4")) continue; // nothing readable in it (said by the CLI test)
        throw error;
      }
      for (const file of files) {
        await openExport(page, file as string);
        const entries = await page.locator(".as-entry, .as-meta-entry").count();
        if (entries === 0) failures.push(`${file}: no entry`);
      }
    }
    expect(failures).toEqual([]);
    expect(watch.errors).toEqual([]);
    expect(watch.requests).toEqual([]);
    expect(await watch.violations()).toEqual([]);
  });
});
