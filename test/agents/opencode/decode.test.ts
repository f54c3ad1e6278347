import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { detectDialect } from "../../../src/dialects.ts";
import { opencode } from "../../../src/agents/opencode/decode.ts";
import { validateEvent } from "../../../src/validation/validate-event.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord, textRecord } from "../../helpers/records.ts";

const decode = (...lines: (object | string)[]) =>
  readAll([`${lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`], { dialect: opencode, repair: false });

const S = "ses_test";
const ts = 1772359200000;
const iso = new Date(ts).toISOString();
const ev = (type: string, extra: object = {}) => ({ type, timestamp: ts, sessionID: S, ...extra });

describe("opencode: detection", () => {
  it.each([
    ["step_start", jsonRecord(ev("step_start", { part: { id: "prt_1", type: "step-start" } })), true],
    ["tool_use", jsonRecord(ev("tool_use", { part: {} })), true],
    ["error", jsonRecord(ev("error", { error: { name: "UnknownError" } })), true],
    ["permission text line", textRecord("! permission requested: external_directory (/etc/*); auto-rejecting"), true],
    ["ProviderModelNotFoundError stderr line", textRecord("ProviderModelNotFoundError: ProviderModelNotFoundError"), true],
    [
      "a Gemini tool_use (no sessionID)",
      jsonRecord({ type: "tool_use", timestamp: "2026-01-01T00:00:00Z", tool_name: "x", tool_id: "y", parameters: {} }),
      false,
    ],
    ["a text record without sessionID", jsonRecord({ type: "text", text: "hi" }), false],
    ["a generic error line", textRecord("TypeError: x is undefined"), false],
  ])("%s", (_name, record, expected) => {
    expect(opencode.detect(record)).toBe(expected);
  });

  it("the registry picks opencode for its records and its text lines", () => {
    expect(detectDialect(jsonRecord(ev("step_start", { part: {} })))?.name).toBe("opencode");
    expect(detectDialect(textRecord("! permission requested: bash (rm *); auto-rejecting"))?.name).toBe("opencode");
  });
});

describe("opencode: record shapes", () => {
  it.each([
    [
      "step_start → session.started (first line) + turn.started (closed at the end of input)",
      [ev("step_start", { part: { id: "prt_1", sessionID: S, messageID: "msg_1", type: "step-start" } })],
      [
        { type: "session.started", agent: "opencode", sessionId: S, time: iso },
        { type: "turn.started", turnId: "prt_1", time: iso },
        { type: "turn.completed", turnId: "prt_1", status: "error", error: "the input ended before step_finish" },
      ],
    ],
    [
      "text → whole assistant message",
      [ev("text", { part: { id: "prt_2", type: "text", text: "Hi" } })],
      [
        { type: "session.started" },
        { type: "message.started", messageId: "prt_2", role: "assistant", kind: "text" },
        { type: "message.completed", messageId: "prt_2", text: "Hi" },
      ],
    ],
    [
      "reasoning → whole reasoning message",
      [ev("reasoning", { part: { id: "prt_3", type: "reasoning", text: "hmm" } })],
      [
        { type: "session.started" },
        { type: "message.started", kind: "reasoning" },
        { type: "message.completed", kind: "reasoning", text: "hmm" },
      ],
    ],
    [
      "tool_use completed → started + completed from one line",
      [
        ev("tool_use", {
          part: {
            type: "tool",
            tool: "bash",
            callID: "call_1",
            state: { status: "completed", input: { command: "ls" }, output: "x\n", metadata: { exit: 2 }, time: { start: 10, end: 25 } },
          },
        }),
      ],
      [
        { type: "session.started" },
        { type: "tool.started", toolCallId: "call_1", name: "bash", kind: "command", input: { command: "ls" } },
        { type: "tool.completed", toolCallId: "call_1", name: "bash", output: "x\n", exitCode: 2, isError: false, durationMs: 15 },
      ],
    ],
    [
      "tool_use running → started + progress (closed as failed at the end of input)",
      [
        ev("tool_use", {
          part: { type: "tool", tool: "bash", callID: "call_2", state: { status: "running", input: { command: "sleep 1" } } },
        }),
      ],
      [
        { type: "session.started" },
        { type: "tool.started", toolCallId: "call_2" },
        { type: "tool.progress", toolCallId: "call_2", status: "running" },
        { type: "tool.completed", toolCallId: "call_2", isError: true },
      ],
    ],
    [
      "step_finish → turn.completed with per-step usage and cost",
      [
        ev("step_start", { part: { id: "prt_1" } }),
        ev("step_finish", {
          part: { id: "prt_9", reason: "stop", cost: 0.5, tokens: { input: 1, output: 2, reasoning: 3, cache: { read: 4, write: 5 } } },
        }),
      ],
      [
        { type: "session.started" },
        { type: "turn.started", turnId: "prt_1" },
        {
          type: "turn.completed",
          turnId: "prt_1",
          status: "success",
          costUsd: 0.5,
          usage: { inputTokens: 1, outputTokens: 2, reasoningTokens: 3, cacheReadTokens: 4, cacheWriteTokens: 5 },
        },
        { type: "session.completed", status: "success" },
      ],
    ],
    [
      "error → fatal session error and session.completed at the end",
      [ev("error", { error: { name: "APIError", data: { message: "Overloaded", isRetryable: true } } })],
      [
        { type: "session.started" },
        { type: "error", scope: "session", code: "APIError", message: "Overloaded", fatal: true },
        { type: "session.completed", status: "error", error: "Overloaded" },
      ],
    ],
  ])("%s", (_name, lines, expected) => {
    const { events, issues } = decode(...lines);
    expect(events).toMatchObject(expected);
    expect(events.length).toBe(expected.length);
    expect(issues.filter((i) => i.severity !== "info")).toEqual([]);
  });

  it("a step that finished with tool-calls does not end the session", () => {
    const { events } = decode(
      ev("step_start", { part: { id: "p1" } }),
      ev("step_finish", {
        part: { reason: "tool-calls", cost: 0, tokens: { input: 1, output: 1, reasoning: 0, cache: { read: 0, write: 0 } } },
      }),
    );
    expect(ofType(events, "session.completed")).toEqual([]);
  });

  it("an unknown record type is kept as unknown and reported", () => {
    const { events, issues } = decode(ev("snapshot", { part: {} }));
    expect(ofType(events, "unknown")).toHaveLength(1);
    expect(issues.map((i) => i.code)).toContain("unknown-record");
  });

  it("never throws on odd shapes", () => {
    const { events } = decode(
      ev("tool_use"),
      ev("text"),
      ev("step_finish"),
      ev("error"),
      ev("tool_use", { part: { state: { status: "completed", time: { start: 5, end: 1 } } } }),
    );
    for (const event of events) expect(validateEvent(event)).toEqual([]);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });
});

