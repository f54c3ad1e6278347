/**
 * One rule per agent for what a request is (src/model/usage-keys.ts), shared by the decoders and the usage
 * scanners: on every real session capture, `summary --json` and `usage --by session --json` give the same tokens
 * and the same cost.
 */
import { describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import { copyFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import {
  claudeUsageKey,
  codexRunningTotal,
  codexUsageKey,
  copilotUsageKey,
  geminiUsageKey,
  opencodeUsageKey,
  qwenUsageKey,
} from "../../src/model/usage-keys.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { fixturePath } from "../helpers/fixtures.ts";
import { listCaptures, repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const SESSION_DIALECTS = ["claude-session", "codex-session", "gemini-session"];
/** Our own captures of the stores the real CLIs made offline (test/fixtures/<folder>/README.md), by dialect. */
const OWN_SESSION_FOLDERS: readonly [dialect: string, folder: string][] = [
  ["gemini-session", "gemini-session"],
  ["qwen-session", "qwen-session"],
  ["copilot", "copilot-session"],
];
const OWN_SESSION_DIALECTS = OWN_SESSION_FOLDERS.map(([dialect]) => dialect);
const ownCaptures = OWN_SESSION_FOLDERS.flatMap(([dialect, folder]) =>
  readdirSync(fixturePath(folder, ""))
    .filter((name) => name.endsWith(".jsonl"))
    .map((name): [string, string] => [dialect, fixturePath(folder, name)]),
);
const captures = [
  ...listCaptures().filter(([dialect, path]) => SESSION_DIALECTS.includes(dialect) && path.endsWith(".jsonl")),
  ...ownCaptures,
];

async function json(args: string[]): Promise<Record<string, unknown>> {
  const io = fakeIo({ env: { XDG_CACHE_HOME: tempDir("usage-keys-cache"), NO_COLOR: "1" } });
  expect(await run(args, io), io.err()).toBe(0);
  return JSON.parse(io.out()) as Record<string, unknown>;
}

interface SummaryUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  reasoningTokens: number | null;
}

/** The summary's figures in `usage`'s meaning (docs/usage.md "One meaning for every agent's tokens"). */
function inUsageTerms(dialect: string, u: SummaryUsage) {
  const n = (v: number | null) => v ?? 0;
  const cached = n(u.cacheReadTokens) + (dialect === "codex-session" ? n(u.cacheWriteTokens) : 0);
  return {
    // Codex, Gemini and Qwen report input with the cached part in it; Claude and OpenCode without.
    input: dialect === "claude-session" || dialect === "opencode-session" ? n(u.inputTokens) : n(u.inputTokens) - cached,
    // Gemini and OpenCode report thoughts beside the output; `usage` counts them in it.
    output: n(u.outputTokens) + (dialect === "gemini-session" || dialect === "opencode-session" ? n(u.reasoningTokens) : 0),
    cacheRead: n(u.cacheReadTokens),
    cacheWrite: n(u.cacheWriteTokens),
  };
}

describe("summary and usage agree on every session capture", () => {
  it("has captures of the three session dialects, and ours of the others", () => {
    const dialects = new Set(captures.map(([dialect]) => dialect));
    expect(captures.length === ownCaptures.length || SESSION_DIALECTS.every((d) => dialects.has(d))).toBe(true);
    expect(OWN_SESSION_DIALECTS.every((d) => dialects.has(d))).toBe(true);
  });

  // Session stores that are not one file (src/usage/store.ts): our own captures, read by a session's reference.
  const stores: [string, string][] = [["opencode-session", "test/fixtures/opencode-session/opencode.db#ses_dcb8ada35ffefqQG3Xv570XUvO"]];
  it.each(stores)("%s %s (a store): the same tokens and cost", async (dialect, ref) => {
    const [file = "", session = ""] = ref.split("#");
    const copy = join(tempDir("usage-keys-store"), file.split("/").at(-1) ?? "");
    copyFileSync(join(repoRoot, file), copy);
    await agree(dialect, `${copy}#${session}`);
  });

  it.each(captures)("%s %s: the same tokens and cost", async (dialect, path) => agree(dialect, path));

  async function agree(dialect: string, path: string): Promise<void> {
    const summary = await json(["summary", path, "--json"]);
    const usage = await json(["usage", path, "--by", "session", "--json", "--tz", "UTC"]);
    const totals = usage.totals as { tokens: Record<string, number>; costUsd: number | null; requests: number };
    const { input, output, cacheRead, cacheWrite } = totals.tokens;
    expect({ input, output, cacheRead, cacheWrite }).toEqual(inUsageTerms(dialect, summary.usage as SummaryUsage));
    // A session with no request: the summary knows no cost (null), usage sums none (0).
    expect(totals.costUsd).toBe(totals.requests === 0 ? (summary.costUsd ?? 0) : summary.costUsd);
  }
});

describe("the request keys", () => {
  it("Claude: message id and request id; the message id alone without one; the uuid without a message id", () => {
    expect(claudeUsageKey("msg_1", "req_1", "u1")).toBe("msg_1|req_1");
    expect(claudeUsageKey("msg_1", undefined, "u1")).toBe("msg_1|");
    expect(claudeUsageKey(undefined, "req_1", "u1")).toBe("uuid:u1");
    expect(claudeUsageKey(undefined, undefined, undefined)).toBeUndefined();
  });

  it("Codex: a thread's running total; Gemini: a session's message; Qwen: a session's line; Copilot: a session's API call", () => {
    expect(codexUsageKey("t#0", codexRunningTotal(undefined, 1000, 20))).toBe("t#0:1020");
    expect(codexRunningTotal(1030, 1000, 20)).toBe(1030);
    expect(geminiUsageKey("s1", "m1")).not.toBe(geminiUsageKey("s2", "m1"));
    expect(qwenUsageKey("s1", "u1")).not.toBe(qwenUsageKey("s2", "u1"));
    expect(copilotUsageKey("s1", "chatcmpl-1")).not.toBe(copilotUsageKey("s2", "chatcmpl-1"));
    expect(opencodeUsageKey("ses_1", "prt_1")).not.toBe(opencodeUsageKey("ses_2", "prt_1"));
  });
});
