import { describe, expect, it } from "vitest";
import { commands } from "../../src/cli/run.ts";

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
});
