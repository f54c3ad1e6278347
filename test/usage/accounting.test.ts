/**
 * Each request counted once, by each agent's own rule (docs/usage.md): on the real captures, checked against
 * an independent reading of the same lines, and on synthetic trees for the cases that broke other tools
 * (several lines per response, copies across files, resumed sessions, missing requestId, Codex running totals).
 */
import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectUsage } from "../../src/usage/collect.ts";
import { type TokenCounts, zeroTokens, addTokens } from "../../src/usage/types.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";
import { claudeLine, claudeUserLine, codexMeta, codexTokenCount, tempTree } from "./trees.ts";

async function totals(paths: string[]): Promise<{ tokens: TokenCounts; requests: number; duplicates: number; sessions: number }> {
  const { ledger } = await collectUsage({ paths, env: {}, cache: false });
  const tokens = zeroTokens();
  for (const charge of ledger.charges) addTokens(tokens, charge.tokens);
  return { tokens, requests: ledger.charges.length, duplicates: ledger.duplicates, sessions: ledger.sessions.size };
}

/** The rule written out plainly, to check the scanner against: the last line of each message id + requestId. */
function lastPerRequest(file: string): { input: number; output: number; cacheRead: number; cacheWrite: number; requests: number } {
  const last = new Map<
    string,
    { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }
  >();
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    const rec = JSON.parse(line) as { type?: string; requestId?: string; message?: { id?: string; model?: string; usage?: never } };
    if (rec.type !== "assistant" || rec.message?.usage === undefined || rec.message.model === "<synthetic>") continue;
    last.set(`${rec.message.id}|${rec.requestId ?? ""}`, rec.message.usage);
  }
  const out = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, requests: last.size };
  for (const u of last.values()) {
    out.input += u.input_tokens;
    out.output += u.output_tokens;
    out.cacheRead += u.cache_read_input_tokens;
    out.cacheWrite += u.cache_creation_input_tokens;
  }
  return out;
}

describe.skipIf(!hasShared)("usage on the real captures", () => {
  const claude = sharedPath("fixtures", "claude-session");

  it.each([
    "ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl",
    "happy_1.0.71_task_subagent_websearch_non_sdk.jsonl",
    "ralph_2.1.223_interactive_parent_a4731909.jsonl",
    "ralph_2.1.223_interactive_a4731909_subagents/agent-a4ff0e1ce30e00726.jsonl",
  ])("Claude %s: one count per message id + requestId, the last line's figures", async (name) => {
    const file = join(claude, name);
    const expected = lastPerRequest(file);
    const got = await totals([file]);
    expect(got.requests).toBe(expected.requests);
    expect(got.tokens).toMatchObject({
      input: expected.input,
      output: expected.output,
      cacheRead: expected.cacheRead,
      cacheWrite: expected.cacheWrite,
    });
  });

  it("Claude ccviewer: the first line of a response would undercount its output (the rule ccusage#797 asks for)", async () => {
    const got = await totals([join(claude, "ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl")]);
    // 262 assistant lines, 170 responses; the summed last lines give 51,933 output tokens (the first lines: 49,780).
    expect(got).toMatchObject({ requests: 170, tokens: { output: 51_933, input: 818, cacheRead: 3_647_854, cacheWrite: 137_976 } });
  });

  it("a parent transcript and its subagent file are one session, the subagent's requests included", async () => {
    const { ledger } = await collectUsage({
      paths: [
        join(claude, "ralph_2.1.223_interactive_parent_a4731909.jsonl"),
        join(claude, "ralph_2.1.223_interactive_a4731909_subagents"),
      ],
      env: {},
      cache: false,
    });
    expect(ledger.sessions.size).toBe(1);
    const [session] = [...ledger.sessions.values()];
    expect(session?.files[0]).toMatch(/parent_a4731909\.jsonl$/);
    expect(ledger.charges.filter((c) => c.sidechain)).toHaveLength(4);
    expect(ledger.charges.filter((c) => !c.sidechain)).toHaveLength(5);
  });

  it("Codex: the running total repeated by token_usage_record and token_count counts once; the resume's turn is the difference", async () => {
    const got = await totals([sharedPath("fixtures", "codex-session", "pagehub_0.154.0_exec_resume_rollout_filtered.jsonl")]);
    // Final thread total: 31,478 input of which 24,320 cached, 10 output; two requests.
    expect(got.requests).toBe(2);
    expect(got.tokens).toMatchObject({ input: 31_478 - 24_320, cacheRead: 24_320, output: 10, cacheWrite: 0 });
  });

  it("Gemini: a message written twice (once more with its tool results) counts once", async () => {
    const got = await totals([sharedPath("fixtures", "gemini-session", "switchboard_0.42.0_tool_use_session_with_set_records.jsonl")]);
    expect(got.requests).toBe(2);
    expect(got.tokens).toMatchObject({ input: 10_191 + (10_334 - 7_559), cacheRead: 7_559, output: 83 + 17 });
  });

  it("a folder of copies (a backup, a worktree) adds nothing", async () => {
    const tree = tempTree();
    for (const dir of ["a", "b"]) {
      mkdirSync(join(tree.root, dir), { recursive: true });
      copyFileSync(join(claude, "ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl"), join(tree.root, dir, "fe5e1c67.jsonl"));
    }
    const once = await totals([join(claude, "ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl")]);
    const twice = await totals([tree.root]);
    expect(twice.tokens).toEqual(once.tokens);
    expect(twice.duplicates).toBe(170);
  });
});

