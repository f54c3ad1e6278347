/**
 * The amp dialect (Amp `--stream-json`, Claude Code compatible): detection by the `T-` thread id,
 * the differences from Claude (no message id, per-message usage, no cost), our fixtures, the
 * conformance suite and the facts of the real capture in ../shared/fixtures/amp.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { amp } from "../../../src/agents/claude/amp.ts";
import type { JsonObject } from "../../../src/model/events.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile, type ReadResult } from "../../helpers/read.ts";
import { hasShared, noteSharedMissing, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord } from "../../helpers/records.ts";

const T = "T-019e5b10-1111-7222-8333-944455556666";
const readFixture = (name: string): ReadResult => readFile(fixturePath("amp", name), { repair: false });
/** A framed JSON record, as the NDJSON layer hands it to `detect`. */

describe("amp: detection", () => {
  const records: [string, JsonObject, boolean][] = [
    ["Amp init", { type: "system", subtype: "init", cwd: "/w", session_id: T, tools: ["Bash"], mcp_servers: [] }, true],
    [
      "Amp assistant",
      { type: "assistant", message: { type: "message", role: "assistant", content: [] }, parent_tool_use_id: null, session_id: T },
      true,
    ],
    ["Amp result", { type: "result", subtype: "success", duration_ms: 1, is_error: false, num_turns: 1, result: "4", session_id: T }, true],
    [
      "Claude init (UUID session id)",
      { type: "system", subtype: "init", session_id: "5e55a0b1-0000-4000-8000-000000000001", tools: [], claude_code_version: "2.1.220" },
      false,
    ],
    [
      "Cursor init",
      { type: "system", subtype: "init", apiKeySource: "login", session_id: "d43015b9-0707-43f4-b2df-0bcea7891654", model: "Auto" },
      false,
    ],
    ["a T- id on a record type Amp does not print", { type: "thread", session_id: T }, false],
  ];
  it.each(records)("%s → %s", (_name, value, expected) => {
    expect(amp.detect(jsonRecord(value))).toBe(expected);
  });
});

describe("amp: synthetic fixtures", () => {
  it("amp-tools-usage-per-message-no-cost: usage comes from each assistant message as a delta; no cost; Amp tool names", () => {
    const { events, summary, dialect } = readFixture("amp-tools-usage-per-message-no-cost.ndjson");
    expect(dialect).toBe("amp");
    expect(ofType(events, "usage").map((u) => [u.scope, u.usage.inputTokens, u.usage.outputTokens])).toEqual([
      ["delta", 12, 40],
      ["delta", 3, 20],
      ["delta", 2, 10],
    ]);
    expect(summary).toMatchObject({
      agent: "amp",
      sessionId: T,
      status: "success",
      finalText: "hello.txt contains: hi",
      costUsd: null,
      durationMs: 5200,
      turns: 3,
      usage: { inputTokens: 17, outputTokens: 70, cacheReadTokens: 27360, cacheWriteTokens: 240, reasoningTokens: null },
    });
    expect(ofType(events, "tool.started").map((t) => [t.name, t.kind])).toEqual([
      ["create_file", "file_write"],
      ["Bash", "command"],
    ]);
    expect(ofType(events, "file.changed")[0]?.changes).toEqual([{ path: "/work/demo/hello.txt", kind: "add", diff: "hi\n" }]);
    // Amp messages carry no id; each line gets its own, and its blocks are #0, #1, ...
    expect(ofType(events, "message.completed").map((m) => [m.role, m.messageId])).toEqual([
      ["user", "user-1#0"],
      ["assistant", "msg-1#0"],
      ["assistant", "msg-3#0"],
    ]);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });

  it("amp-error-result: an error result without text says error with the subtype", () => {
    const { summary } = readFixture("amp-error-result.ndjson");
    expect(summary).toMatchObject({ status: "error", error: "error_during_execution", turns: 0, costUsd: null });
  });

  it("amp-stream-json-thinking: --stream-json-thinking blocks are reasoning", () => {
    const { events, summary } = readFixture("amp-stream-json-thinking.ndjson");
    expect(ofType(events, "message.completed").map((m) => [m.kind, m.text, m.signature])).toEqual([
      ["reasoning", "Simple arithmetic.", undefined],
      ["text", "4", undefined],
    ]);
    expect(summary.usage).toMatchObject({ inputTokens: 7, outputTokens: 13 });
  });
});

describe("amp: record shapes", () => {
  it("a result that does carry usage sets the session totals (the summary then ignores the per-message deltas)", () => {
    const text = [
      { type: "system", subtype: "init", session_id: T, tools: [] },
      {
        type: "assistant",
        message: {
          type: "message",
          role: "assistant",
          content: [{ type: "text", text: "x" }],
          usage: { input_tokens: 5, output_tokens: 6 },
        },
        parent_tool_use_id: null,
        session_id: T,
      },
      {
        type: "result",
        subtype: "success",
        is_error: false,
        duration_ms: 1,
        num_turns: 1,
        result: "x",
        session_id: T,
        usage: { input_tokens: 50, output_tokens: 60 },
        total_cost_usd: 0.1,
      },
    ]
      .map((r) => JSON.stringify(r))
      .join("\n");
    const { summary } = readAll([text], { repair: false });
    expect(summary).toMatchObject({ dialect: "amp", costUsd: 0.1, usage: { inputTokens: 50, outputTokens: 60 } });
  });
});

describeDialect(
  amp,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("amp", "amp-tools-usage-per-message-no-cost.ndjson"), "utf8") },
);

noteSharedMissing();
describe.skipIf(!hasShared)("amp: real capture (../shared/fixtures/amp)", () => {
  it("unison_amp_0.0.1775837683 2+2: final text 4, usage from the assistant message, no cost", () => {
    const r = readFile(sharedPath("fixtures", "amp", "unison_amp_0.0.1775837683_stream_json_2plus2.jsonl"));
    expect(r.dialect).toBe("amp");
    expect(ofType(r.events, "unknown")).toEqual([]);
    expect(r.summary).toMatchObject({
      agent: "amp",
      agentVersion: null,
      model: null,
      sessionId: "T-019e47a8-5090-7538-9035-f2fde26859b7",
      status: "success",
      error: null,
      finalText: "4",
      toolCalls: [],
      usage: { inputTokens: 7, outputTokens: 13, cacheReadTokens: 14009, cacheWriteTokens: 3, reasoningTokens: null },
      costUsd: null,
      durationMs: 2442,
      turns: 1,
    });
    const started = ofType(r.events, "session.started")[0];
    expect(started?.tools).toContain("oracle");
    expect(started?.cwd).toBe("/Users/test/repo");
    expect(ofType(r.events, "message.completed").map((m) => [m.role, m.text])).toEqual([
      ["user", "What is 2+2? Answer in one number only."],
      ["assistant", "4"],
    ]);
  });
});
