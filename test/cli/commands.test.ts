import { describe, expect, it } from "vitest";
import { commands } from "../../src/cli/run.ts";
import { COMMAND_SCRIPTS, scriptOf } from "../../src/cli/command-scripts.ts";

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

  it("runs each command from one script (bin.ts), and exits at once after usage and sessions only", () => {
    const inScripts = COMMAND_SCRIPTS.flatMap((script) => script.commands);
    expect([...inScripts].sort()).toEqual(commands.map((c) => c.name).sort());
    expect(new Set(inScripts).size).toBe(inScripts.length);
    expect(commands.filter((c) => scriptOf(c.name)?.endsOnReturn).map((c) => c.name)).toEqual(["sessions", "usage"]);
    for (const notACommand of ["--help", "-h", "--version", undefined, "session.jsonl", "-"]) expect(scriptOf(notACommand)).toBeUndefined();
  });
});
