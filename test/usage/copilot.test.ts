/** Copilot CLI sessions in `sessions` and `usage`: ~/.copilot/session-state (or $COPILOT_HOME), each API call once. */
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { fixturePath } from "../helpers/fixtures.ts";
import { tempDir } from "../helpers/temp.ts";

async function cli(args: string[], env: Record<string, string>) {
  const io = fakeIo({ env });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

/** The fixture session files where Copilot CLI 1.0.102 saves them: `<state>/<sessionId>/events.jsonl`. */
function sessionState(state: string, ...names: string[]): void {
  for (const name of names) {
    const file = fixturePath("copilot-session", name);
    const first = JSON.parse(readFileSync(file, "utf8").split("\n")[0] ?? "{}") as { data: { sessionId: string } };
    mkdirSync(join(state, first.data.sessionId), { recursive: true });
    copyFileSync(file, join(state, first.data.sessionId, "events.jsonl"));
  }
}

interface Row {
  agent: string;
  project: string;
  status: string;
  requests: number;
  models: string[];
  tokens: Record<string, number>;
}

describe("Copilot CLI sessions in sessions and usage", () => {
  it("sessions finds them under ~/.copilot/session-state: project, status, tokens, requests", async () => {
    const home = tempDir("copilot-home");
    sessionState(join(home, ".copilot", "session-state"), "tool-call.jsonl", "api-error-http.jsonl");
    const { code, out, err } = await cli(["sessions", "--json"], { HOME: home, XDG_CACHE_HOME: join(home, "cache") });
    expect(code, err).toBe(0);
    const rows = JSON.parse(out) as Row[];
    expect(rows.map((row) => [row.agent, row.project, row.status, row.requests])).toEqual(
      expect.arrayContaining([
        ["copilot", "/home/user/demo", "completed", 2],
        ["copilot", "/home/user/demo", "error", 0],
      ]),
    );
    // 100 + 250 input of which 200 cached; 10 + 40 output.
    expect(rows.find((row) => row.requests === 2)?.tokens).toMatchObject({ input: 150, cacheRead: 200, output: 50 });
  });

  it("$COPILOT_HOME moves the store; usage --agent copilot counts each API call once", async () => {
    const home = tempDir("copilot-home");
    const copilotHome = join(home, "elsewhere");
    sessionState(join(copilotHome, "session-state"), "text.jsonl", "tool-call.jsonl", "thinking.jsonl");
    const env = { HOME: home, COPILOT_HOME: copilotHome, XDG_CACHE_HOME: join(home, "cache") };
    const { code, out, err } = await cli(["usage", "--json", "--agent", "copilot"], env);
    expect(code, err).toBe(0);
    const totals = (JSON.parse(out) as { totals: { requests: number; tokens: Record<string, number>; models: string[] } }).totals;
    expect(totals.requests).toBe(4);
    expect(totals.tokens).toMatchObject({ input: 100 + 150 + 100, output: 10 + 50 + 10, cacheRead: 200 });
    expect(totals.models).toEqual(["gpt-4.1"]);
  });

  it("a session file named on the command line is told by its path or its content", async () => {
    const { code, out, err } = await cli(["sessions", "--json", fixturePath("copilot-session", "text.jsonl")], {
      HOME: tempDir("empty-home"),
    });
    expect(code, err).toBe(0);
    expect((JSON.parse(out) as Row[]).map((row) => row.agent)).toEqual(["copilot"]);
  });
});