describe("opencode: synthetic fixtures", () => {
  const read = (name: string) => readFile(fixturePath("opencode", name), { dialect: opencode, repair: false });

  it("two-steps-usage-and-cost-per-step: steps are summed, success from the stop step", () => {
    const { events, summary } = read("two-steps-usage-and-cost-per-step.ndjson");
    expect(ofType(events, "turn.completed")).toHaveLength(2);
    expect(summary.usage).toEqual({
      inputTokens: 1100,
      outputTokens: 70,
      cacheReadTokens: 9000,
      cacheWriteTokens: 200,
      reasoningTokens: 10,
    });
    expect(summary.costUsd).toBeCloseTo(0.015, 10);
    expect(summary.turns).toBe(2);
    expect(summary.status).toBe("success");
    expect(summary.finalText).toBe("Two files: a.txt and b.txt.");
    expect(ofType(events, "tool.started")[0]).toMatchObject({ description: "List files", kind: "command" });
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ exitCode: 0, durationMs: 40, output: "a.txt\nb.txt\n" });
    expect(ofType(events, "usage")).toEqual([]);
  });

  it("tool-error-and-file-tools: todowrite plan, edit diff, failed read", () => {
    const { events, summary } = read("tool-error-and-file-tools.ndjson");
    expect(ofType(events, "plan.updated")[0]?.items).toEqual([
      { text: "Edit a.txt", status: "in_progress" },
      { text: "Run tests", status: "pending" },
    ]);
    expect(ofType(events, "file.changed")).toMatchObject([
      { toolCallId: "call_E", changes: [{ path: "/w/a.txt", kind: "update", diff: expect.stringContaining("+y") }] },
    ]);
    expect(summary.toolCalls.map((t) => [t.name, t.status])).toEqual([
      ["todowrite", "success"],
      ["edit", "success"],
      ["read", "error"],
    ]);
    expect(ofType(events, "tool.completed")[2]?.output).toBe("The user rejected permission to use this specific tool call.");
    expect(ofType(events, "message.completed").map((m) => m.kind)).toEqual(["reasoning", "text"]);
  });

  it("stderr-error-class-then-error-record: detected from the stderr line, error visible, status error", () => {
    const { events, summary, dialect } = readFile(fixturePath("opencode", "stderr-error-class-then-error-record.txt"), { repair: false });
    expect(dialect).toBe("opencode");
    expect(ofType(events, "text")).toHaveLength(2);
    expect(ofType(events, "error").map((e) => [e.scope, e.code, e.fatal])).toEqual([
      ["api", "ProviderModelNotFoundError", undefined],
      ["session", "UnknownError", true],
    ]);
    expect(summary.status).toBe("error");
    expect(summary.error).toBe("Model not found: nonexistent/nonexistent.");
  });

  it("permission-reject-text-line: the rejection is an error event, the session still succeeds", () => {
    const { events, summary } = read("permission-reject-text-line.txt");
    expect(ofType(events, "text")).toMatchObject([
      { position: "interleaved", text: "! permission requested: external_directory (/etc/*); auto-rejecting" },
    ]);
    expect(ofType(events, "error")).toMatchObject([{ scope: "tool", code: "permission_rejected", fatal: false }]);
    expect(summary.toolCalls).toEqual([{ id: "call_P", name: "read", status: "error" }]);
    expect(summary.status).toBe("success");
  });

  it("cut-mid-step: the open step is closed as failed and no session.completed is invented", () => {
    const { events, summary } = read("cut-mid-step.ndjson");
    expect(ofType(events, "turn.completed")).toMatchObject([{ turnId: "prt_001", status: "error" }]);
    expect(ofType(events, "session.completed")).toEqual([]);
    expect(summary.status).toBe("incomplete");
  });

  it("done-record-ends-session: a done record gives session.completed once", () => {
    const { events, summary } = read("done-record-ends-session.ndjson");
    expect(ofType(events, "session.completed")).toMatchObject([{ status: "success", details: { reason: "idle" } }]);
    expect(summary.costUsd).toBe(0.001);
  });
});

