import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { detectDialect } from "../../../src/dialects.ts";
import { witness } from "../../../src/formats/witness/decode.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll } from "../../helpers/read.ts";
import { captureRecords, jsonRecord } from "../../helpers/records.ts";
import { hasShared } from "../../helpers/shared.ts";
import { fixturePath } from "../../helpers/fixtures.ts";

/** Decodes lines with this dialect and no repair stage, so the decoder's own output is checked. */
const decode = (...lines: object[]) =>
  readAll([`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`], { dialect: witness, repair: false });
const shapes = (events: AgentEvent[]) => events.map(({ v, seq, source, ...rest }) => rest);

describe("witness: detection", () => {
  it.each([
    ["analysis", { type: "analysis", content: "x", brain: "path1" }, true],
    ["final with null brain and meta", { type: "final", content: "", brain: null, meta: null }, true],
    ["metric", { type: "metric", content: "Flame", meta: { k: 1 } }, true],
    ["reserved tool_call", { type: "tool_call", content: "ls" }, true],
    ["a Gemini message", { type: "message", role: "assistant", content: "hi", delta: true }, false],
    ["a Gemini error", { type: "error", severity: "error", message: "bad", timestamp: "2026-01-01T00:00:00Z" }, false],
    ["an error with an extra field", { type: "error", content: "bad", timestamp: "2026-01-01T00:00:00Z" }, false],
    ["content that is not a string", { type: "final", content: 1 }, false],
    ["meta that is an array", { type: "final", content: "x", meta: [] }, false],
    ["an unknown type", { type: "plan", content: "x" }, false],
  ])("%s", (_name, value, expected) => {
    expect(witness.detect(jsonRecord(value))).toBe(expected);
  });

  it("the registry picks witness for a Witness line", () => {
    expect(detectDialect(jsonRecord({ type: "final", content: "x" }))?.name).toBe("witness");
  });

  it.skipIf(!hasShared)("claims no record of any real capture", () => {
    const claimed = captureRecords().filter(({ record }) => witness.detect(record));
    expect(claimed.map(({ file, record }) => `${file}:${record.line}`)).toEqual([]);
  });
});

