import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cursor } from "../../../src/agents/cursor/decode.ts";
import { detectDialect } from "../../../src/dialects.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { createNdjsonParser, type InputRecord } from "../../../src/framing/ndjson/create-ndjson-parser.ts";
import { validateEvent } from "../../../src/validation/validate-event.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord } from "../../helpers/records.ts";

const decode = (...lines: object[]) => readAll([`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`], { dialect: cursor, repair: false });

const S = "sess-1";
const init = { type: "system", subtype: "init", apiKeySource: "login", cwd: "/w", session_id: S, model: "Auto", permissionMode: "default" };
const assistant = (text: string, extra: object = {}) => ({
  type: "assistant",
  message: { role: "assistant", content: [{ type: "text", text }] },
  session_id: S,
  ...extra,
});

describe("cursor: detection", () => {
  it.each([
    ["init", jsonRecord(init), true],
    ["init with apiKeySource env", jsonRecord({ ...init, apiKeySource: "env" }), true],
    [
      "tool_call",
      jsonRecord({ type: "tool_call", subtype: "started", call_id: "c\nf", tool_call: { shellToolCall: { args: {} } }, session_id: S }),
      true,
    ],
    ["thinking delta", jsonRecord({ type: "thinking", subtype: "delta", text: "x", session_id: S, timestamp_ms: 1 }), true],
    ["assistant with model_call_id", jsonRecord(assistant("x", { model_call_id: "m-0", timestamp_ms: 1 })), true],
    [
      "a Claude init (apiKeySource none, tools)",
      jsonRecord({ ...init, apiKeySource: "none", tools: ["Bash"], claude_code_version: "2.1.276", uuid: "u" }),
      false,
    ],
    ["a Claude-looking init with a Cursor key source but a tools list", jsonRecord({ ...init, tools: [] }), false],
    ["a plain assistant (Claude-like)", jsonRecord(assistant("x")), false],
    ["a result", jsonRecord({ type: "result", subtype: "success", result: "x", session_id: S }), false],
  ])("%s", (_name, record, expected) => {
    expect(cursor.detect(record)).toBe(expected);
  });

  it("the registry picks cursor for its init line", () => {
    expect(detectDialect(jsonRecord(init))?.name).toBe("cursor");
  });

  describe.skipIf(!hasShared)("never claims a Claude Code, Amp or Qwen Code capture", () => {
    // The describe body runs at collection even when skipped: read ../shared only when it is there.
    const files = (hasShared ? ["claude", "amp", "qwen"] : []).flatMap((folder) => {
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? walk(join(dir, d.name)) : [join(dir, d.name)]));
      return walk(sharedPath("fixtures", folder));
    });
    it.each(files.map((f) => [f.split("/fixtures/")[1] as string, f]))("%s", (_name, path) => {
      const records: InputRecord[] = [];
      const parser = createNdjsonParser({ onRecord: (r) => records.push(r) });
      parser.feed(readFileSync(path));
      parser.end();
      expect(records.filter((r) => cursor.detect(r))).toEqual([]);
    });
  });
});

