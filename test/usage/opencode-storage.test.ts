/**
 * OpenCode's older JSON storage (src/usage/opencode-storage.ts): a session is a folder of JSON files. Listed and
 * counted by `sessions`/`usage` as the database's sessions are, read by `summary`, read again when a part changes;
 * a part that does not parse is a malformed line, never a crash.
 */
import { cpSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const SESSION = "ses_dcb8ada35ffefqQG3Xv570XUvO";

function dataHome(): { env: Record<string, string>; storage: string } {
  const root = tempDir("opencode-storage");
  const storage = join(root, "data", "opencode", "storage");
  cpSync(join(repoRoot, "test/fixtures/opencode-storage/storage"), storage, { recursive: true });
  return {
    env: { HOME: join(root, "home"), XDG_DATA_HOME: join(root, "data"), XDG_CACHE_HOME: join(root, "cache"), NO_COLOR: "1" },
    storage,
  };
}

async function cli(args: string[], env: Record<string, string>) {
  const io = fakeIo({ env });
  const code = await run(args, io);
  return { code, out: io.out(), err: io.err() };
}

interface Row {
  agent: string;
  sessionId: string;
  project: string;
  status: string;
  requests: number;
  malformedLines: number;
  tokens: Record<string, number>;
  files: string[];
}

describe("OpenCode's JSON storage", () => {
  it("sessions and usage list and count a session kept as JSON files; summary reads it by its session file", async () => {
    const { env, storage } = dataHome();
    const listed = await cli(["sessions", "--json"], env);
    expect(listed.code, listed.err).toBe(0);
    const file = join(storage, "session", "global", `${SESSION}.json`);
    expect(JSON.parse(listed.out)).toMatchObject([
      { agent: "opencode", sessionId: SESSION, project: "/work/demo", status: "completed", requests: 2, files: [file] },
    ]);
    expect((JSON.parse(listed.out) as Row[])[0]?.tokens).toMatchObject({ input: 350, output: 50, cacheRead: 200 });
    const summary = JSON.parse((await cli(["summary", file, "--json"], env)).out) as { dialect: string; finalText: string };
    expect(summary).toMatchObject({ dialect: "opencode-session", finalText: "The command printed scripted-output." });
  });

  it("a part written again reads the session again; a part that does not parse is a malformed line", async () => {
    const { env, storage } = dataHome();
    expect((JSON.parse((await cli(["sessions", "--json"], env)).out) as Row[])[0]?.malformedLines).toBe(0);
    const messages = readdirSync(join(storage, "part"));
    const folder = join(storage, "part", messages.at(-1) ?? "");
    writeFileSync(join(folder, "prt_zzzz.json"), "{ cut");
    const again = JSON.parse((await cli(["sessions", "--json"], env)).out) as Row[];
    expect(again[0]).toMatchObject({ sessionId: SESSION, malformedLines: 1, requests: 2 });
  });
});
