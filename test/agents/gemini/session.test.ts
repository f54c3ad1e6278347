import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { geminiSession } from "../../../src/agents/gemini/session.ts";
import { detectDialect } from "../../../src/dialects.ts";
import { validateEvent } from "../../../src/validation/validate-event.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord } from "../../helpers/records.ts";

const decode = (...lines: object[]) =>
  readAll([`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`], { dialect: geminiSession, repair: false });

const T = "2026-03-01T10:00:00.000Z";
const header = { sessionId: "s-1", projectHash: "ab12", startTime: T, lastUpdated: T, kind: "main" };
const tokens = { input: 100, output: 10, cached: 40, thoughts: 5, tool: 0, total: 115 };

describe("gemini-session: detection", () => {
  it.each([
    ["header", jsonRecord(header), true],
    ["gemini record", jsonRecord({ id: "g", timestamp: T, type: "gemini", content: "", thoughts: [], tokens }), true],
    ["$set alone", jsonRecord({ $set: { lastUpdated: T } }), false],
    ["a Claude session line (sessionId, no projectHash)", jsonRecord({ sessionId: "s", type: "user", uuid: "u", message: {} }), false],
    ["a Gemini stream init", jsonRecord({ type: "init", session_id: "s", model: "m" }), false],
  ])("%s", (_name, record, expected) => {
    expect(geminiSession.detect(record)).toBe(expected);
  });

  it("the registry picks gemini-session for the header", () => {
    expect(detectDialect(jsonRecord(header))?.name).toBe("gemini-session");
  });
});

describe("gemini-session: record shapes", () => {
  it.each([
    [
      "header → session.started",
      [header],
      [
        {
          type: "session.started",
          agent: "gemini-cli",
          sessionId: "s-1",
          time: T,
          details: { projectHash: "ab12", lastUpdated: T, kind: "main" },
        },
      ],
    ],
    [
      "$set → notice",
      [{ $set: { lastUpdated: T } }],
      [{ type: "notice", kind: "session_update", level: "info", details: { lastUpdated: T }, time: T }],
    ],
    [
      "user → complete user message with the record id",
      [{ id: "u-1", timestamp: T, type: "user", content: [{ text: "hi" }] }],
      [
        { type: "message.started", messageId: "u-1", role: "user" },
        { type: "message.completed", messageId: "u-1", role: "user", text: "hi" },
      ],
    ],
    [
      "gemini → message, thought and usage",
      [
        {
          id: "g-1",
          timestamp: T,
          type: "gemini",
          content: "ok",
          thoughts: [{ subject: "Plan", description: "Answer.", timestamp: T }],
          tokens,
          model: "gemini-2.5-pro",
        },
      ],
      [
        { type: "message.started", messageId: "g-1", role: "assistant", kind: "text" },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "g-1", text: "ok", position: 0 },
        { type: "message.started", messageId: "g-1#thought-1", kind: "reasoning" },
        { type: "message.completed", messageId: "g-1#thought-1", kind: "reasoning", text: "**Plan**\nAnswer." },
        { type: "message.completed", messageId: "g-1", text: "ok" },
        {
          type: "usage",
          scope: "delta",
          model: "gemini-2.5-pro",
          usage: { inputTokens: 100, outputTokens: 10, cacheReadTokens: 40, cacheWriteTokens: null, reasoningTokens: 5 },
        },
      ],
    ],
    [
      "info → notice",
      [{ id: "i", timestamp: T, type: "info", content: "switched model" }],
      [{ type: "notice", kind: "info", level: "info", text: "switched model" }],
    ],
    [
      "warning → notice",
      [{ id: "w", timestamp: T, type: "warning", content: "careful" }],
      [{ type: "notice", kind: "warning", level: "warning", text: "careful" }],
    ],
    [
      "error → error",
      [{ id: "e", timestamp: T, type: "error", content: "quota" }],
      [{ type: "error", scope: "session", message: "quota" }],
    ],
  ])("%s", (_name, lines, expected) => {
    const { events, issues } = decode(...lines);
    expect(events).toMatchObject(expected);
    expect(events.length).toBe(expected.length);
    expect(issues.filter((i) => i.severity !== "info")).toEqual([]);
  });

  it("an unknown record is kept as unknown and reported", () => {
    const { events, issues } = decode(header, { $push: { x: 1 } });
    expect(ofType(events, "unknown")).toHaveLength(1);
    expect(issues.map((i) => i.code)).toContain("unknown-record");
  });

  it("never throws on odd shapes", () => {
    const { events } = decode(
      { type: "gemini" },
      { type: "gemini", id: 3, toolCalls: [{}, { id: "t" }, 5] },
      { type: "user", content: 7 },
      { $set: {} },
    );
    for (const event of events) expect(validateEvent(event)).toEqual([]);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });
});