describe("witness: record shapes", () => {
  it.each([
    [
      "analysis → a complete reasoning message with its brain as channel",
      [{ type: "analysis", content: "hmm", brain: "path1" }],
      [
        { type: "message.started", messageId: "analysis-1", role: "assistant", kind: "reasoning", channel: "path1" },
        { type: "message.completed", messageId: "analysis-1", role: "assistant", kind: "reasoning", text: "hmm", channel: "path1" },
      ],
    ],
    [
      "final → a complete text message",
      [{ type: "final", content: "done" }],
      [
        { type: "message.started", messageId: "final-1", role: "assistant", kind: "text" },
        { type: "message.completed", messageId: "final-1", role: "assistant", kind: "text", text: "done" },
      ],
    ],
    [
      "metric → metric with meta as values",
      [{ type: "metric", content: "Flame state", meta: { k: 0.5 } }],
      [{ type: "metric", name: "Flame state", text: "Flame state", values: { k: 0.5 } }],
    ],
    [
      "metric usage → usage",
      [{ type: "metric", content: "usage", meta: { input_tokens: 3, output_tokens: 4, scope: "delta" } }],
      [
        {
          type: "usage",
          usage: { inputTokens: 3, outputTokens: 4, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
          scope: "delta",
        },
      ],
    ],
    [
      "tool_call and tool_result → a tool call; a non-zero exit code is an error",
      [
        { type: "tool_call", content: "shell", meta: { tool_call_id: "c1", input: { command: "false" } } },
        { type: "tool_result", content: "", meta: { tool_call_id: "c1", exit_code: 1 } },
      ],
      [
        { type: "tool.started", toolCallId: "c1", name: "shell", input: { command: "false" } },
        { type: "tool.completed", toolCallId: "c1", name: "shell", output: "", exitCode: 1, isError: true },
      ],
    ],
    [
      "a tool_result with no id pairs with the last open call",
      [
        { type: "tool_call", content: "read" },
        { type: "tool_result", content: "text" },
      ],
      [
        { type: "tool.started", toolCallId: "tool-1", name: "read" },
        { type: "tool.completed", toolCallId: "tool-1", name: "read", output: "text", isError: false },
      ],
    ],
    [
      "a tool_result with no call starts one",
      [{ type: "tool_result", content: "x", meta: { tool_call_id: "c9" } }],
      [
        { type: "tool.started", toolCallId: "c9", name: "unknown" },
        { type: "tool.completed", toolCallId: "c9", name: "unknown", output: "x", isError: false },
      ],
    ],
    [
      "error → error (scope session unless meta says)",
      [{ type: "error", content: "boom" }],
      [{ type: "error", scope: "session", message: "boom" }],
    ],
    [
      "error with a scope",
      [{ type: "error", content: "slow", meta: { scope: "api", code: "overloaded" } }],
      [{ type: "error", scope: "api", message: "slow", code: "overloaded" }],
    ],
    [
      "debug → notice",
      [{ type: "debug", content: "cache warm", meta: { n: 1 } }],
      [{ type: "notice", kind: "debug", level: "info", text: "cache warm", details: { n: 1 } }],
    ],
    [
      "debug carrying an agentstream event → that event",
      [{ type: "debug", content: "session started", meta: { event: { type: "session.started", agent: "codex", sessionId: "s1" } } }],
      [{ type: "session.started", agent: "codex", sessionId: "s1" }],
    ],
    [
      "debug carrying a malformed event → a notice, never a bad event",
      [{ type: "debug", content: "x", meta: { event: { type: "session.completed", status: "maybe" } } }],
      [{ type: "notice", kind: "debug", level: "info", text: "x", details: { event: { type: "session.completed", status: "maybe" } } }],
    ],
  ])("%s", (_name, lines, expected) => {
    expect(shapes(decode(...lines).events)).toEqual(expected);
  });

  it("an unknown type is kept verbatim and reported", () => {
    const { events, issues } = decode({ type: "final", content: "a" }, { type: "plan", content: "b" });
    expect(events.at(-1)).toMatchObject({ type: "unknown", raw: { type: "plan", content: "b" } });
    expect(issues.map((i) => i.code)).toEqual(["unknown-record"]);
  });

  it("Unicode content stays as written (no truncation, no escapes)", () => {
    const long = "Xin chào 👋 ".repeat(1000);
    const { events } = decode({ type: "final", content: long });
    expect(events.find((e) => e.type === "message.completed")).toMatchObject({ text: long });
  });
});

describeDialect(witness, { describe, it, expect }, { sample: readFileSync(fixturePath("witness", "reserved-types.ndjson"), "utf8") });
describeDialect(witness, { describe, it, expect }, { sample: readFileSync(fixturePath("witness", "dual-brain.ndjson"), "utf8") });

describe("witness: fixtures", () => {
  it("dual-brain: analysis, metric and answer in order, brains kept", () => {
    const { events, dialect } = readAll([readFileSync(fixturePath("witness", "dual-brain.ndjson"))]);
    expect(dialect).toBe("witness");
    const kinds = events
      .filter((e) => e.type === "message.completed" || e.type === "metric")
      .map((e) => (e.type === "metric" ? `metric ${e.values.state}` : `${e.kind} ${e.channel}`));
    expect(kinds).toEqual(["reasoning path1", "metric sync", "text path2"]);
  });

  it("unified-empty-and-no-brain: empty content and missing brain are accepted", () => {
    const { events, issues } = readAll([readFileSync(fixturePath("witness", "unified-empty-and-no-brain.ndjson"))]);
    expect(issues.filter((i) => i.severity !== "info")).toEqual([]);
    expect(events.filter((e) => e.type === "message.completed").map((e) => (e.type === "message.completed" ? e.text : ""))).toEqual([
      "",
      "Answer without a brain id",
      "line one\nline two",
    ]);
  });

  it("reserved-types: two tool calls, an error and a notice", () => {
    const { summary } = readAll([readFileSync(fixturePath("witness", "reserved-types.ndjson"))]);
    expect(summary.toolCalls).toEqual([
      { id: "call-1", name: "shell", status: "success" },
      { id: "tool-1", name: "read_file", status: "error" },
    ]);
    expect(summary.finalText).toBe("There are two entries: README.md and src.");
  });

  it("unknown-type: the unknown line sits between the two answers", () => {
    const { events } = readAll([readFileSync(fixturePath("witness", "unknown-type.ndjson"))]);
    expect(events.map((e) => e.type).filter((t) => t === "message.completed" || t === "unknown")).toEqual([
      "message.completed",
      "unknown",
      "message.completed",
    ]);
  });
});

describe("witness: the spec's rendering rules, in what the reader gives", () => {
  it("a line that is not valid JSON is a text event with the line as it is (the spec's fallback mode)", () => {
    const input =
      '{"type":"analysis","content":"hi"}\n{"type": "final", "content": "cut\nThis is not JSON\n{"type":"final","content":"ok"}\n';
    const { events, issues } = readAll([input], { dialect: witness });
    expect(events.filter((e) => e.type === "text").map((e) => (e.type === "text" ? [e.text, e.position] : []))).toEqual([
      ['{"type": "final", "content": "cut', "interleaved"],
      ["This is not JSON", "interleaved"],
    ]);
    // The broken JSON line is still said (it is not a Witness line); it is no longer dropped.
    expect(issues.filter((i) => i.severity !== "info").map((i) => [i.line, i.code])).toEqual([[2, "invalid-json"]]);
  });

  it("a type the spec does not list keeps its record, gives its content as text, and is an info issue", () => {
    const record = { type: "plan", content: "1. read 2. write", brain: "path1", meta: { score: 0.9 } };
    const { events, issues } = readAll([`${JSON.stringify(record)}\n`], { dialect: witness });
    expect(shapes(events)).toEqual([
      { type: "unknown", raw: record, reason: 'unknown witness event type "plan"', text: "1. read 2. write" },
    ]);
    expect(issues).toEqual([expect.objectContaining({ code: "unknown-record", severity: "info", line: 1 })]);
  });
});