describe("cursor: record shapes", () => {
  it.each([
    [
      "init → session.started",
      [init],
      [
        {
          type: "session.started",
          agent: "cursor-agent",
          model: "Auto",
          cwd: "/w",
          sessionId: S,
          permissionMode: "default",
          details: { apiKeySource: "login" },
        },
      ],
    ],
    [
      "user → complete user message",
      [{ type: "user", message: { role: "user", content: [{ type: "text", text: "hi" }] }, session_id: S }],
      [
        { type: "message.started", role: "user" },
        { type: "message.completed", role: "user", text: "hi" },
      ],
    ],
    [
      "assistant segment (model_call_id) → whole message",
      [assistant("Segment.", { model_call_id: "m-0", timestamp_ms: 1770000000000 })],
      [
        { type: "message.started", role: "assistant", kind: "text", time: "2026-02-02T02:40:00.000Z" },
        { type: "message.completed", text: "Segment." },
      ],
    ],
    [
      "partial deltas then the recap → one message, completed with the recap",
      [assistant("A", { timestamp_ms: 1 }), assistant("B", { timestamp_ms: 2 }), assistant("AB")],
      [
        { type: "message.started", messageId: "assistant-1" },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "assistant-1", text: "A", position: 0 },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "assistant-1", text: "B", position: 1 },
        { type: "message.completed", messageId: "assistant-1", text: "AB" },
      ],
    ],
    [
      "thinking deltas then completed → one reasoning message",
      [
        { type: "thinking", subtype: "delta", text: "th", session_id: S, timestamp_ms: 1 },
        { type: "thinking", subtype: "delta", text: "ink", session_id: S, timestamp_ms: 2 },
        { type: "thinking", subtype: "completed", session_id: S, timestamp_ms: 3 },
      ],
      [
        { type: "message.started", messageId: "thinking-1", kind: "reasoning" },
        { type: "message.delta", role: "assistant", kind: "reasoning", text: "th" },
        { type: "message.delta", role: "assistant", kind: "reasoning", text: "ink" },
        { type: "message.completed", messageId: "thinking-1", kind: "reasoning", text: "think" },
      ],
    ],
    [
      "result with usage → session.completed",
      [
        {
          type: "result",
          subtype: "success",
          duration_ms: 10,
          duration_api_ms: 9,
          is_error: false,
          result: "ok",
          session_id: S,
          request_id: "r",
          usage: { inputTokens: 5, outputTokens: 6, cacheReadTokens: 7, cacheWriteTokens: 8 },
        },
      ],
      [
        {
          type: "session.completed",
          status: "success",
          finalText: "ok",
          durationMs: 10,
          usage: { inputTokens: 5, outputTokens: 6, cacheReadTokens: 7, cacheWriteTokens: 8, reasoningTokens: null },
          details: { durationApiMs: 9, requestId: "r", subtype: "success" },
        },
      ],
    ],
  ])("%s", (_name, lines, expected) => {
    const { events, issues } = decode(...lines);
    expect(events).toMatchObject(expected);
    expect(events.length).toBe(expected.length);
    expect(issues.filter((i) => i.severity !== "info")).toEqual([]);
  });

  it("an unknown record type is kept as unknown and reported", () => {
    const { events, issues } = decode(init, { type: "interaction_query", subtype: "x", session_id: S });
    expect(ofType(events, "unknown")).toHaveLength(1);
    expect(issues.map((i) => i.code)).toContain("unknown-record");
  });

  it("never throws on odd shapes", () => {
    const { events } = decode(
      { type: "tool_call", subtype: "completed" },
      { type: "tool_call", subtype: "started", call_id: "x", tool_call: { shellToolCall: 3 } },
      { type: "assistant" },
      { type: "thinking" },
      { type: "result" },
      { type: "system" },
    );
    for (const event of events) expect(validateEvent(event)).toEqual([]);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });
});

