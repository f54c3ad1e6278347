import { describe, expect, it } from "vitest";
import { commands } from "../../src/cli/run.ts";
import { isShortCommand, SHORT_COMMANDS } from "../../src/cli/short-commands.ts";

describe("the command list", () => {
  it("names and summarises each command as the command itself does (the list is kept apart so commands load on demand)", async () => {
    for (const entry of commands) {
      const command = await entry.load();
      expect(command.name).toBe(entry.name);
      expect(command.summary).toBe(entry.summary);
    }
  });

  it("lists each command once", () => {
    const names = commands.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("runs from the short commands' script only commands of the list, each by its own name (bin.ts)", () => {
    const names = commands.map((c) => c.name);
    for (const short of SHORT_COMMANDS) expect(names).toContain(short);
    expect(names.filter(isShortCommand)).toEqual(["sessions", "usage"]);
    expect(isShortCommand("--help")).toBe(false);
    expect(isShortCommand(undefined)).toBe(false);
    expect(isShortCommand("session.jsonl")).toBe(false);
  });
});