describeDialect(
  opencode,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("opencode", "two-steps-usage-and-cost-per-step.ndjson"), "utf8") },
);
describeDialect(
  opencode,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("opencode", "permission-reject-text-line.txt"), "utf8") },
);

describe.skipIf(!hasShared)("opencode: real captures", () => {
  const capture = (name: string) => readFile(sharedPath("fixtures", "opencode", name));

  it("takopi: bash step then text step, cost 0.001", () => {
    const { events, summary } = capture("takopi_opencode_stream_success.jsonl");
    expect(summary).toMatchObject({
      dialect: "opencode",
      agent: "opencode",
      sessionId: "ses_494719016ffe85dkDMj0FPRbHK",
      status: "success",
      error: null,
      turns: 2,
    });
    expect(summary.finalText).toBe("```\nhello\n```");
    expect(summary.toolCalls).toEqual([{ id: "r9bQWsNLvOrJGIOz", name: "bash", status: "success" }]);
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ output: "hello\n", exitCode: 0, durationMs: 50 });
    // 21772 + 671 input, 110 + 8 output, 0 + 21415 cache reads
    expect(summary.usage).toEqual({
      inputTokens: 22443,
      outputTokens: 118,
      cacheReadTokens: 21415,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
    expect(summary.costUsd).toBe(0.001);
  });

  it("ralph 1.18.14: two bash calls in one step, reasoning tokens", () => {
    const { summary } = capture("ralph_opencode_1.18.14_bash.jsonl");
    expect(summary.toolCalls).toEqual([
      { id: "call_1e0b5dd9fc3f4427a2ed4539", name: "bash", status: "success" },
      { id: "call_ea2f14080b8e4c20b3322fd1", name: "bash", status: "success" },
    ]);
    expect(summary.finalText?.startsWith("**1. `date` output:**")).toBe(true);
    expect(summary.usage).toEqual({
      inputTokens: 714,
      outputTokens: 161,
      cacheReadTokens: 14336,
      cacheWriteTokens: 0,
      reasoningTokens: 42,
    });
    expect(summary.costUsd).toBe(0);
    expect(summary.status).toBe("success");
  });

  it("sortie 1.14.25 simple turn", () => {
    const { summary } = capture("sortie_doc_v1.14.25_simple_turn.jsonl");
    expect(summary).toMatchObject({ status: "success", finalText: "\n\nHello", costUsd: 0, turns: 1 });
    expect(summary.usage).toEqual({ inputTokens: 14406, outputTokens: 21, cacheReadTokens: 1840, cacheWriteTokens: 0, reasoningTokens: 0 });
  });

  it("sortie 1.14.25 lone read tool_use: a tool call, no invented end", () => {
    const { summary } = capture("sortie_doc_v1.14.25_tool_use_read_author-elided.jsonl");
    expect(summary.toolCalls).toEqual([{ id: "call_function_1hg9s1exw5vv_1", name: "read", status: "success" }]);
    expect(summary.status).toBe("incomplete");
  });

  it("sortie 1.14.25 invalid model with stderr: detected, error visible, status error", () => {
    const { events, summary, dialect } = capture("sortie_doc_v1.14.25_invalid_model_error_with_stderr.txt");
    expect(dialect).toBe("opencode");
    expect(summary).toMatchObject({
      status: "error",
      error: "Model not found: nonexistent/nonexistent.",
      sessionId: "ses_236c4ba84ffeKJLGiwxfHIx8Au",
    });
    expect(ofType(events, "text").map((e) => e.text)).toEqual(["ProviderModelNotFoundError: ProviderModelNotFoundError", "...", "EXIT:0"]);
  });

  it("sortie 1.14.25 permission reject: detected from the text line, the rejection is visible", () => {
    const { events, summary, dialect } = capture("sortie_doc_v1.14.25_permission_reject_author-elided.txt");
    expect(dialect).toBe("opencode");
    expect(ofType(events, "error")).toMatchObject([
      { scope: "tool", code: "permission_rejected", message: "permission requested: external_directory (/etc/*); auto-rejected" },
    ]);
    // The author-elided tool_use line is invalid JSON: reported by the framer, not turned into text.
    expect(ofType(events, "text")).toHaveLength(1);
    expect(summary.issues.map((i) => i.code)).toEqual(["invalid-json"]);
    expect(summary.status).toBe("incomplete");
  });
});
