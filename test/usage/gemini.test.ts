/** Gemini CLI chats in `sessions`: the project is the working directory `.project_root` names (0.61), else the folder's name. */
import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { fixturePath } from "../helpers/fixtures.ts";
import { tempDir } from "../helpers/temp.ts";

async function projects(home: string): Promise<string[]> {
  const io = fakeIo({ env: { HOME: home, XDG_CACHE_HOME: join(home, "cache") } });
  expect(await run(["sessions", "--json", "--agent", "gemini"], io), io.err()).toBe(0);
  return (JSON.parse(io.out()) as { project: string }[]).map((row) => row.project);
}

/** A HOME with the 0.61 tool-call chat under ~/.gemini/tmp/demo/chats, with `.project_root` when given. */
function geminiHome(projectRoot?: string): string {
  const home = tempDir("gemini-home");
  const project = join(home, ".gemini", "tmp", "demo");
  mkdirSync(join(project, "chats"), { recursive: true });
  copyFileSync(fixturePath("gemini-session", "0.61-tool-call.jsonl"), join(project, "chats", "session-2026-12-02T02-08-753e2645.jsonl"));
  if (projectRoot !== undefined) writeFileSync(join(project, ".project_root"), projectRoot);
  return home;
}

describe("Gemini CLI chats in sessions", () => {
  it("0.61 writes .project_root beside chats: the project is the working directory it names", async () => {
    expect(await projects(geminiHome("/home/user/demo"))).toEqual(["/home/user/demo"]);
  });

  it("without it (older versions), the project folder's name", async () => {
    expect(await projects(geminiHome())).toEqual(["demo"]);
  });
});
