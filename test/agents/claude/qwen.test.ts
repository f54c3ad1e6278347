/**
 * The qwen dialect (Qwen Code `--output-format stream-json`, Claude Agent SDK shapes): detection
 * by Qwen's init, the differences from Claude (snake-case permission_mode, goal_state, empty
 * signatures, usage with cached input included, no cost), our fixtures, conformance and the
 * facts of the real capture in ../shared/fixtures/qwen.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { qwen } from "../../../src/agents/claude/qwen.ts";
import type { JsonObject } from "../../../src/model/events.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readFile, type ReadResult } from "../../helpers/read.ts";
import { hasShared, noteSharedMissing, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord } from "../../helpers/records.ts";

const Q = "7a1c2e3f-4b5d-4e6f-8a9b-0c1d2e3f4a5b";
const readFixture = (name: string): ReadResult => readFile(fixturePath("qwen", name), { repair: false });
/** A framed JSON record, as the NDJSON layer hands it to `detect`. */

describe("qwen: detection", () => {
  const records: [string, JsonObject, boolean][] = [
    ["init with qwen_code_version", { type: "system", subtype: "init", session_id: Q, qwen_code_version: "0.25.0" }, true],
    ["trimmed init with permission_mode only", { type: "system", subtype: "init", session_id: Q, permission_mode: "plan" }, true],
    ["goal_state stream_event", { type: "stream_event", session_id: Q, event: { type: "goal_state", goal_state: { v: 2 } } }, true],
    [
      "Claude init",
      { type: "system", subtype: "init", session_id: Q, permissionMode: "default", claude_code_version: "2.1.220", tools: [] },
      false,
    ],
    ["Claude stream_event", { type: "stream_event", session_id: Q, event: { type: "message_start" } }, false],
    [
      "Cursor init",
      { type: "system", subtype: "init", apiKeySource: "login", session_id: Q, model: "Auto", permissionMode: "default" },
      false,
    ],
  ];
  it.each(records)("%s → %s", (_name, value, expected) => {
    expect(qwen.detect(jsonRecord(value))).toBe(expected);
  });
});

describe("qwen: synthetic fixtures", () => {
  it("qwen-partial-thinking-tool-goal-state: goal_state notice, thinking deltas then the assistant line after message_stop, no empty signature", () => {
    const { events, summary, dialect } = readFixture("qwen-partial-thinking-tool-goal-state.ndjson");
    expect(dialect).toBe("qwen");
    expect(ofType(events, "notice")[0]).toMatchObject({ kind: "goal_state", text: "goal: none, activity: idle" });
    const id = "b7e0c8a2-1f3d-4c5e-9a8b-7d6c5e4f3a21#0";
    expect(ofType(events, "message.delta").map((d) => [d.messageId, d.text])).toEqual([
      [id, "Read the marker "],
      [id, "file first."],
    ]);
    const reasoning = ofType(events, "message.completed").find((m) => m.messageId === id);
    expect(reasoning).toMatchObject({ kind: "reasoning", text: "Read the marker file first." });
    expect(reasoning?.signature).toBeUndefined();
    expect(
      ofType(events, "tool.input.delta")
        .map((d) => d.text)
        .join(""),
    ).toBe('{"file_path":"/work/demo/marker.txt"}');
    expect(ofType(events, "usage")).toEqual([]);
    expect(summary).toMatchObject({
      agent: "qwen-code",
      agentVersion: "0.25.0",
      model: "qwen3-coder-plus",
      status: "success",
      finalText: "MARKER-7",
      costUsd: null,
      turns: 2,
      usage: { inputTokens: 2500, outputTokens: 46, cacheReadTokens: 2039, cacheWriteTokens: null },
    });
    expect(summary.toolCalls).toEqual([{ id: "call_q1", name: "read_file", status: "success" }]);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });

  it("qwen-init-without-version-shell-todo: permission_mode read, todo_write plan, failing run_shell_command", () => {
    const { events, summary } = readFixture("qwen-init-without-version-shell-todo.ndjson");
    expect(ofType(events, "session.started")[0]).toMatchObject({ agent: "qwen-code", permissionMode: "yolo" });
    expect(ofType(events, "plan.updated")[0]?.items).toEqual([
      { text: "Run tests", status: "in_progress" },
      { text: "Report", status: "pending" },
    ]);
    expect(ofType(events, "tool.started").map((t) => [t.name, t.kind])).toEqual([
      ["todo_write", "todo"],
      ["run_shell_command", "command"],
    ]);
    expect(summary.toolCalls.map((t) => t.status)).toEqual(["success", "error"]);
    expect(summary).toMatchObject({ finalText: "3 tests fail.", usage: { inputTokens: 1680, outputTokens: 63 } });
  });
});

describeDialect(
  qwen,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("qwen", "qwen-partial-thinking-tool-goal-state.ndjson"), "utf8") },
);

noteSharedMissing();
describe.skipIf(!hasShared)("qwen: real capture (../shared/fixtures/qwen)", () => {
  it("plannotator_0.25.0 cherry-picked lines: read_file, final text, usage from the result, no cost", () => {
    const r = readFile(sharedPath("fixtures", "qwen", "plannotator_0.25.0_partial_cherrypicked_lines.jsonl"));
    expect(r.dialect).toBe("qwen");
    expect(ofType(r.events, "unknown")).toEqual([]);
    expect(r.summary).toMatchObject({
      agent: "qwen-code",
      agentVersion: "0.25.0",
      model: "Qwen3.8-27B-UD-Q8_K_XL",
      sessionId: "6f0e1b2c-3d4e-5f60-8a9b-0c1d2e3f4a5b",
      status: "success",
      error: null,
      finalText: "MARKER-CONTENT-42",
      toolCalls: [{ id: "Q673iM04W3rG0pJKnXOTsR5zmwmKdg8a", name: "read_file", status: "success" }],
      usage: { inputTokens: 100761, outputTokens: 1828, cacheReadTokens: 64602, cacheWriteTokens: null, reasoningTokens: null },
      costUsd: null,
      durationMs: 34939,
      turns: 2,
    });
    expect(ofType(r.events, "session.started")[0]?.permissionMode).toBe("plan");
    expect(ofType(r.events, "notice").find((n) => n.kind === "goal_state")?.details).toEqual({ v: 2, goal: null, activity: "idle" });
    // The cherry-picked input_json_delta sits on the thinking block's index: no tool call owns it, so it is a warning notice, not lost.
    expect(ofType(r.events, "notice").find((n) => n.kind === "input_json_delta")?.level).toBe("warning");
    expect(ofType(r.events, "tool.completed")[0]).toMatchObject({ output: "MARKER-CONTENT-42\n", isError: false });
  });
});
