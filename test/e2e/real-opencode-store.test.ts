/**
 * OpenCode's session store, as the real CLI (OpenCode 1.18.33, offline against our scripted model server) leaves it
 * in its HOME: the built `agentstream` binary finds the session (`sessions`), counts the tokens the server reported
 * (`usage`), and reads it back (`summary`, `html`) by the reference `sessions` prints. The same store, captured once,
 * is test/fixtures/opencode-session (test/usage/opencode.test.ts runs without the CLI).
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { realClis, runRealOpenCode, type RealCliRun } from "../helpers/model-server/run-real-cli.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";
import { scenarios } from "./scenarios.ts";

const bin = join(repoRoot, "dist/cli/bin.cjs");
const ready = realClis.opencode !== undefined && existsSync(bin);
if (!ready)
  console.warn(
    "[agentstream tests] OpenCode or dist/ missing: test/e2e/real-opencode-store.test.ts is skipped (scripts/install-agent-clis.sh, npm run build)",
  );

const scenario = scenarios.find((s) => s.name === "tool call and its result");
const thinking = scenarios.find((s) => s.name === "thinking or reasoning");

function agentstream(args: string[], home: string): string {
  const env = { PATH: process.env.PATH ?? "", HOME: home, XDG_CACHE_HOME: join(home, ".cache"), NO_COLOR: "1" };
  return execFileSync(process.execPath, [bin, ...args], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

describe.skipIf(!ready)("the real OpenCode's session store", () => {
  let cli: RealCliRun;
  let reasoned: RealCliRun;
  beforeAll(async () => {
    if (scenario === undefined || thinking === undefined) throw new Error("no scenario");
    [cli, reasoned] = await Promise.all([
      runRealOpenCode(scenario.script, "Follow the scripted scenario.", { timeoutMs: 55_000 }),
      runRealOpenCode(thinking.script, "Follow the scripted scenario.", { timeoutMs: 55_000 }),
    ]);
    expect(cli.exitCode, cli.stderr.slice(0, 500)).toBe(0);
    expect(reasoned.exitCode, reasoned.stderr.slice(0, 500)).toBe(0);
  }, 70_000);

  it("sessions, usage, summary and html read what it stored", () => {
    const sessions = JSON.parse(agentstream(["sessions", "--json"], cli.home)) as {
      agent: string;
      project: string;
      status: string;
      files: string[];
    }[];
    expect(sessions.map((s) => [s.agent, s.project, s.status])).toEqual([["opencode", cli.cwd, "completed"]]);
    const ref = sessions[0]?.files[0] ?? "";
    expect(ref).toMatch(/opencode\.db#ses_/);

    const usage = JSON.parse(agentstream(["usage", "--json"], cli.home)) as {
      totals: { tokens: Record<string, number>; requests: number };
    };
    // The scripted server's first turn reports 100 in and 10 out by default; the second, 250 in, 40 out, 200 from the cache.
    expect(usage.totals.requests).toBe(2);
    expect(usage.totals.tokens).toMatchObject({ input: 350, output: 50, cacheRead: 200, cacheWrite: 0 });

    const summary = JSON.parse(agentstream(["summary", ref, "--json"], cli.home)) as {
      dialect: string;
      finalText: string;
      usage: Record<string, number>;
    };
    expect(summary.dialect).toBe("opencode-session");
    expect(summary.finalText).toBe(scenario?.finalText);
    expect(summary.usage).toMatchObject({ inputTokens: 350, outputTokens: 50, cacheReadTokens: 200 });

    const page = join(tempDir("opencode-store-html"), "session.html");
    agentstream(["html", ref, "-o", page], cli.home);
    expect(readFileSync(page, "utf8")).toContain("echo scripted-output");
  });

  it("a stored reasoning part is the answer's reasoning, apart from its text", () => {
    const db = join(reasoned.home, ".local/share/opencode/opencode.db");
    const text = agentstream(["render", db], reasoned.home);
    expect(text).toContain(thinking?.reasoning);
    const summary = JSON.parse(agentstream(["summary", db, "--json"], reasoned.home)) as { finalText: string };
    expect(summary.finalText).toBe(thinking?.finalText);
  });
});
