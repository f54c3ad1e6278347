/**
 * `summary`, `render` and `html` read the session stores of Qwen Code, Gemini CLI 0.61 and Copilot CLI as events:
 * on the files the real CLIs saved in our offline runs (test/fixtures/<store>/README.md).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { fixturePath } from "../helpers/fixtures.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const STORES = [
  ["qwen-session", fixturePath("qwen-session", "tool-call.jsonl"), "qwen-code"],
  ["gemini-session", fixturePath("gemini-session", "0.61-tool-call.jsonl"), "gemini-cli"],
  ["copilot", fixturePath("copilot-session", "tool-call.jsonl"), "copilot-cli"],
] as const;

beforeAll(() => {
  // html inlines the bundled front end: build it when this checkout has not yet.
  if (!existsSync(join(repoRoot, "dist/web/app.js"))) execFileSync(process.execPath, [join(repoRoot, "scripts/build-web.mjs")]);
});

describe.each(STORES)("%s", (dialect, path, agent) => {
  it("summary --json: the dialect, the agent, the answer, the tool call and the tokens", async () => {
    const io = fakeIo();
    expect(await run(["summary", "--json", path], io), io.err()).toBe(0);
    const summary = JSON.parse(io.out()) as Record<string, unknown>;
    expect(summary).toMatchObject({ dialect, agent, finalText: "The command printed scripted-output." });
    expect(summary.usage).toMatchObject({ inputTokens: 350, outputTokens: 50, cacheReadTokens: 200 });
    expect((summary.toolCalls as { status: string }[]).map((tool) => tool.status)).toEqual(["success"]);
  });

  it("render: the prompt, the command, its output and the answer", async () => {
    const io = fakeIo({ env: { NO_COLOR: "1" } });
    expect(await run(["render", path], io), io.err()).toBe(0);
    const text = io.out();
    for (const piece of ["Follow the scripted scenario.", "echo scripted-output", "The command printed scripted-output."])
      expect(text).toContain(piece);
  });

  it("html: one page embedding the session's events", async () => {
    const out = tempDir("stores-html");
    const io = fakeIo();
    expect(await run(["html", "-q", "-o", `${out}/`, path], io), io.err()).toBe(0);
    const pages = readdirSync(out);
    expect(pages).toHaveLength(1);
    const page = readFileSync(join(out, pages[0] ?? ""), "utf8");
    expect(page.startsWith("<!doctype html>")).toBe(true);
    expect(page).toContain("The command printed scripted-output.");
  });
});