describe("gemini-session: synthetic fixtures", () => {
  const read = (name: string) => readFile(fixturePath("gemini-session", name), { dialect: geminiSession, repair: false });

  it("record-rewritten-with-tool-calls: a record written twice is counted once, its tool calls once", () => {
    const { events, summary } = read("record-rewritten-with-tool-calls.ndjson");
    expect(ofType(events, "usage").map((u) => u.usage.inputTokens)).toEqual([1000, 1200]);
    expect(summary.usage).toEqual({
      inputTokens: 2200,
      outputTokens: 50,
      cacheReadTokens: 900,
      cacheWriteTokens: null,
      reasoningTokens: 0,
    });
    expect(summary.toolCalls).toEqual([
      { id: "run_shell_command_1772359202000_0", name: "run_shell_command", status: "success" },
      { id: "replace_1772359202000_1", name: "replace", status: "success" },
      { id: "read_file_1772359202000_2", name: "read_file", status: "error" },
    ]);
    expect(ofType(events, "tool.completed").map((t) => t.output)).toEqual([
      "teh cat\n",
      "Successfully modified file: a.txt (1 replacements).",
      "File not found: b.txt",
    ]);
    expect(ofType(events, "file.changed")).toMatchObject([
      { toolCallId: "replace_1772359202000_1", changes: [{ path: "a.txt", kind: "update", diff: expect.stringContaining("+the cat") }] },
    ]);
    expect(
      ofType(events, "message.completed")
        .filter((m) => m.role === "assistant")
        .map((m) => m.text),
    ).toEqual(["Fixed: teh → the."]);
    expect(summary.finalText).toBe("Fixed: teh → the.");
    expect(summary.status).toBe("ended");
    expect(ofType(events, "notice")).toHaveLength(3);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });

  it("rewrite-extends-text-and-thoughts: last write wins for text, thoughts and tokens", () => {
    const { events, summary } = read("rewrite-extends-text-and-thoughts.ndjson");
    const g1 = events.filter((e) => "messageId" in e && e.messageId === "g-1");
    expect(g1.map((e) => (e.type === "message.delta" ? e.text : e.type))).toEqual(["message.started", "Hel", "lo!", "message.completed"]);
    expect(ofType(events, "message.completed").map((m) => [m.messageId, m.kind, m.text])).toEqual([
      ["g-1#thought-1", "reasoning", "**Greeting**\nSay hello."],
      ["g-1#thought-2", "reasoning", "Keep it short."],
      ["g-1", "text", "Hello!"],
      ["g-2", "text", "Final wording"],
    ]);
    expect(ofType(events, "usage").map((u) => u.usage)).toEqual([
      { inputTokens: 10, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: null, reasoningTokens: 5 },
      { inputTokens: 20, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: null, reasoningTokens: 0 },
    ]);
    expect(summary.finalText).toBe("Final wording");
    // The close events point at the record's last write.
    expect(ofType(events, "usage").map((u) => u.source?.line)).toEqual([3, 5]);
  });

  it("user-twice-info-warning-error: one user message, notes as notices and an error, unknown kept", () => {
    const { events, issues } = read("user-twice-info-warning-error.ndjson");
    expect(ofType(events, "message.completed").map((m) => m.text)).toEqual(["hello"]);
    expect(ofType(events, "notice").map((n) => [n.kind, n.level])).toEqual([
      ["info", "info"],
      ["warning", "warning"],
    ]);
    expect(ofType(events, "error")).toMatchObject([{ message: "[API Error: Quota exceeded]" }]);
    expect(ofType(events, "unknown")).toHaveLength(1);
    expect(issues.filter((i) => i.code === "unknown-record")).toHaveLength(1);
  });
});

