/** The small parts of `run`: durations, the dialect a command name implies, a command that cannot be run. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentStreamError } from "../../src/errors.ts";
import { dialectOfCommand, parseDuration, runAgent } from "../../src/run/index.ts";
import { tempDir } from "../helpers/temp.ts";

describe("parseDuration", () => {
  it.each([
    ["500ms", 500],
    ["15s", 15_000],
    ["2m", 120_000],
    ["1h", 3_600_000],
    ["1.5s", 1500],
    ["30", 30_000],
    ["0", 0],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration("--heartbeat", text)).toBe(ms);
  });

  it.each(["", "soon", "-1s", "15 sec", "1d", "ms"])("rejects %j with a usage error naming the flag", (text) => {
    let caught: unknown;
    try {
      parseDuration("--idle-timeout", text);
    } catch (error) {
      caught = error;
    }
    expect(AgentStreamError.is(caught) && caught.code).toBe("usage");
    expect(String((caught as Error).message)).toMatch(/^--idle-timeout takes a duration such as 500ms, 15s, 2m or 1h/);
  });
});

describe("dialectOfCommand", () => {
  it.each([
    ["claude", "claude"],
    ["/usr/local/bin/codex", "codex"],
    ["gemini", "gemini"],
    ["opencode", "opencode"],
    ["cursor-agent", "cursor"],
    ["amp", "amp"],
    ["qwen", "qwen"],
    ["cline", "cline"],
    ["aider", "aider"],
    ["copilot", "copilot"],
    ["C:\\\\tools\\\\claude.exe", "claude"],
    ["node", "auto"],
    ["npx", "auto"],
  ])("%s → %s", (command, dialect) => {
    expect(dialectOfCommand(command)).toBe(dialect);
  });
});

describe("runAgent start-up failures", () => {
  it("a file that is not executable: exit 126 and a clear error event", async () => {
    const file = join(tempDir("run-noexec"), "agent.sh");
    writeFileSync(file, "#!/bin/sh\necho hi\n", { mode: 0o644 });
    const run = runAgent(file);
    const events = [];
    for await (const event of run.events) events.push(event);
    expect(await run.result).toMatchObject({ exitCode: 126, end: "not-executable" });
    expect(events.find((event) => event.type === "error")).toMatchObject({ code: "command-not-executable", fatal: true });
  });

  it("an unknown dialect is the caller's mistake: thrown before anything starts", () => {
    expect(() => runAgent("true", [], { dialect: "nope" })).toThrow(/unknown dialect "nope"/);
  });
});