describe("cursor: synthetic fixtures", () => {
  const read = (name: string) => readFile(fixturePath("cursor", name), { dialect: cursor, repair: false });
  const assistantMessages = (events: AgentEvent[]) =>
    ofType(events, "message.completed").filter((m) => m.role === "assistant" && m.kind === "text");

  it("partial-output-deltas-then-recap: the recap completes the deltas' message (same id), usage from result", () => {
    const { events, summary } = read("partial-output-deltas-then-recap.ndjson");
    const deltas = ofType(events, "message.delta");
    expect(deltas.map((d) => d.text)).toEqual(["Hel", "lo the", "re!"]);
    expect(assistantMessages(events)).toMatchObject([{ messageId: deltas[0]?.messageId, text: "Hello there!" }]);
    expect(summary.usage).toEqual({
      inputTokens: 1200,
      outputTokens: 80,
      cacheReadTokens: 900,
      cacheWriteTokens: 30,
      reasoningTokens: null,
    });
    expect(summary.finalText).toBe("Hello there!");
  });

  it("partial-output-deltas-then-recap through the repair stage: the text appears once", () => {
    const { events } = readFile(fixturePath("cursor", "partial-output-deltas-then-recap.ndjson"));
    const completed = assistantMessages(events);
    expect(completed.map((m) => m.text)).toEqual(["Hello there!"]);
    expect(
      ofType(events, "message.delta")
        .map((d) => d.text)
        .join(""),
    ).toBe("Hello there!");
  });

  it("partial-output-flush-before-tool-call: each settled copy completes its own segment", () => {
    const { events, summary } = read("partial-output-flush-before-tool-call.ndjson");
    expect(assistantMessages(events).map((m) => [m.messageId, m.text])).toEqual([
      ["assistant-1", "Let me count."],
      ["assistant-2", "There are 3 files."],
    ]);
    expect(summary.toolCalls).toEqual([{ id: "call_Abc123\nfc_0def456", name: "shell", status: "success" }]);
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ output: "3\n", exitCode: 0, durationMs: 12 });
    expect(summary.finalText).toBe("Let me count.There are 3 files.");
  });

  it("settled-copy-after-tool-call: a segment stays open across the tool call until its settled copy", () => {
    const { events } = read("settled-copy-after-tool-call.ndjson");
    expect(assistantMessages(events).map((m) => [m.messageId, m.text])).toEqual([
      ["assistant-1", "Running now."],
      ["assistant-2", "Done."],
    ]);
    expect(ofType(events, "message.delta").map((d) => d.messageId)).toEqual(["assistant-1", "assistant-1", "assistant-2", "assistant-2"]);
    expect(checkSequence(events).filter((i) => i.severity !== "info")).toEqual([]);
  });

  it("cumulative-final-recap: a recap of the whole reply completes the last segment with its own part", () => {
    const { events } = read("cumulative-final-recap.ndjson");
    expect(assistantMessages(events).map((m) => m.text)).toEqual(["Part one. ", "Part two."]);
  });

  it("segments-without-partial-output: whole segments, thinking, escaped-newline call id", () => {
    const { events, summary } = read("segments-without-partial-output.ndjson");
    expect(ofType(events, "message.delta").filter((d) => d.messageId.startsWith("assistant"))).toEqual([]);
    expect(assistantMessages(events).map((m) => m.text)).toEqual(["I will sleep twice.", "Both sleeps finished."]);
    expect(
      ofType(events, "message.completed")
        .filter((m) => m.kind === "reasoning")
        .map((m) => m.text),
    ).toEqual(["**Planning**\n\nTwo sleeps.", ""]);
    expect(summary.toolCalls).toEqual([{ id: "call_Abc123\nfc_0def456", name: "shell", status: "success" }]);
    expect(summary.finalText).toBe("I will sleep twice.Both sleeps finished.");
    expect(summary.usage.inputTokens).toBeNull();
  });

  it("tool-results-edit-write-rejected-mcp-todos: tool kinds, errors, file changes and the plan", () => {
    const { events, summary } = read("tool-results-edit-write-rejected-mcp-todos.ndjson");
    expect(summary.toolCalls.map((t) => [t.name, t.status])).toEqual([
      ["updateTodos", "success"],
      ["edit", "success"],
      ["write", "success"],
      ["shell", "error"],
      ["shell", "error"],
      ["search_issues", "error"],
    ]);
    expect(ofType(events, "tool.started").map((t) => t.kind)).toEqual(["todo", "file_edit", "file_write", "command", "command", "mcp"]);
    expect(ofType(events, "tool.started")[5]).toMatchObject({ server: "github" });
    expect(ofType(events, "plan.updated")[0]?.items).toEqual([
      { text: "Edit a", status: "in_progress" },
      { text: "Write b", status: "pending" },
      { text: "Old", status: "completed" },
    ]);
    expect(ofType(events, "file.changed").map((f) => f.changes[0])).toEqual([
      { path: "/work/app/a.txt", kind: "update", diff: "-old\n+new\n" },
      { path: "/work/app/b.txt", kind: "update", diff: "bee\n" },
    ]);
    const completed = ofType(events, "tool.completed");
    expect(completed[3]).toMatchObject({ isError: true, output: "Command blocked by the deny list" });
    expect(completed[4]).toMatchObject({ isError: true, exitCode: 1, output: "boom\n" });
    expect(completed[5]).toMatchObject({ isError: true, output: "MCP server github is not connected" });
  });

  it("result-is-error: status error with the result text as the error", () => {
    const { summary } = read("result-is-error.ndjson");
    expect(summary).toMatchObject({ status: "error", error: "Model request failed: quota exceeded", finalText: null });
  });

  it("subagent-session: a foreign session_id becomes a child session linked to the task call", () => {
    const { events, summary } = read("subagent-session.ndjson");
    const child = ofType(events, "session.started").find((s) => s.parentSessionId !== undefined);
    expect(child).toMatchObject({
      sessionId: "5ub5e551-0000-4000-8000-000000000001",
      parentSessionId: "c0ffee00-1111-4222-8333-444455556666",
      parentToolCallId: "call_task",
    });
    expect(summary.subagents).toBe(1);
    expect(summary.finalText).toBe("The subagent says the logs are clean.");
    expect(summary.toolCalls).toEqual([{ id: "call_task", name: "task", status: "success" }]);
    expect(ofType(events, "tool.started")[0]?.kind).toBe("subagent");
    expect(summary.status).toBe("success");
  });
});