describe("gemini-session: Gemini CLI 0.61.0 chats of our offline runs (test/fixtures/gemini-session/README.md)", () => {
  it.each(["0.61-text.jsonl", "0.61-tool-call.jsonl", "0.61-thinking.jsonl", "0.61-api-error-http.jsonl"])(
    "%s: gemini-session, valid events, no unknown, no issue",
    (name) => {
      const { dialect, events, issues } = readFile(fixturePath("gemini-session", name), { dialect: "auto" });
      expect(dialect).toBe("gemini-session");
      expect(issues).toEqual([]);
      expect(ofType(events, "unknown")).toEqual([]);
      for (const event of events) expect(validateEvent(event)).toEqual([]);
      expect(checkSequence(events)).toEqual([]);
    },
  );

  it("the tool results sent back (a user record of functionResponse parts) are no user message", () => {
    const { events, summary } = readFile(fixturePath("gemini-session", "0.61-tool-call.jsonl"), { dialect: "auto" });
    const users = ofType(events, "message.completed").filter((message) => message.role === "user");
    expect(users.map((message) => message.text)).toEqual(["Follow the scripted scenario."]);
    const done = ofType(events, "tool.completed");
    expect(done).toHaveLength(1);
    expect(done[0]).toMatchObject({ name: "run_shell_command", isError: false });
    expect(done[0]?.output).toContain("Output: scripted-output");
    expect(summary.usage).toMatchObject({ inputTokens: 350, outputTokens: 50, cacheReadTokens: 200 });
    expect(summary.finalText).toBe("The command printed scripted-output.");
  });

  it("a functionResponse whose call was never completed by a rewrite completes it", () => {
    const lines = readFileSync(fixturePath("gemini-session", "0.61-tool-call.jsonl"), "utf8").trim().split("\n");
    // Drop the rewrite that carries toolCalls, keeping a first write that names the call.
    const first = JSON.parse(lines.find((line) => line.includes('"type":"gemini"')) ?? "{}") as Record<string, unknown>;
    const call = { id: "run_shell_command__call_scripted_0_0", name: "run_shell_command", args: { command: "echo scripted-output" } };
    const kept = lines
      .filter((line) => !line.includes('"toolCalls"'))
      .map((line) => (line.includes(`"id":"${String(first.id)}"`) ? JSON.stringify({ ...first, toolCalls: [call] }) : line));
    const { events } = readAll([`${kept.join("\n")}\n`], { dialect: geminiSession });
    expect(ofType(events, "tool.completed").map((tool) => [tool.toolCallId, tool.isError])).toEqual([[call.id, false]]);
  });
});

describeDialect(
  geminiSession,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("gemini-session", "record-rewritten-with-tool-calls.ndjson"), "utf8") },
);

describe.skipIf(!hasShared)("gemini-session: real captures", () => {
  it("switchboard 0.42.0: $set lines, a gemini record written twice, two tools, tokens counted once", () => {
    const { events, summary, dialect } = readFile(
      sharedPath("fixtures", "gemini-session", "switchboard_0.42.0_tool_use_session_with_set_records.jsonl"),
    );
    expect(dialect).toBe("gemini-session");
    expect(summary).toMatchObject({
      agent: "gemini-cli",
      sessionId: "00000000-0000-4000-8000-000000000002",
      status: "ended",
      error: null,
      costUsd: null,
    });
    expect(summary.finalText).toBe("SWITCHBOARD_GEMINI_PROBE_TOOL_5F8A21");
    expect(summary.toolCalls).toEqual([
      { id: "update_topic_1779056026792_0", name: "update_topic", status: "success" },
      { id: "read_file_1779056026793_1", name: "read_file", status: "success" },
    ]);
    // The real read_file output, which the stream-json capture of the same run does not have.
    expect(ofType(events, "tool.completed")[1]?.output).toBe("SWITCHBOARD_GEMINI_PROBE_TOOL_5F8A21\n");
    // 10191 + 10334 input, 83 + 17 output, 0 + 7559 cached: equal to the stream-json result.stats of the same run.
    expect(summary.usage).toEqual({
      inputTokens: 20525,
      outputTokens: 100,
      cacheReadTokens: 7559,
      cacheWriteTokens: null,
      reasoningTokens: 0,
    });
    expect(ofType(events, "usage").map((u) => u.model)).toEqual(["gemini-3-flash-preview", "gemini-3-flash-preview"]);
    expect(ofType(events, "notice")).toHaveLength(3);
    expect(ofType(events, "unknown")).toEqual([]);
  });
});
