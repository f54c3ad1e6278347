/**
 * The facts `summary --json` derives when the input states none: duration, turns, model, cost, subagents,
 * and the token accounting rule. Each class is checked on a synthetic fixture and, where the captures
 * carry it, against an independent reading of the raw capture (../shared/fixtures).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Usage } from "../../src/model/events.ts";
import { readAll, readFile } from "../helpers/read.ts";
import { listCaptures } from "../helpers/shared.ts";
import { fixturePath } from "../helpers/fixtures.ts";

const captures = (dialect: string): string[] =>
  listCaptures()
    .filter(([d, path]) => d === dialect && !path.endsWith(".json"))
    .map(([, path]) => path);
const lines = (path: string): unknown[] =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as unknown];
      } catch {
        return [];
      }
    });

/** The fields of a transcript line this reference reading looks at. */
interface TranscriptLine {
  type?: string;
  isSidechain?: boolean;
  requestId?: string;
  timestamp?: string;
  message?: {
    id?: string;
    model?: string;
    usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  };
}

/**
 * ccusage's rule, read straight from the JSONL: one count per message id + request id, the last record's
 * figures, sidechain records included in the total and also summed apart.
 */
function referenceUsage(path: string): { total: number[]; sidechain: number[] } {
  const last = new Map<string, { sidechain: boolean; figures: number[] }>();
  for (const line of lines(path) as TranscriptLine[]) {
    const usage = line.message?.usage;
    if (line.type !== "assistant" || usage === undefined || line.message?.model === "<synthetic>") continue;
    const figures = [
      usage.input_tokens ?? 0,
      usage.output_tokens ?? 0,
      usage.cache_read_input_tokens ?? 0,
      usage.cache_creation_input_tokens ?? 0,
    ];
    last.set(`${line.message?.id}|${line.requestId}`, { sidechain: line.isSidechain === true, figures });
  }
  const total = [0, 0, 0, 0];
  const sidechain = [0, 0, 0, 0];
  for (const { sidechain: side, figures } of last.values()) {
    figures.forEach((n, i) => {
      total[i] = (total[i] ?? 0) + n;
      if (side) sidechain[i] = (sidechain[i] ?? 0) + n;
    });
  }
  return { total, sidechain };
}

const figures = (usage: Usage): number[] => [
  usage.inputTokens ?? 0,
  usage.outputTokens ?? 0,
  usage.cacheReadTokens ?? 0,
  usage.cacheWriteTokens ?? 0,
];

describe("summary: Claude transcript token totals (message id + request id, last record wins, sidechains apart)", () => {
  it("usage-per-request-sidechain-cost: each response counted once with its last figures, a retried request apart, the sidechain apart", () => {
    const { summary } = readFile(fixturePath("claude-session", "usage-per-request-sidechain-cost.ndjson"));
    // Output: msg_X 90 (last of 5, 90) + msg_Y/req_2 7 + msg_Y/req_3 9 + msg_Z 3 + sidechain msg_S 40 (last of 10, 40).
    expect(summary.usage).toEqual({
      inputTokens: 19,
      outputTokens: 149,
      cacheReadTokens: 4500,
      cacheWriteTokens: 450,
      reasoningTokens: null,
    });
    expect(summary.subagentUsage).toEqual({
      inputTokens: 3,
      outputTokens: 40,
      cacheReadTokens: 500,
      cacheWriteTokens: 50,
      reasoningTokens: null,
    });
    // costUSD: msg_X's last record 0.02 + the sidechain's 0.005 + msg_Y/req_2's 0.001; msg_Y/req_3 and msg_Z carry none,
    // so they are estimated from the price table (Sonnet 4: $3 input, $15 output, $0.30 cache read, $3.75 cache write),
    // as `usage` and `sessions` estimate them.
    expect(summary.costUsd).toBeCloseTo(0.027551, 9);
    expect(summary).toMatchObject({ costEstimated: true, unpricedModels: [] });
    expect(summary.subagents).toBe(1);
  });

  it("a session without subagents reports no subagent usage, and an estimated cost when no record carries costUSD", () => {
    const { summary } = readFile(fixturePath("claude-session", "usage-repeated-per-content-block.ndjson"));
    expect(summary.subagentUsage).toEqual({
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      reasoningTokens: null,
    });
    expect(summary).toMatchObject({ costUsd: 0.011496, costEstimated: true, unpricedModels: [] });
  });

  it.each(captures("claude-session"))("%s: usage and subagentUsage follow the rule on the raw records", (path) => {
    const { summary } = readFile(path);
    const { total, sidechain } = referenceUsage(path);
    expect(figures(summary.usage)).toEqual(total);
    expect(figures(summary.subagentUsage)).toEqual(sidechain);
  });
});

