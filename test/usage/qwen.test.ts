/** Qwen Code chats in `sessions` and `usage`: found under ~/.qwen/projects, each request once, the summary's tokens. */
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

/** A HOME with the fixture chats where Qwen Code 0.24.4 saves them (`~/.qwen/projects/<cwd slug>/chats/<sessionId>.jsonl`). */
function qwenHome(...names: string[]): string {
  const home = tempDir("qwen-home");
  const chats = join(home, ".qwen", "projects", "-home-user-demo", "chats");
  mkdirSync(chats, { recursive: true });
  for (const name of names) {
    const file = fixturePath("qwen-session", name);
    const sessionId = (JSON.parse(readFileSync(file, "utf8").split("\n")[0] ?? "{}") as { sessionId: string }).sessionId;
    copyFileSync(file, join(chats, `${sessionId}.jsonl`));
  }
  return home;
}

describe("Qwen Code chats in sessions and usage", () => {
  it("sessions finds them in the standard place: project, status, tokens, requests", async () => {
    const home = qwenHome("tool-call.jsonl", "api-error-http.jsonl");
    const { code, out, err } = await cli(["sessions", "--json", "--tz", "UTC"], { HOME: home, XDG_CACHE_HOME: join(home, "cache") });
    expect(code, err).toBe(0);
    const rows = JSON.parse(out) as { agent: string; project: string; status: string; requests: number; tokens: Record<string, number> }[];
    expect(rows.map((row) => [row.agent, row.project, row.status, row.requests])).toEqual(
      expect.arrayContaining([
        ["qwen", "/home/user/demo", "completed", 2],
        ["qwen", "/home/user/demo", "error", 0],
      ]),
    );
    const tool = rows.find((row) => row.requests === 2);
    // prompt 100 + 250 of which 200 cached; output 10 + 40.
    expect(tool?.tokens).toMatchObject({ input: 150, cacheRead: 200, output: 50, reasoning: 0 });
  });

  it("usage --agent qwen counts each request once and names the model", async () => {
    const home = qwenHome("text.jsonl", "tool-call.jsonl", "thinking.jsonl");
    const { code, out, err } = await cli(["usage", "--json", "--agent", "qwen", "--tz", "UTC"], {
      HOME: home,
      XDG_CACHE_HOME: join(home, "cache"),
    });
    expect(code, err).toBe(0);
    const totals = (JSON.parse(out) as { totals: { requests: number; tokens: Record<string, number>; models: string[] } }).totals;
    expect(totals.requests).toBe(4);
    expect(totals.tokens).toMatchObject({ input: 100 + 150 + 100, output: 10 + 50 + 10, cacheRead: 200 });
    expect(totals.models).toEqual(["qwen3-coder-plus"]);
  });

  it("a chat file named on the command line is told by its content", async () => {
    const { code, out, err } = await cli(["sessions", "--json", fixturePath("qwen-session", "text.jsonl")], {
      HOME: tempDir("empty-home"),
    });
    expect(code, err).toBe(0);
    expect((JSON.parse(out) as { agent: string }[]).map((row) => row.agent)).toEqual(["qwen"]);
  });
});