describe("usage on synthetic trees", () => {
  it("several lines of one response (content blocks, streaming): the last line's figures, once", async () => {
    const tree = tempTree();
    tree.write("projects/p/s-1.jsonl", [
      claudeLine({ message: "m1", request: "r1", output: 3 }),
      claudeLine({ message: "m1", request: "r1", output: 40 }),
      claudeLine({ message: "m1", request: "r1", output: 172 }),
      claudeLine({ message: "m2", request: "r2", output: 7 }),
    ]);
    const got = await totals([tree.root]);
    expect(got.requests).toBe(2);
    expect(got.tokens).toMatchObject({ output: 179, input: 20, cacheRead: 2000, cacheWrite: 200 });
  });

  it("requestId missing (third-party gateways): the message id alone keys the response", async () => {
    const tree = tempTree();
    tree.write("projects/p/s-1.jsonl", [
      claudeLine({ message: "m1", output: 5 }),
      claudeLine({ message: "m1", output: 90 }),
      claudeLine({ message: "m2", output: 1 }),
    ]);
    const got = await totals([tree.root]);
    expect(got.requests).toBe(2);
    expect(got.tokens.output).toBe(91);
  });

  it("a resumed session copies the history into a new file: the copied requests count once, for the session that made them", async () => {
    const tree = tempTree();
    const history = [
      claudeLine({ message: "m1", request: "r1", session: "old", time: "2026-03-01T10:00:00Z" }),
      claudeLine({ message: "m2", request: "r2", session: "old", time: "2026-03-01T10:01:00Z" }),
    ];
    tree.write("projects/p/old.jsonl", history);
    tree.write("projects/p/new.jsonl", [
      ...[
        claudeLine({ message: "m1", request: "r1", session: "new", time: "2026-03-01T10:00:00Z" }),
        claudeLine({ message: "m2", request: "r2", session: "new", time: "2026-03-01T10:01:00Z" }),
      ],
      claudeUserLine("new", "2026-03-02T09:00:00Z"),
      claudeLine({ message: "m3", request: "r3", session: "new", time: "2026-03-02T09:00:05Z", output: 500 }),
    ]);
    const { ledger } = await collectUsage({ paths: [tree.root], env: {}, cache: false });
    expect(ledger.charges).toHaveLength(3);
    expect(ledger.duplicates).toBe(2);
    const bySession = (id: string) => ledger.charges.filter((c) => ledger.sessions.get(c.session)?.sessionId === id).length;
    expect([bySession("old"), bySession("new")]).toEqual([2, 1]);
  });

  it("Codex: repeated totals, a restart of the count and a copied rollout give each request once", async () => {
    const tree = tempTree();
    const lines = [
      ...codexMeta("t-1", "2026-03-01T10:00:00Z"),
      codexTokenCount("2026-03-01T10:00:05Z", [1000, 800, 20], [1000, 800, 20]),
      codexTokenCount("2026-03-01T10:00:05Z", [1000, 800, 20], [1000, 800, 20]),
      codexTokenCount("2026-03-01T10:00:09Z", [2500, 1800, 50], [1500, 1000, 30]),
    ];
    tree.write("sessions/2026/03/01/rollout-2026-03-01T10-00-00-t-1.jsonl", lines);
    tree.write("backup/rollout-2026-03-01T10-00-00-t-1.jsonl", lines);
    const got = await totals([tree.root]);
    expect(got.requests).toBe(2);
    expect(got.tokens).toMatchObject({ input: 2500 - 1800, cacheRead: 1800, output: 50 });
  });

  it("a line that is not JSON is counted and skipped, the rest is read", async () => {
    const tree = tempTree();
    const file = tree.write("projects/p/s.jsonl", [claudeLine({ message: "m1", request: "r1" })]);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(file, `{"usage": broken\n${readFileSync(file, "utf8")}`);
    const { ledger } = await collectUsage({ paths: [file], env: {}, cache: false });
    expect(ledger.charges).toHaveLength(1);
    expect([...ledger.sessions.values()][0]?.badLines).toBe(1);
  });
});