describeDialect(
  cursor,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("cursor", "partial-output-flush-before-tool-call.ndjson"), "utf8") },
);

describe.skipIf(!hasShared)("cursor: real captures", () => {
  const capture = (name: string) => readFile(sharedPath("fixtures", "cursor", name));

  it("direct_sleep_thinking_deltas: 210 thinking deltas, two shell calls, no usage", () => {
    const { events, summary } = capture("cursorhack_2026.01.28_direct_sleep_thinking_deltas.jsonl");
    expect(summary).toMatchObject({
      dialect: "cursor",
      agent: "cursor-agent",
      model: "Auto",
      sessionId: "d43015b9-0707-43f4-b2df-0bcea7891654",
      status: "success",
      error: null,
      subagents: 0,
    });
    expect(summary.toolCalls).toEqual([
      { id: "call_PFAupCWibROFKbdASSdiHCoi\nfc_0d2609f619ccdca801698ca0a51c6481a0aaa34fcf724631a9", name: "shell", status: "success" },
      { id: "call_pupgFL8Ql8xfqbnWylZPfmd1\nfc_0d2609f619ccdca801698ca0ace0ec81a0974879c9821e9992", name: "shell", status: "success" },
    ]);
    expect(ofType(events, "tool.completed").map((t) => t.durationMs)).toEqual([5399, 3159]);
    const reasoning = ofType(events, "message.completed").filter((m) => m.kind === "reasoning");
    expect(reasoning).toHaveLength(1);
    expect(reasoning[0]?.text.startsWith("**Planning")).toBe(true);
    expect(
      ofType(events, "message.completed")
        .filter((m) => m.role === "assistant" && m.kind === "text")
        .map((m) => m.text),
    ).toEqual([
      "I’ll run `sleep 5` in bash, wait for it to finish, then run `sleep 3` in bash.",
      "Both commands have finished running: first `sleep 5`, then `sleep 3`, with no other actions taken.",
    ]);
    // result.result is the concatenation of both segments.
    expect(summary.finalText).toBe(
      "I’ll run `sleep 5` in bash, wait for it to finish, then run `sleep 3` in bash.Both commands have finished running: first `sleep 5`, then `sleep 3`, with no other actions taken.",
    );
    expect(summary.usage).toEqual({
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      reasoningTokens: null,
    });
    expect(summary.costUsd).toBeNull();
    expect(summary.durationMs).toBe(21509);
    expect(ofType(events, "unknown")).toEqual([]);
  });

  it("subagent_sleep: one shell call, final text done", () => {
    const { summary } = capture("cursorhack_2026.01.28_subagent_sleep.jsonl");
    expect(summary).toMatchObject({ status: "success", finalText: "done", durationMs: 16460, subagents: 0, costUsd: null });
    expect(summary.toolCalls).toEqual([
      { id: "call_TmghxdonG3nRdxdHLvDahJLL\nfc_08e010c756ec902501698ca0bae6788193b99ae13f1f6262c1", name: "shell", status: "success" },
    ]);
  });

  it("subagent_sleep_v2: thinking deltas, one shell call", () => {
    const { events, summary } = capture("cursorhack_2026.01.28_subagent_sleep_v2.jsonl");
    expect(summary).toMatchObject({
      status: "success",
      sessionId: "a41193d9-b74e-4867-bf36-35e1c76ba3ef",
      durationMs: 25173,
      subagents: 0,
    });
    expect(summary.finalText).toBe("I'll run the `sleep 10` command via the shell, wait for it to finish, then reply.complete");
    expect(summary.toolCalls.map((t) => [t.name, t.status])).toEqual([["shell", "success"]]);
    expect(ofType(events, "message.completed").filter((m) => m.kind === "reasoning")).toHaveLength(1);
    expect(ofType(events, "unknown")).toEqual([]);
  });
});