describe("summary: saved sessions derive duration, turns and model", () => {
  it("a Claude transcript: duration is the timestamps' span, turns are the user prompts (not tool results)", () => {
    const { summary } = readFile(fixturePath("claude-session", "usage-per-request-sidechain-cost.ndjson"));
    expect(summary.durationMs).toBe(5 * 60_000 + 2000);
    // Two prompts; the sidechain's prompt and the Task's tool result are not turns.
    expect(summary.turns).toBe(2);
    expect(summary.model).toBe("claude-sonnet-4-20250514");
  });

  it("prompts separated by anything count apart; the text blocks of one prompt record count once", () => {
    const sid = "5f0c2a9e-0000-4a2b-9c3d-00000000c1a1";
    const user = (uuid: string, content: unknown, timestamp: string) => ({
      parentUuid: null,
      isSidechain: false,
      userType: "external",
      sessionId: sid,
      version: "2.1.200",
      type: "user",
      uuid,
      timestamp,
      message: { role: "user", content },
    });
    const synthetic = {
      parentUuid: "u-1",
      isSidechain: false,
      userType: "external",
      sessionId: sid,
      version: "2.1.200",
      type: "assistant",
      uuid: "a-1",
      timestamp: "2026-01-01T00:00:01.000Z",
      message: { id: "m-1", model: "<synthetic>", role: "assistant", content: [{ type: "text", text: "No response requested." }] },
    };
    const records = [
      user(
        "u-1",
        [
          { type: "text", text: "First," },
          { type: "text", text: "one prompt in two blocks." },
        ],
        "2026-01-01T00:00:00.000Z",
      ),
      synthetic,
      user("u-2", "Second prompt.", "2026-01-01T00:00:02.000Z"),
    ];
    const { summary } = readAll([records.map((r) => `${JSON.stringify(r)}\n`).join("")], { dialect: "claude-session" });
    expect(summary.turns).toBe(2);
    expect(summary.durationMs).toBe(2000);
  });

  it("a record with one timestamp has no duration; a live stream's timestamps give none either", () => {
    for (const path of captures("claude-session").filter((p) => p.includes("goal_status")))
      expect(readFile(path).summary.durationMs).toBeNull();
    const { summary } = readFile(fixturePath("opencode", "two-steps-usage-and-cost-per-step.ndjson"));
    expect(summary.durationMs).toBeNull();
  });

  it.each([...captures("claude-session"), ...captures("codex-session")])("%s: duration is the span of the record timestamps", (path) => {
    const stamps = [...readFileSync(path, "utf8").matchAll(/"timestamp":\s*"([^"]+)"/g)]
      .map((m) => Date.parse(m[1] ?? ""))
      .filter((ms) => !Number.isNaN(ms));
    const span = stamps.length === 0 ? 0 : Math.max(...stamps) - Math.min(...stamps);
    expect(readFile(path).summary.durationMs).toBe(span > 0 ? span : null);
  });

  it.each(captures("codex-session"))("%s: turns from task_started, the model from turn_context", (path) => {
    const records = lines(path) as { type?: string; payload?: { type?: string; model?: string } }[];
    const { summary } = readFile(path);
    expect(summary.turns).toBe(records.filter((r) => r.type === "event_msg" && r.payload?.type === "task_started").length || null);
    const models = records.filter((r) => r.type === "turn_context" && r.payload?.model !== undefined).map((r) => r.payload?.model);
    if (models.length > 0) expect(summary.model).toBe(models.at(-1));
  });

  it("a Codex rollout without timestamps takes its duration from task_complete.duration_ms; the model from turn_context via token_count", () => {
    const records = [
      { type: "session_meta", payload: { id: "0199aaaa-0000-7000-8000-000000000001", cwd: "/w", cli_version: "0.50.0" } },
      { type: "event_msg", payload: { type: "task_started", turn_id: "t1" } },
      { type: "turn_context", payload: { turn_id: "t1", model: "gpt-5-codex", cwd: "/w" } },
      { type: "event_msg", payload: { type: "agent_message", message: "Hi." } },
      {
        type: "event_msg",
        payload: {
          type: "token_count",
          info: {
            total_token_usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 2, reasoning_output_tokens: 0, total_tokens: 12 },
            last_token_usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 2, reasoning_output_tokens: 0, total_tokens: 12 },
          },
        },
      },
      { type: "event_msg", payload: { type: "task_complete", turn_id: "t1", last_agent_message: "Hi.", duration_ms: 1500 } },
      { type: "event_msg", payload: { type: "task_started", turn_id: "t2" } },
      { type: "event_msg", payload: { type: "task_complete", turn_id: "t2", last_agent_message: "Bye.", duration_ms: 700 } },
    ];
    const { summary } = readAll([records.map((r) => `${JSON.stringify(r)}\n`).join("")], { dialect: "codex-session" });
    expect(summary.durationMs).toBe(2200);
    expect(summary.turns).toBe(2);
    expect(summary.model).toBe("gpt-5-codex");
  });

  it("a Codex rollout without task_started counts one turn per turn_context", () => {
    const records = [
      {
        timestamp: "2025-09-01T10:00:00.000Z",
        type: "session_meta",
        payload: { id: "0199aaaa-0000-7000-8000-000000000002", cwd: "/w", cli_version: "0.30.0" },
      },
      { timestamp: "2025-09-01T10:00:01.000Z", type: "turn_context", payload: { cwd: "/w", model: "gpt-5" } },
      {
        timestamp: "2025-09-01T10:00:02.000Z",
        type: "response_item",
        payload: { type: "message", role: "assistant", content: [{ type: "output_text", text: "One." }] },
      },
      { timestamp: "2025-09-01T10:01:00.000Z", type: "turn_context", payload: { cwd: "/w", model: "gpt-5" } },
      {
        timestamp: "2025-09-01T10:01:05.000Z",
        type: "response_item",
        payload: { type: "message", role: "assistant", content: [{ type: "output_text", text: "Two." }] },
      },
    ];
    const { summary } = readAll([records.map((r) => `${JSON.stringify(r)}\n`).join("")], { dialect: "codex-session" });
    expect(summary.turns).toBe(2);
    expect(summary.durationMs).toBe(65_000);
  });

  it.each(captures("gemini-session"))("%s: model from the gemini records, turns from the user records", (path) => {
    const records = lines(path) as { type?: string; model?: string }[];
    const { summary } = readFile(path);
    expect(summary.model).toBe(records.filter((r) => r.type === "gemini" && r.model !== undefined).at(-1)?.model ?? null);
    expect(summary.turns).toBe(records.filter((r) => r.type === "user").length || null);
    expect(summary.durationMs).not.toBeNull();
  });
});
