/** The task `run` reads off an agent's command line (docs/run.md, "The task"). */
import { describe, expect, it } from "vitest";
import { promptOfCommand } from "../../src/run/prompt-of-command.ts";

describe("promptOfCommand", () => {
  it.each([
    ["claude", ["-p", "fix the tests", "--output-format", "stream-json", "--verbose"], "fix the tests"],
    ["/usr/local/bin/claude", ["--verbose", "--print", "fix it"], "fix it"],
    ["claude", ["-p", "--output-format", "stream-json"], undefined],
    ["gemini", ["--prompt=say hi", "-o", "stream-json"], "say hi"],
    ["aider", ["--no-pretty", "--yes-always", "-m", "add a README"], "add a README"],
    ["cursor-agent", ["-p", "list files", "--output-format", "stream-json"], "list files"],
    ["codex", ["exec", "--json", "--skip-git-repo-check", "-c", "model=gpt-5.5", "--disable", "plugins", "add a README"], "add a README"],
    ["codex", ["exec", "--json", "-"], undefined],
    ["codex", ["exec", "--json"], undefined],
    ["codex", ["login"], undefined],
    ["opencode", ["run", "--model", "x/y", "fix", "the", "bug"], "fix the bug"],
    ["cline", ["task", "new", "hello"], undefined],
    ["node", ["agent.mjs", "-p", "x"], undefined],
  ])("%s %j → %j", (command, args, prompt) => {
    expect(promptOfCommand(command, args)).toBe(prompt);
  });
});
