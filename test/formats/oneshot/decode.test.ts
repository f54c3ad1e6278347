import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { detectDialect } from "../../../src/dialects.ts";
import { oneshot } from "../../../src/formats/oneshot/decode.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import type { InputRecord } from "../../../src/framing/ndjson/create-ndjson-parser.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll } from "../../helpers/read.ts";
import { captureRecords, jsonRecord } from "../../helpers/records.ts";
import { hasShared } from "../../helpers/shared.ts";
import { fixturePath } from "../../helpers/fixtures.ts";

const decode = (...lines: object[]) =>
  readAll([`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`], { dialect: oneshot, repair: false });
const shapes = (events: AgentEvent[]) => events.map(({ v, seq, source, ...rest }) => rest);
const T = 1768954851123;
const packet = (type: string, data: unknown, extra: object = {}) => ({
  timestamp: T / 1000,
  ts_ms: T,
  executor: "cline",
  oneshot_id: "task-1",
  type,
  data,
  is_heartbeat: false,
  ...extra,
});
const time = new Date(T).toISOString();

describe("oneshot: detection", () => {
  it.each([
    ["a packet", jsonRecord(packet("message", { role: "assistant", content: "x" })), true],
    ["a heartbeat", jsonRecord(packet("heartbeat", {}, { is_heartbeat: true })), true],
    ["no is_heartbeat", jsonRecord({ ts_ms: 1, executor: "cline", oneshot_id: "x", type: "message", data: {} }), false],
    ["a Cline message (raw, not a packet)", jsonRecord({ type: "say", say: "text", text: "hi", ts: 1768954851123 }), false],
    ["a text line", { kind: "text", text: "oneshot starting", line: 1, offset: 0, length: 16 } as InputRecord, false],
  ])("%s", (_name, record, expected) => {
    expect(oneshot.detect(record)).toBe(expected);
  });

  it("the registry picks oneshot for a packet", () => {
    expect(detectDialect(jsonRecord(packet("preamble", "banner")))?.name).toBe("oneshot");
  });

  it.skipIf(!hasShared)("claims no record of any real capture (the Cline capture from the oneshot repository included)", () => {
    const claimed = captureRecords().filter(({ record }) => oneshot.detect(record));
    expect(claimed.map(({ file, record }) => `${file}:${record.line}`)).toEqual([]);
  });
});

describe("oneshot: packet shapes", () => {
  it.each([
    ["preamble → text", [packet("preamble", "Cline v1")], [{ type: "text", text: "Cline v1", position: "preamble", time }]],
    [
      "the first activity packet starts the session (oneshot_id, executor → agent)",
      [packet("message", { role: "user", content: "go" })],
      [
        { type: "session.started", sessionId: "task-1", agent: "cline", details: { executor: "cline" }, time },
        { type: "message.started", messageId: "message-1", role: "user", kind: "text", sessionId: "task-1", time },
        { type: "message.completed", messageId: "message-1", role: "user", kind: "text", text: "go", sessionId: "task-1", time },
      ],
    ],
    [
      "thought → reasoning; executor claude → agent claude-code",
      [packet("thought", { text: "hmm" }, { executor: "claude" })],
      [
        { type: "session.started", sessionId: "task-1", agent: "claude-code", details: { executor: "claude" }, time },
        { type: "message.started", messageId: "thought-1", role: "assistant", kind: "reasoning", sessionId: "task-1", time },
        { type: "message.completed", messageId: "thought-1", role: "assistant", kind: "reasoning", text: "hmm", sessionId: "task-1", time },
      ],
    ],
    [
      "tool_use / tool_output without ids pair by tool; bash → command; exit code ≠ 0 is an error",
      [
        packet("tool_use", { tool: "bash", command: "ls", reason: "look" }),
        packet("tool_output", { tool: "bash", content: "", exit_code: 2 }),
      ],
      [
        { type: "session.started", sessionId: "task-1", agent: "cline", details: { executor: "cline" }, time },
        {
          type: "tool.started",
          toolCallId: "tool-1",
          name: "bash",
          kind: "command",
          input: { command: "ls" },
          description: "look",
          sessionId: "task-1",
          time,
        },
        { type: "tool.completed", toolCallId: "tool-1", name: "bash", output: "", exitCode: 2, isError: true, sessionId: "task-1", time },
      ],
    ],
    [
      "completion failure → session.completed error; stats figures → usage",
      [packet("completion", { status: "failure", result: "no", stats: { input_tokens: 5, duration_ms: 9 } })],
      [
        { type: "session.started", sessionId: "task-1", agent: "cline", details: { executor: "cline" }, time },
        {
          type: "session.completed",
          status: "error",
          finalText: "no",
          usage: { inputTokens: 5, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
          durationMs: 9,
          sessionId: "task-1",
          time,
        },
      ],
    ],
    [
      "is_heartbeat → heartbeat, whatever the type",
      [packet("message", { role: "assistant", content: "again" }, { is_heartbeat: true })],
      [{ type: "heartbeat", time }],
    ],
    ["ts_ms 0 is no time", [packet("preamble", "x", { timestamp: 0, ts_ms: 0 })], [{ type: "text", text: "x", position: "preamble" }]],
    [
      "an event packet carrying an agentstream event → that event",
      [packet("event", { type: "retry", attempt: 2 })],
      [{ type: "retry", attempt: 2 }],
    ],
  ])("%s", (_name, lines, expected) => {
    expect(shapes(decode(...lines).events)).toEqual(expected);
  });

  it("an unknown packet type is kept verbatim and reported", () => {
    const { events, issues } = decode(packet("git_commit", { sha: "1" }));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: "unknown", raw: packet("git_commit", { sha: "1" }) });
    expect(issues.map((i) => i.code)).toEqual(["unknown-record"]);
  });
});

describeDialect(oneshot, { describe, it, expect }, { sample: readFileSync(fixturePath("oneshot", "cline-command-run.ndjson"), "utf8") });
describeDialect(
  oneshot,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("oneshot", "claude-thought-heartbeats-failure.ndjson"), "utf8") },
);

describe("oneshot: fixtures", () => {
  it("cline-command-run: one command, the answer, success with usage", () => {
    const { summary, dialect } = readAll([readFileSync(fixturePath("oneshot", "cline-command-run.ndjson"))]);
    expect(dialect).toBe("oneshot");
    expect(summary).toMatchObject({
      agent: "cline",
      sessionId: "task-789",
      status: "success",
      finalText: "The folder holds one empty file, a.txt.",
      durationMs: 3199,
    });
    expect(summary.toolCalls).toEqual([{ id: "tool-1", name: "bash", status: "success" }]);
    expect(summary.usage).toMatchObject({ inputTokens: 1200, outputTokens: 40 });
  });

  it("claude-thought-heartbeats-failure: heartbeats are not activity; the failed edit is an error", () => {
    const { events, summary } = readAll([readFileSync(fixturePath("oneshot", "claude-thought-heartbeats-failure.ndjson"))]);
    expect(events.filter((e) => e.type === "heartbeat")).toHaveLength(2);
    expect(summary).toMatchObject({ agent: "claude-code", status: "error", finalText: "I could not write the file." });
    expect(summary.toolCalls).toEqual([{ id: "tool-1", name: "edit", status: "error" }]);
  });

  it("unknown-type: the unknown packet is kept after the user message", () => {
    const { events } = readAll([readFileSync(fixturePath("oneshot", "unknown-type.ndjson"))]);
    expect(events.map((e) => e.type)).toEqual(["session.started", "message.started", "message.completed", "unknown"]);
  });
});
