import { describe, expect, it } from "vitest";
import { commands, endsOnReturn } from "../../src/cli/run.ts";

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

  it("marks as over when they return only the commands that leave nothing running (bin.ts exits at once after them)", () => {
    expect(commands.filter((c) => endsOnReturn([c.name])).map((c) => c.name)).toEqual(["sessions", "usage"]);
    expect(endsOnReturn(["usage", "--json"])).toBe(true);
    expect(endsOnReturn(["--help"])).toBe(false);
    expect(endsOnReturn([])).toBe(false);
    expect(endsOnReturn(["session.jsonl"])).toBe(false);
  });
});
