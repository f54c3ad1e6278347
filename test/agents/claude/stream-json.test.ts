/**
 * The claude dialect (Claude Code stream-json): record shapes, our synthetic fixtures (one per
 * quirk), detection against the other agents' captures, the conformance suite, and the summary
 * facts of every real capture in ../shared/fixtures/claude, checked against values read from them.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claude } from "../../../src/agents/claude/stream-json.ts";
import { detectDialect } from "../../../src/dialects.ts";
import type { AgentEvent, AgentEventType, EventOf, JsonObject } from "../../../src/model/events.ts";
import { validateEvent } from "../../../src/validation/validate-event.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import type { InputRecord } from "../../../src/framing/ndjson/create-ndjson-parser.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile, type ReadResult } from "../../helpers/read.ts";
import { hasShared, noteSharedMissing, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord } from "../../helpers/records.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { run } from "../../../src/cli/run.ts";

const S = "5e55a0b1-0000-4000-8000-000000000001";
/** Our fixtures read without the repair stage, so the decoder's own output is what is checked. */
const readFixture = (name: string): ReadResult => readFile(fixturePath("claude", name), { repair: false });
const lines = (...records: object[]): string => `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
const decode = (...records: object[]): ReadResult => readAll([lines(...records)], { dialect: "claude", repair: false });
/** A framed JSON record, as the NDJSON layer hands it to `detect`. */
const only = <T extends AgentEventType>(events: readonly AgentEvent[], type: T): EventOf<T> => {
  const found = ofType(events, type);
  expect(found).toHaveLength(1);
  return found[0] as EventOf<T>;
};
const init = {
  type: "system",
  subtype: "init",
  session_id: S,
  cwd: "/w",
  model: "claude-sonnet-4-5",
  tools: ["Bash"],
  mcp_servers: [],
  permissionMode: "default",
  claude_code_version: "2.1.220",
  uuid: "u0",
};

describe("claude: record shapes", () => {
  const cases: [string, object, (events: AgentEvent[]) => void][] = [
    [
      "system/status → notice status",
      { type: "system", subtype: "status", status: "requesting", session_id: S, uuid: "u" },
      (e) => expect(only(e, "notice")).toMatchObject({ kind: "status", text: "status: requesting" }),
    ],
    [
      "system/api_retry → retry",
      {
        type: "system",
        subtype: "api_retry",
        attempt: 2,
        max_retries: 10,
        retry_delay_ms: 2432,
        error_status: 529,
        error: "overloaded_error",
        session_id: S,
        uuid: "u",
      },
      (e) => expect(only(e, "retry")).toMatchObject({ attempt: 2, maxAttempts: 10, delayMs: 2432, error: "529 overloaded_error" }),
    ],
    [
      "system/thinking_tokens → metric",
      { type: "system", subtype: "thinking_tokens", estimated_tokens: 50, estimated_tokens_delta: 50, session_id: S, uuid: "u" },
      (e) =>
        expect(only(e, "metric")).toMatchObject({ name: "thinking_tokens", values: { estimated_tokens: 50, estimated_tokens_delta: 50 } }),
    ],
    [
      "system/compact_boundary → notice",
      { type: "system", subtype: "compact_boundary", compact_metadata: { trigger: "manual", pre_tokens: 9000 }, session_id: S, uuid: "u" },
      (e) =>
        expect(only(e, "notice")).toMatchObject({ kind: "compact_boundary", text: "conversation compacted (manual), 9000 tokens before" }),
    ],
    [
      "system/hook_started → notice hook",
      {
        type: "system",
        subtype: "hook_started",
        hook_id: "h",
        hook_name: "SessionStart:startup",
        hook_event: "SessionStart",
        session_id: S,
        uuid: "u",
      },
      (e) => expect(only(e, "notice")).toMatchObject({ kind: "hook", level: "info", text: "SessionStart:startup started" }),
    ],
    [
      "system/hook_response failing → warning notice",
      {
        type: "system",
        subtype: "hook_response",
        hook_id: "h",
        hook_name: "PreToolUse:Bash",
        hook_event: "PreToolUse",
        exit_code: 2,
        outcome: "error",
        stderr: "denied",
        session_id: S,
        uuid: "u",
      },
      (e) => expect(only(e, "notice")).toMatchObject({ kind: "hook", level: "warning", text: "PreToolUse:Bash error (exit 2)" }),
    ],
    [
      "system/task_started without an open tool → notice task",
      { type: "system", subtype: "task_started", task_id: "t1", description: "lint", task_type: "local_bash", session_id: S, uuid: "u" },
      (e) => expect(only(e, "notice")).toMatchObject({ kind: "task", text: "task started: lint (t1)" }),
    ],
    [
      "system/keep_alive → heartbeat",
      { type: "system", subtype: "keep_alive", session_id: S, uuid: "u" },
      (e) => expect(ofType(e, "heartbeat")).toHaveLength(1),
    ],
    [
      "system/<listed informational subtype> → notice of that kind",
      { type: "system", subtype: "local_command_output", content: "ok", session_id: S, uuid: "u" },
      (e) => expect(only(e, "notice")).toMatchObject({ kind: "local_command_output", text: "ok" }),
    ],
    [
      "rate_limit_event → rate_limit with RFC 3339 resetsAt",
      {
        type: "rate_limit_event",
        rate_limit_info: { status: "rejected", resetsAt: 1789764600, rateLimitType: "five_hour", overageStatus: "rejected" },
        session_id: S,
        uuid: "u",
      },
      (e) =>
        expect(only(e, "rate_limit")).toMatchObject({
          status: "rejected",
          resetsAt: "2026-09-18T20:50:00.000Z",
          limit: "five_hour",
          details: { overageStatus: "rejected" },
        }),
    ],
    [
      "tool_progress for a tool not started → notice",
      {
        type: "tool_progress",
        tool_use_id: "toolu_x",
        tool_name: "Grep",
        parent_tool_use_id: null,
        elapsed_time_seconds: 3,
        session_id: S,
        uuid: "u",
      },
      (e) => expect(only(e, "notice")).toMatchObject({ kind: "tool_progress", text: "Grep running for 3s" }),
    ],
    [
      "auth_status → notice",
      { type: "auth_status", isAuthenticating: true, output: ["Opening browser"], session_id: S, uuid: "u" },
      (e) => expect(only(e, "notice")).toMatchObject({ kind: "auth_status", text: "Opening browser" }),
    ],
    [
      "tool_use_summary → notice",
      { type: "tool_use_summary", summary: "Read 3 files", preceding_tool_use_ids: ["a"], session_id: S, uuid: "u" },
      (e) => expect(only(e, "notice")).toMatchObject({ kind: "tool_use_summary", text: "Read 3 files" }),
    ],
    [
      "prompt_suggestion → notice",
      { type: "prompt_suggestion", suggestion: "Run the tests", session_id: S, uuid: "u" },
      (e) => expect(only(e, "notice")).toMatchObject({ kind: "prompt_suggestion", text: "Run the tests" }),
    ],
    [
      "control_request → notice control",
      { type: "control_request", request_id: "r1", request: { subtype: "can_use_tool", tool_name: "Bash" } },
      (e) => expect(only(e, "notice")).toMatchObject({ kind: "control", text: "control_request: can_use_tool" }),
    ],
    [
      "stream_event ping → heartbeat",
      { type: "stream_event", event: { type: "ping" }, session_id: S, parent_tool_use_id: null, uuid: "u" },
      (e) => expect(ofType(e, "heartbeat")).toHaveLength(1),
    ],
    [
      "stream_event error → api error",
      {
        type: "stream_event",
        event: { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
        session_id: S,
        parent_tool_use_id: null,
        uuid: "u",
      },
      (e) => expect(only(e, "error")).toMatchObject({ scope: "api", message: "Overloaded", code: "overloaded_error" }),
    ],
    [
      "user with string content → user message",
      { type: "user", message: { role: "user", content: "hello" }, parent_tool_use_id: null, session_id: S, uuid: "u9" },
      (e) => expect(only(e, "message.completed")).toMatchObject({ role: "user", kind: "text", text: "hello", messageId: "u9#0" }),
    ],
    [
      "assistant with string content → text message",
      { type: "assistant", message: { id: "msg_s", role: "assistant", content: "plain" }, parent_tool_use_id: null, session_id: S },
      (e) => expect(only(e, "message.completed")).toMatchObject({ role: "assistant", text: "plain", messageId: "msg_s#0" }),
    ],
    [
      "assistant timestamp → time",
      {
        type: "assistant",
        message: { id: "msg_t", role: "assistant", content: [{ type: "text", text: "x" }] },
        parent_tool_use_id: null,
        session_id: S,
        timestamp: "2026-08-02T20:28:51.269Z",
      },
      (e) => expect(only(e, "message.completed").time).toBe("2026-08-02T20:28:51.269Z"),
    ],
  ];
  it.each(cases)("%s", (_name, record, check) => {
    const { events } = decode(record);
    check(events);
    for (const event of events) expect(validateEvent(event)).toEqual([]);
    expect(ofType(events, "unknown")).toEqual([]);
  });

  const results: [string, JsonObject, { status: string; error?: string; finalText?: string }][] = [
    [
      "success",
      { subtype: "success", is_error: false, result: "hi", terminal_reason: "completed" },
      { status: "success", finalText: "hi" },
    ],
    [
      "API-error trap: success + is_error",
      { subtype: "success", is_error: true, result: "Not logged in", terminal_reason: "api_error", api_error_status: 401 },
      { status: "error", error: "Not logged in" },
    ],
    [
      "api_error_status alone",
      { subtype: "success", is_error: false, result: "x", api_error_status: 500 },
      { status: "error", error: "x" },
    ],
    [
      "error_max_turns",
      { subtype: "error_max_turns", is_error: true, errors: ["Reached maximum number of turns (2)"], terminal_reason: "max_turns" },
      { status: "error", error: "Reached maximum number of turns (2)" },
    ],
    [
      "error_max_budget_usd",
      { subtype: "error_max_budget_usd", is_error: true, errors: ["Reached maximum budget ($1)"] },
      { status: "error", error: "Reached maximum budget ($1)" },
    ],
    [
      "error_during_execution without errors",
      { subtype: "error_during_execution", is_error: true },
      { status: "error", error: "error_during_execution" },
    ],
    [
      "prompt_too_long",
      { subtype: "success", is_error: true, result: "Prompt is too long", terminal_reason: "prompt_too_long" },
      { status: "error", error: "Prompt is too long" },
    ],
    [
      "aborted_streaming → interrupted",
      { subtype: "error_during_execution", is_error: true, terminal_reason: "aborted_streaming" },
      { status: "interrupted", error: "aborted_streaming" },
    ],
    [
      "aborted_tools → interrupted",
      {
        subtype: "error_during_execution",
        is_error: true,
        terminal_reason: "aborted_tools",
        errors: ["[ede_diagnostic] result_type=user"],
      },
      { status: "interrupted", error: "[ede_diagnostic] result_type=user" },
    ],
  ];
  it.each(results)("result %s", (_name, fields, expected) => {
    const { events } = decode(init, { type: "result", session_id: S, duration_ms: 10, num_turns: 1, ...fields });
    const done = only(events, "session.completed");
    expect(done.status).toBe(expected.status);
    expect(done.error).toBe(expected.error);
    expect(done.finalText).toBe(expected.finalText);
  });

  it("keeps result extras in details and maps the figures", () => {
    const { events } = decode(init, {
      type: "result",
      subtype: "success",
      is_error: false,
      result: "ok",
      session_id: S,
      duration_ms: 1200,
      duration_api_ms: 900,
      num_turns: 3,
      total_cost_usd: 0.5,
      usage: {
        input_tokens: 7,
        output_tokens: 9,
        cache_read_input_tokens: 100,
        cache_creation_input_tokens: 20,
        output_tokens_details: { thinking_tokens: 4 },
      },
      modelUsage: { m: { costUSD: 0.5 } },
      permission_denials: [{ tool_name: "Bash" }],
      stop_reason: "end_turn",
      terminal_reason: "completed",
    });
    const done = only(events, "session.completed");
    expect(done).toMatchObject({
      status: "success",
      finalText: "ok",
      costUsd: 0.5,
      durationMs: 1200,
      turns: 3,
      usage: { inputTokens: 7, outputTokens: 9, cacheReadTokens: 100, cacheWriteTokens: 20, reasoningTokens: 4 },
    });
    expect(done.details).toMatchObject({
      subtype: "success",
      duration_api_ms: 900,
      stop_reason: "end_turn",
      terminal_reason: "completed",
      modelUsage: { m: { costUSD: 0.5 } },
      permission_denials: [{ tool_name: "Bash" }],
    });
    expect(done.details).not.toHaveProperty("result");
  });

  it("session.started carries product, version, model, cwd, tools, permission mode and the rest as details", () => {
    const { events } = decode({ ...init, apiKeySource: "none", slash_commands: ["compact"] });
    expect(only(events, "session.started")).toMatchObject({
      agent: "claude-code",
      agentVersion: "2.1.220",
      model: "claude-sonnet-4-5",
      cwd: "/w",
      tools: ["Bash"],
      permissionMode: "default",
      sessionId: S,
      details: { apiKeySource: "none", slash_commands: ["compact"], mcp_servers: [] },
    });
  });

  it("an init whose tools list was trimmed to a string keeps it in details", () => {
    const { events } = decode({ ...init, tools: "TRIMMED" });
    const started = only(events, "session.started");
    expect(started.tools).toBeUndefined();
    expect(started.details).toMatchObject({ tools: "TRIMMED" });
  });

  it("tool kinds: Bash command, Read file_read, Write file_write, Edit file_edit, Grep search, WebSearch web_search, WebFetch web_fetch, Agent subagent, TodoWrite todo, mcp__ mcp", () => {
    const names = [
      "Bash",
      "Read",
      "Write",
      "Edit",
      "Grep",
      "WebSearch",
      "WebFetch",
      "Agent",
      "TodoWrite",
      "mcp__linear__create_issue",
      "SomethingNew",
    ];
    const { events } = decode(init, {
      type: "assistant",
      message: { id: "msg_k", role: "assistant", content: names.map((name, i) => ({ type: "tool_use", id: `t${i}`, name, input: {} })) },
      parent_tool_use_id: null,
      session_id: S,
    });
    expect(ofType(events, "tool.started").map((e) => [e.name, e.kind, e.server])).toEqual([
      ["Bash", "command", undefined],
      ["Read", "file_read", undefined],
      ["Write", "file_write", undefined],
      ["Edit", "file_edit", undefined],
      ["Grep", "search", undefined],
      ["WebSearch", "web_search", undefined],
      ["WebFetch", "web_fetch", undefined],
      ["Agent", "subagent", undefined],
      ["TodoWrite", "todo", undefined],
      ["mcp__linear__create_issue", "mcp", "linear"],
      ["SomethingNew", "other", undefined],
    ]);
  });

  it("several tool_result blocks in one user line: rich tool_use_result is not guessed", () => {
    const { events } = decode(
      init,
      {
        type: "assistant",
        message: {
          id: "m",
          role: "assistant",
          content: [
            { type: "tool_use", id: "a", name: "Read", input: {} },
            { type: "tool_use", id: "b", name: "Read", input: {} },
          ],
        },
        parent_tool_use_id: null,
        session_id: S,
      },
      {
        type: "user",
        message: {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "a", content: "A" },
            { type: "tool_result", tool_use_id: "b", content: "B" },
          ],
        },
        tool_use_result: { x: 1 },
        parent_tool_use_id: null,
        session_id: S,
      },
    );
    expect(ofType(events, "tool.completed").map((e) => [e.toolCallId, e.output, e.result])).toEqual([
      ["a", "A", undefined],
      ["b", "B", undefined],
    ]);
  });

  it("odd shapes never throw and never crash the stream", () => {
    const odd = [
      { type: "assistant" },
      { type: "assistant", message: { content: [null, 3, { type: "tool_use" }] } },
      { type: "user", message: { content: [{ type: "tool_result" }] } },
      { type: "result" },
      { type: "stream_event" },
      { type: "stream_event", event: { type: "content_block_delta", delta: { type: "input_json_delta", partial_json: "{" } } },
      { type: "system" },
      { type: "rate_limit_event" },
      { type: "tool_progress" },
      { x: 1 },
      { type: 5 },
    ];
    const { events } = decode(...odd);
    for (const event of events) expect(validateEvent(event)).toEqual([]);
  });
});

describe("claude: detection", () => {
  const detectFirst = (path: string): string | undefined => {
    for (const line of readFileSync(path, "utf8").split("\n").slice(0, 64)) {
      let value: JsonObject;
      try {
        value = JSON.parse(line) as JsonObject;
      } catch {
        continue;
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) continue;
      const found = detectDialect(jsonRecord(value, line));
      if (found !== undefined) return found.name;
    }
    return undefined;
  };
  const records: [string, JsonObject, boolean][] = [
    ["Claude init", init, true],
    [
      "Claude init without a version (1.0.x) but with tools",
      { type: "system", subtype: "init", session_id: S, tools: [], mcp_servers: [] },
      true,
    ],
    [
      "Claude hook line before init",
      { type: "system", subtype: "hook_started", hook_id: "h", hook_name: "x", hook_event: "SessionStart", session_id: S, uuid: "u" },
      true,
    ],
    ["Claude result with type last", { duration_ms: 1, num_turns: 1, session_id: S, type: "result" }, true],
    ["Claude stream_event", { type: "stream_event", event: { type: "message_start" }, session_id: S, parent_tool_use_id: null }, true],
    [
      "Cursor init (no version, no tools)",
      { type: "system", subtype: "init", apiKeySource: "login", cwd: "/p", session_id: S, model: "Auto", permissionMode: "default" },
      false,
    ],
    ["Cursor user (no parent_tool_use_id)", { type: "user", message: { role: "user", content: [] }, session_id: S }, false],
    [
      "Cursor result (no num_turns, no cost)",
      { type: "result", subtype: "success", duration_ms: 1, is_error: false, result: "x", session_id: S },
      false,
    ],
    [
      "claude-session transcript record",
      { parentUuid: null, type: "user", message: { role: "user", content: "x" }, sessionId: S, uuid: "u" },
      false,
    ],
    [
      "Amp init (T- thread id)",
      { type: "system", subtype: "init", session_id: "T-019e47a8-5090-7538-9035-f2fde26859b7", tools: [] },
      false,
    ],
    ["Qwen init", { type: "system", subtype: "init", session_id: S, uuid: S, permission_mode: "plan", qwen_code_version: "0.25.0" }, false],
    ["Gemini init", { type: "init", session_id: S, model: "gemini-2.5-pro" }, false],
  ];
  it.each(records)("%s → claims: %s", (_name, value, expected) => {
    expect(claude.detect(jsonRecord(value))).toBe(expected);
  });
  it("text lines are not claimed", () => {
    const text: InputRecord = { kind: "text", text: "Claude Code v2", line: 1, offset: 0, length: 14 };
    expect(claude.detect(text)).toBe(false);
  });
  it.skipIf(!hasShared)("does not claim another agent's capture, and every claude capture is detected as claude", () => {
    for (const folder of readdirSync(sharedPath("fixtures")).filter(
      (f) => f !== "claude" && f !== "protocols" && statSync(sharedPath("fixtures", f)).isDirectory(),
    )) {
      const dir = sharedPath("fixtures", folder);
      for (const name of readdirRecursive(dir)) expect(detectFirst(name), name).not.toBe("claude");
    }
    for (const name of readdirRecursive(sharedPath("fixtures", "claude"))) expect(detectFirst(name), name).toBe("claude");
  });
});

/** Every capture file under a folder (recursively), without .meta.json sidecars. */
function readdirRecursive(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...readdirRecursive(p));
    else if (!name.endsWith(".meta.json")) out.push(p);
  }
  return out;
}

describe("claude: synthetic fixtures", () => {
  it("result-type-not-first-key: the result is read whatever its key order", () => {
    const { events, summary, dialect } = readFixture("result-type-not-first-key.ndjson");
    expect(dialect).toBe("claude");
    expect(only(events, "session.completed")).toMatchObject({ status: "success", finalText: "4", turns: 1 });
    expect(summary.finalText).toBe("4");
  });

  it("api-error-trap-synthetic-assistant: status error with the API's text, an api error event, no assistant text", () => {
    const { events, summary } = readFixture("api-error-trap-synthetic-assistant.ndjson");
    expect(only(events, "error")).toMatchObject({
      scope: "api",
      code: "authentication_failed",
      message: "Invalid API key · Please run /login",
    });
    expect(ofType(events, "message.completed")).toEqual([]);
    expect(summary).toMatchObject({
      status: "error",
      error: "Invalid API key · Please run /login",
      finalText: null,
      costUsd: 0,
      durationMs: 312,
    });
  });

  it("partial-thinking-text-tool-deltas: deltas and the whole-block assistant line share one messageId per block", () => {
    const { events, summary } = readFixture("partial-thinking-text-tool-deltas.ndjson");
    const deltas = ofType(events, "message.delta");
    expect(deltas.map((d) => [d.messageId, d.text, d.position])).toEqual([
      ["msg_01PartialA#0", "Need to list ", 0],
      ["msg_01PartialA#0", "the files.", 13],
      ["msg_01PartialA#1", "Listing ", 0],
      ["msg_01PartialA#1", "now.", 8],
      ["msg_01PartialB#0", "Two files.", 0],
    ]);
    const completed = ofType(events, "message.completed");
    expect(completed.map((m) => [m.messageId, m.kind, m.text, m.signature])).toEqual([
      ["msg_01PartialA#0", "reasoning", "Need to list the files.", "SIG-A1"],
      ["msg_01PartialA#1", "text", "Listing now.", undefined],
      ["msg_01PartialB#0", "text", "Two files.", undefined],
    ]);
    const tool = only(events, "tool.started");
    expect(tool).toMatchObject({ toolCallId: "toolu_01LS", name: "Bash", kind: "command" });
    expect(tool.input).toBeUndefined();
    expect(
      ofType(events, "tool.input.delta")
        .map((d) => d.text)
        .join(""),
    ).toBe('{"command": "ls", "description": "List files"}');
    expect(only(events, "tool.completed")).toMatchObject({
      toolCallId: "toolu_01LS",
      output: "a.txt\nb.txt",
      isError: false,
      result: { stdout: "a.txt\nb.txt" },
    });
    expect(ofType(events, "turn.started").map((t) => t.turnId)).toEqual(["msg_01PartialA", "msg_01PartialB"]);
    expect(ofType(events, "turn.completed").map((t) => t.turnId)).toEqual(["msg_01PartialA", "msg_01PartialB"]);
    expect(ofType(events, "metric").filter((m) => m.name === "message_delta")).toHaveLength(2);
    expect(ofType(events, "usage")).toEqual([]);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
    expect(summary).toMatchObject({
      status: "success",
      finalText: "Two files.",
      turns: 2,
      usage: { inputTokens: 10, outputTokens: 60, cacheReadTokens: 500, cacheWriteTokens: 40 },
    });
  });

  it("partial-thinking-text-tool-deltas: with the repair stage on, the completed text is unchanged", () => {
    const { events } = readFile(fixturePath("claude", "partial-thinking-text-tool-deltas.ndjson"));
    expect(ofType(events, "message.completed").map((m) => m.text)).toEqual(["Need to list the files.", "Listing now.", "Two files."]);
  });

  it("partial-no-assistant-lines-glm-proxy: a streamed block is final at its content_block_stop, before the result, once", () => {
    for (const repair of [false, true]) {
      const { events } = readFile(fixturePath("claude", "partial-no-assistant-lines-glm-proxy.ndjson"), { repair });
      const completed = ofType(events, "message.completed");
      expect(completed.map((m) => [m.messageId, m.kind, m.text])).toEqual([
        ["msg_glm_1#0", "reasoning", "The user asks for two plus two."],
        ["msg_glm_1#1", "text", "Two plus two is four."],
      ]);
      const types = events.map((e) => e.type);
      // Each completion comes right after its block (line 6 and 10), before message_stop's turn.completed and the result.
      expect(completed.map((m) => m.source?.line)).toEqual([6, 10]);
      expect(types.lastIndexOf("message.completed")).toBeLessThan(types.indexOf("turn.completed"));
      expect(types.at(-1)).toBe("session.completed");
      expect(checkSequence(events)).toEqual([]);
    }
  });

  it("partial-no-assistant-lines-glm-proxy: render shows the answer once", async () => {
    const io = fakeIo();
    expect(await run(["render", "--mode", "full", fixturePath("claude", "partial-no-assistant-lines-glm-proxy.ndjson")], io)).toBe(0);
    expect(io.out().split("Two plus two is four.").length - 1).toBe(1);
  });

  it("a block with no content_block_stop is final at its message_stop; a signature-only thinking block is withheld reasoning", () => {
    const se = (event: object) => ({ type: "stream_event", event, session_id: S, parent_tool_use_id: null, uuid: "u" });
    const { events } = decode(
      init,
      se({ type: "message_start", message: { id: "msg_x", role: "assistant", content: [] } }),
      se({ type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "SIG" } }),
      se({ type: "content_block_stop", index: 0 }),
      se({ type: "content_block_start", index: 1, content_block: { type: "text", text: "" } }),
      se({ type: "content_block_delta", index: 1, delta: { type: "text_delta", text: "cut short" } }),
      se({ type: "message_stop" }),
      { type: "result", subtype: "success", is_error: false, result: "cut short", session_id: S, uuid: "r" },
    );
    expect(ofType(events, "message.completed").map((m) => [m.messageId, m.kind, m.text, m.signature])).toEqual([
      ["msg_x#0", "redacted_reasoning", "", "SIG"],
      ["msg_x#1", "text", "cut short", undefined],
    ]);
    const types = events.map((e) => e.type);
    expect(types.indexOf("session.completed")).toBeGreaterThan(types.lastIndexOf("message.completed"));
  });

  it("an assistant line after the block's stop (Qwen's order) adds nothing: no second completion; other text is an info issue", () => {
    const se = (event: object) => ({ type: "stream_event", event, session_id: S, parent_tool_use_id: null, uuid: "u" });
    const line = (text: string) => ({
      type: "assistant",
      message: { id: "msg_q", role: "assistant", content: [{ type: "text", text }] },
      session_id: S,
      uuid: "a",
    });
    const stream = [
      init,
      se({ type: "message_start", message: { id: "msg_q", role: "assistant", content: [] } }),
      se({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      se({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "Hello there." } }),
      se({ type: "content_block_stop", index: 0 }),
      se({ type: "message_stop" }),
    ];
    const same = decode(...stream, line("Hello there."));
    expect(ofType(same.events, "message.completed").map((m) => [m.messageId, m.text])).toEqual([["msg_q#0", "Hello there."]]);
    expect(same.issues).toEqual([]);
    const other = decode(...stream, line("Hello there, friend."));
    expect(ofType(other.events, "message.completed").map((m) => [m.messageId, m.text])).toEqual([["msg_q#0", "Hello there."]]);
    expect(other.issues).toEqual([expect.objectContaining({ code: "out-of-order", severity: "info", line: 7 })]);
  });

  it("partial-redacted-thinking-signature-only: empty thinking + signature is redacted_reasoning; redacted_thinking keeps its data; citations are notices", () => {
    const { events } = readFixture("partial-redacted-thinking-signature-only.ndjson");
    const completed = ofType(events, "message.completed");
    expect(completed.map((m) => [m.messageId, m.kind, m.text, m.signature])).toEqual([
      ["msg_01Redacted#0", "redacted_reasoning", "", "EqsCSIGNATURE"],
      ["msg_01Redacted#1", "redacted_reasoning", "", "ENCRYPTED-PAYLOAD"],
      ["msg_01Redacted#2", "text", "The sky is blue.", undefined],
    ]);
    expect(ofType(events, "message.started").find((m) => m.messageId === "msg_01Redacted#0")?.kind).toBe("redacted_reasoning");
    expect(only(events, "notice")).toMatchObject({ kind: "citation", text: "the sky is blue", details: { messageId: "msg_01Redacted#2" } });
  });

  it("per-block-assistant-lines-repeat-usage: one message per block, per-message usage is not summed, the result's totals win", () => {
    const { events, summary } = readFixture("per-block-assistant-lines-repeat-usage.ndjson");
    expect(ofType(events, "message.completed").map((m) => [m.messageId, m.kind])).toEqual([
      ["msg_01PerBlock#0", "redacted_reasoning"],
      ["msg_01PerBlock#1", "text"],
      ["msg_01PerBlock2#0", "text"],
    ]);
    expect(ofType(events, "usage")).toEqual([]);
    expect(summary.usage).toEqual({
      inputTokens: 6,
      outputTokens: 90,
      cacheReadTokens: 2000,
      cacheWriteTokens: 300,
      reasoningTokens: null,
    });
    expect(summary.costUsd).toBe(0.0456);
    expect(only(events, "tool.started").time).toBe("2026-08-01T10:00:00.900Z");
  });

  it("subagent-parent-tool-use-id: a child session with its own id, parent tool call, events and end", () => {
    const { events, summary } = readFixture("subagent-parent-tool-use-id.ndjson");
    const child = "subagent-toolu_01AGENT";
    const starts = ofType(events, "session.started");
    expect(starts).toHaveLength(2);
    expect(starts[1]).toMatchObject({
      sessionId: child,
      parentSessionId: S,
      parentToolCallId: "toolu_01AGENT",
      details: { taskId: "a1b2c3", subagentType: "general-purpose" },
    });
    const childEvents = events.filter((e) => e.sessionId === child);
    expect(childEvents.map((e) => e.type)).toEqual([
      "session.started",
      "message.started",
      "message.completed",
      "tool.started",
      "tool.progress",
      "tool.completed",
      "message.started",
      "message.completed",
      "session.completed",
    ]);
    expect(ofType(childEvents, "message.completed").map((m) => [m.role, m.text])).toEqual([
      ["user", "Count the files in /work/demo"],
      ["assistant", "There are 2 files."],
    ]);
    expect(ofType(childEvents, "session.completed")[0]).toMatchObject({
      status: "success",
      finalText: "There are 2 files.",
      durationMs: 3150,
      usage: { inputTokens: 8, outputTokens: 30, cacheWriteTokens: 1162 },
    });
    expect(
      ofType(events, "tool.progress")
        .filter((p) => p.toolCallId === "toolu_01AGENT")
        .map((p) => p.status),
    ).toEqual(["task started: Count files", "task running: Bash", "task completed"]);
    expect(summary).toMatchObject({ subagents: 1, finalText: "The subagent counted 2 files.", status: "success" });
    expect(summary.toolCalls).toEqual([
      { id: "toolu_01AGENT", name: "Agent", status: "success" },
      { id: "toolu_01SUBLS", name: "Bash", status: "success" },
    ]);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });

  it("background-agent-second-init-two-results: one session.started, a notice for the second init, two session.completed, the summary takes the last", () => {
    const { events, summary } = readFixture("background-agent-second-init-two-results.ndjson");
    expect(ofType(events, "session.started").filter((s) => s.parentToolCallId === undefined)).toHaveLength(1);
    expect(ofType(events, "notice").filter((n) => n.kind === "init")).toHaveLength(1);
    expect(
      ofType(events, "session.completed")
        .filter((s) => s.sessionId === S)
        .map((s) => s.finalText),
    ).toEqual(["waiting", "done"]);
    const childEnd = ofType(events, "session.completed").find((s) => s.sessionId === "subagent-toolu_01BG");
    expect(childEnd).toMatchObject({ status: "success", finalText: "ack", durationMs: 1800 });
    // The task_* lines after the launch result are notices: the Agent tool call is already complete.
    expect(ofType(events, "notice").filter((n) => n.kind === "task")).toHaveLength(2);
    expect(summary).toMatchObject({
      status: "success",
      finalText: "done",
      costUsd: 0.08,
      turns: 1,
      subagents: 1,
      usage: { inputTokens: 2, outputTokens: 4, cacheReadTokens: 300, cacheWriteTokens: 10 },
    });
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });

  it("system-subtypes-notices-retry-metric: every documented subtype maps to notice/retry/metric/heartbeat, nothing unknown", () => {
    const { events, issues } = readFixture("system-subtypes-notices-retry-metric.ndjson");
    expect(ofType(events, "unknown")).toEqual([]);
    expect(ofType(events, "notice").map((n) => [n.kind, n.level])).toEqual([
      ["hook", "info"],
      ["hook", "info"],
      ["hook", "warning"],
      ["status", "info"],
      ["compact_boundary", "info"],
      ["status", "info"],
      ["files_persisted", "info"],
      ["notification", "info"],
      ["brand_new_subtype", "info"],
    ]);
    expect(only(events, "retry")).toMatchObject({ attempt: 1, maxAttempts: 10, delayMs: 1008, error: "529 overloaded_error" });
    expect(only(events, "metric")).toMatchObject({
      name: "thinking_tokens",
      values: { estimated_tokens: 120, estimated_tokens_delta: 70 },
    });
    expect(ofType(events, "heartbeat")).toHaveLength(1);
    // The compact summary arrives as a user line with string content.
    expect(ofType(events, "message.completed").find((m) => m.role === "user")?.text).toMatch(/^This session is being continued/);
    expect(issues.map((i) => [i.code, i.severity])).toEqual([["unknown-record", "info"]]);
  });

  it("rate-limit-event-and-tool-progress: rate_limit, tool.progress for the open call, notice for an unknown call", () => {
    const { events } = readFixture("rate-limit-event-and-tool-progress.ndjson");
    expect(only(events, "rate_limit")).toMatchObject({
      status: "allowed_warning",
      limit: "seven_day",
      resetsAt: "2026-08-02T21:00:00.000Z",
      details: { utilization: 0.91 },
    });
    expect(only(events, "tool.progress")).toMatchObject({ toolCallId: "toolu_01SLEEP", elapsedMs: 10500 });
    expect(only(events, "notice")).toMatchObject({ kind: "tool_progress", text: "Grep running for 1s" });
  });

  it.each([
    ["result-error-max-turns.ndjson", "error", "Reached maximum number of turns (3)", 4],
    ["result-error-max-budget-usd.ndjson", "error", "Reached maximum budget ($0.01)", 2],
    ["result-error-during-execution-aborted.ndjson", "interrupted", "[ede_diagnostic] aborted", 2],
    ["result-prompt-too-long.ndjson", "error", "Prompt is too long", 2],
  ])("%s: status %s, error %s", (name, status, error, turns) => {
    const { events, summary } = readFixture(name);
    const done = only(events, "session.completed");
    expect(done).toMatchObject({ status, error, turns });
    expect(done.finalText).toBeUndefined();
    expect(summary.status).toBe(status);
    expect(summary.error).toBe(error);
  });

  it("interrupt-control-response-aborted: control_response is a notice, the aborted partial text is kept, the result says interrupted", () => {
    const { events, summary } = readFixture("interrupt-control-response-aborted.ndjson");
    expect(only(events, "notice")).toMatchObject({ kind: "control", text: "control_response" });
    expect(only(events, "message.completed").text).toBe("I was about to");
    expect(summary.status).toBe("interrupted");
  });

  it("tool-result-content-shapes: string and array content, image marker, exit code from the error text, MCP server", () => {
    const { events, summary } = readFixture("tool-result-content-shapes.ndjson");
    const done = ofType(events, "tool.completed");
    expect(done.map((t) => [t.toolCallId, t.isError, t.exitCode, t.output])).toEqual([
      ["toolu_01CAT", true, 1, "Exit code 1\ncat: missing.txt: No such file or directory"],
      ["toolu_01SHOT", false, undefined, "Screenshot:\n[image]"],
      ["toolu_01MCP", false, undefined, '{"number":42}'],
    ]);
    expect(done[0]?.result).toBe("Error: Exit code 1\ncat: missing.txt: No such file or directory");
    expect(done[2]?.result).toEqual([{ type: "text", text: '{"number":42}' }]);
    expect(ofType(events, "tool.started").find((t) => t.toolCallId === "toolu_01MCP")).toMatchObject({ kind: "mcp", server: "github" });
    expect(summary.toolCalls.map((t) => t.status)).toEqual(["error", "success", "success"]);
  });

  it("edit-write-todowrite-file-changed-plan: file.changed for successful edits and writes, plan.updated for each TodoWrite", () => {
    const { events } = readFixture("edit-write-todowrite-file-changed-plan.ndjson");
    expect(ofType(events, "file.changed").map((f) => [f.toolCallId, f.changes])).toEqual([
      [
        "toolu_01EDIT",
        [{ path: "/work/demo/a.txt", kind: "update", diff: "--- /work/demo/a.txt\n+++ /work/demo/a.txt\n@@ -1,1 +1,1 @@\n-foo\n+bar" }],
      ],
      ["toolu_01WRITE", [{ path: "/work/demo/b.txt", kind: "add", diff: "hello\n" }]],
    ]);
    expect(ofType(events, "plan.updated").map((p) => p.items)).toEqual([
      [
        { text: "Edit a.txt", status: "in_progress" },
        { text: "Write b.txt", status: "pending" },
      ],
      [
        { text: "Edit a.txt", status: "completed" },
        { text: "Write b.txt", status: "completed" },
      ],
    ]);
  });

  it("server-tool-use-web-search: server tools are tool calls with kind web_search; an *_error result is an error", () => {
    const { events, summary } = readFixture("server-tool-use-web-search.ndjson");
    expect(ofType(events, "tool.started").map((t) => [t.toolCallId, t.kind])).toEqual([
      ["srvtoolu_01WS", "web_search"],
      ["srvtoolu_01WS2", "web_search"],
    ]);
    expect(ofType(events, "tool.completed").map((t) => [t.isError, t.output])).toEqual([
      [false, "NDJSON spec <https://github.com/ndjson/ndjson-spec>"],
      [true, '{"type":"web_search_tool_result_error","error_code":"max_uses_exceeded"}'],
    ]);
    expect(only(events, "message.completed").messageId).toBe("msg_01W#2");
    expect(summary.toolCalls.map((t) => t.status)).toEqual(["success", "error"]);
  });

  it("user-messages-string-array-replay: user text as message.completed role user", () => {
    const { events } = readFixture("user-messages-string-array-replay.ndjson");
    expect(
      ofType(events, "message.completed")
        .filter((m) => m.role === "user")
        .map((m) => [m.messageId, m.text]),
    ).toEqual([
      ["u-1#0", "Reply with exactly: pong"],
      ["u-2#0", "First part."],
      ["u-2#1", "Second part."],
    ]);
  });

  it("truncated-stream-no-result: end closes the open turn and tool call, and no session.completed is invented", () => {
    const { events, summary } = readFixture("truncated-stream-no-result.ndjson");
    expect(ofType(events, "session.completed")).toEqual([]);
    expect(only(events, "tool.completed")).toMatchObject({ toolCallId: "toolu_01CUT", isError: true });
    expect(only(events, "turn.completed").turnId).toBe("msg_01Cut");
    expect(checkSequence(events).filter((i) => /never completed/.test(i.message))).toEqual([]);
    expect(summary.status).toBe("incomplete");
  });

  it("unknown-record-type: one unknown event with the raw record and an unknown-record issue", () => {
    const { events, issues } = readFixture("unknown-record-type.ndjson");
    const unknown = only(events, "unknown");
    expect(unknown.raw).toEqual({ type: "future_record", session_id: S, payload: { x: 1 } });
    expect(issues.map((i) => i.code)).toEqual(["unknown-record"]);
  });

  it("legacy-1.0-whole-message-total-cost: several blocks in one line, total_cost before 1.0.22", () => {
    const { events, summary } = readFixture("legacy-1.0-whole-message-total-cost.ndjson");
    expect(ofType(events, "message.completed").map((m) => m.messageId)).toEqual(["msg_01Old#0", "msg_01Old2#0"]);
    expect(only(events, "session.started").agentVersion).toBeUndefined();
    expect(summary).toMatchObject({ costUsd: 0.003, finalText: "You are in /work/demo.", turns: 3 });
  });
});

describeDialect(
  claude,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("claude", "partial-thinking-text-tool-deltas.ndjson"), "utf8") },
);
describeDialect(
  claude,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("claude", "subagent-parent-tool-use-id.ndjson"), "utf8") },
);

noteSharedMissing();
describe.skipIf(!hasShared)("claude: real captures (../shared/fixtures/claude)", () => {
  const capture = (name: string): ReadResult => readFile(sharedPath("fixtures", "claude", name));
  const noUnknown = (r: ReadResult): void => {
    expect(r.dialect).toBe("claude");
    expect(ofType(r.events, "unknown")).toEqual([]);
    expect(r.issues.filter((i) => i.severity !== "info")).toEqual([]);
  };

  it("every capture: each message completes once, before the session does (the whole-block assistant line is unchanged)", () => {
    for (const name of readdirSync(sharedPath("fixtures", "claude"))) {
      const { events } = capture(name);
      const completed = ofType(events, "message.completed").map((m) => m.messageId);
      expect(new Set(completed).size, name).toBe(completed.length);
      // No message of a session completes after that session's last session.completed.
      const lastEnd = new Map(events.flatMap((e, i) => (e.type === "session.completed" ? [[e.sessionId, i] as const] : [])));
      events.forEach((e, i) => {
        if (e.type === "message.completed") expect(i, `${name} ${e.messageId}`).toBeLessThan(lastEnd.get(e.sessionId) ?? Infinity);
      });
    }
  });

  it("archistrator_success_with_tools (2.1.220): Write, final text, usage, cost", () => {
    const r = capture("archistrator_success_with_tools.jsonl");
    noUnknown(r);
    expect(r.summary).toMatchObject({
      agent: "claude-code",
      agentVersion: "2.1.220",
      model: "claude-sonnet-5",
      sessionId: "d0becfe3-d703-4311-8d8f-bf0ed7139dd7",
      status: "success",
      error: null,
      finalText:
        'The tool result confirms the file is `hi` — read-back not needed since it\'s already current in context. Created `hello.txt` with contents "hi".',
      toolCalls: [{ id: "toolu_01Rjuz3fMBrwLKR72uHAcnmH", name: "Write", status: "success" }],
      usage: { inputTokens: 4, outputTokens: 171, cacheReadTokens: 63600, cacheWriteTokens: 5424, reasoningTokens: null },
      costUsd: 0.054201000000000006,
      durationMs: 6488,
      turns: 2,
      subagents: 0,
    });
    expect(only(r.events, "file.changed").changes).toEqual([{ path: "/scrubbed/hello.txt", kind: "add", diff: "hi" }]);
    expect(ofType(r.events, "notice").filter((n) => n.kind === "hook")).toHaveLength(4);
    expect(ofType(r.events, "rate_limit")).toHaveLength(2);
    // Two assistant lines share msg_011CdeZ44G5n3VmRyeeUj6Hk: block 0 is the text, block 1 the Write.
    expect(ofType(r.events, "message.completed").map((m) => m.messageId)).toEqual([
      "msg_011CdeZ44G5n3VmRyeeUj6Hk#0",
      "msg_011CdeZ4P4Bm1o58puoVk5Hn#0",
    ]);
  });

  it("archistrator_success_with_subagent (2.1.220): Agent call, a child session, redacted thinking", () => {
    const r = capture("archistrator_success_with_subagent.jsonl");
    noUnknown(r);
    expect(r.summary).toMatchObject({
      status: "success",
      finalText: "The subagent answered: **4**.",
      toolCalls: [{ id: "toolu_01DL6Gqvj23os5rsNRhFSTmy", name: "Agent", status: "success" }],
      usage: { inputTokens: 4, outputTokens: 266, cacheReadTokens: 63944, cacheWriteTokens: 5941, reasoningTokens: null },
      costUsd: 0.11543595000000001,
      durationMs: 9161,
      turns: 2,
      subagents: 1,
    });
    const child = ofType(r.events, "session.started").find((s) => s.parentToolCallId === "toolu_01DL6Gqvj23os5rsNRhFSTmy");
    expect(child?.parentSessionId).toBe("bda495be-48e6-4476-8117-9e8459107b7d");
    const childEvents = r.events.filter((e) => e.sessionId === child?.sessionId);
    expect(ofType(childEvents, "message.completed").map((m) => [m.role, m.text])).toEqual([
      ["user", "What is 2+2? Reply with just the numeric answer."],
    ]);
    expect(ofType(childEvents, "session.completed")[0]).toMatchObject({
      status: "success",
      finalText: "4",
      durationMs: 1705,
      usage: { inputTokens: 2, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 15081 },
    });
    expect(ofType(r.events, "message.completed")[0]).toMatchObject({
      kind: "redacted_reasoning",
      text: "",
      messageId: "msg_011CdeZNZXiq8QnTfcAxZoC2#0",
    });
    expect(ofType(r.events, "metric").filter((m) => m.name === "thinking_tokens")).toHaveLength(2);
  });

  it("archistrator_failure (2.1.220): model_not_found behind subtype success → status error with the API text", () => {
    const r = capture("archistrator_failure.jsonl");
    noUnknown(r);
    const text =
      "There's an issue with the selected model (no-such-model). It may not exist or you may not have access to it. Run --model to pick a different model.";
    expect(r.summary).toMatchObject({
      status: "error",
      error: text,
      finalText: null,
      toolCalls: [],
      costUsd: 0,
      durationMs: 890,
      turns: 1,
      model: "no-such-model",
    });
    expect(only(r.events, "error")).toMatchObject({ scope: "api", code: "model_not_found", message: text });
    expect(ofType(r.events, "message.completed")).toEqual([]);
  });

  it("md2okf_2.1.280_error_max_turns_result: type not first, error_max_turns without result text", () => {
    const r = capture("md2okf_2.1.280_error_max_turns_result.jsonl");
    noUnknown(r);
    expect(r.summary).toMatchObject({
      agentVersion: "2.1.280",
      status: "error",
      error: "Reached maximum number of turns (1)",
      finalText: null,
      toolCalls: [{ id: "toolu_01Kj41yHZd2dpVxXoLgKe24M", name: "Bash", status: "success" }],
      usage: { inputTokens: 2, outputTokens: 237, cacheReadTokens: 23997, cacheWriteTokens: 12661, reasoningTokens: 160 },
      costUsd: 0.057817400000000005,
      durationMs: 4827,
      turns: 2,
    });
    expect(ofType(r.events, "metric").filter((m) => m.name === "thinking_tokens")).toHaveLength(3);
    expect(only(r.events, "session.completed").details).toMatchObject({ subtype: "error_max_turns", terminal_reason: "max_turns" });
  });

  it("meridian_streaming_turn_partial (2.1.177, partial): deltas P+ONG and the completed PONG share the messageId", () => {
    const r = capture("meridian_streaming_turn_partial.ndjson");
    noUnknown(r);
    expect(r.summary).toMatchObject({
      agentVersion: "2.1.177",
      model: "claude-opus-4-8[1m]",
      status: "success",
      finalText: "PONG",
      toolCalls: [],
      usage: { inputTokens: 16863, outputTokens: 5, cacheReadTokens: 15362, cacheWriteTokens: 3631, reasoningTokens: null },
      costUsd: 0.12843100000000002,
      durationMs: 2190,
      turns: 1,
    });
    const raw = readFile(sharedPath("fixtures", "claude", "meridian_streaming_turn_partial.ndjson"), { repair: false });
    expect(ofType(raw.events, "message.delta").map((d) => [d.messageId, d.text])).toEqual([
      ["msg_01JPmnPomFSVFLjchP1xENmh#0", "P"],
      ["msg_01JPmnPomFSVFLjchP1xENmh#0", "ONG"],
    ]);
    expect(only(raw.events, "message.completed")).toMatchObject({ messageId: "msg_01JPmnPomFSVFLjchP1xENmh#0", text: "PONG" });
    const hooks = ofType(r.events, "notice").filter((n) => n.kind === "hook");
    expect(hooks).toHaveLength(13);
    expect(hooks.filter((n) => n.level === "warning")).toHaveLength(1);
  });

  it("ralph_partial_bash_success_2.1.218 (partial, sorted keys): thinking deltas, signature, tool input deltas", () => {
    const r = capture("ralph_partial_bash_success_2.1.218.jsonl");
    noUnknown(r);
    expect(r.summary).toMatchObject({
      status: "success",
      finalText: "Done.",
      toolCalls: [{ id: "toolu_01RCxFZpHAEB3yBAHn3nktG2", name: "Bash", status: "success" }],
      usage: { inputTokens: 18, outputTokens: 451, cacheReadTokens: 52666, cacheWriteTokens: 443, reasoningTokens: null },
      costUsd: 0.0084256,
      durationMs: 9403,
      turns: 2,
    });
    expect(
      ofType(r.events, "tool.input.delta")
        .map((d) => d.text)
        .join(""),
    ).toBe('{"command": "echo test-msg-delta", "description": "Run echo test-msg-delta"}');
    const reasoning = ofType(r.events, "message.completed").filter((m) => m.kind === "reasoning");
    expect(reasoning).toHaveLength(2);
    expect(reasoning.every((m) => m.signature === "TRIMMED_SIGNATURE_BASE64")).toBe(true);
    expect(only(r.events, "tool.completed")).toMatchObject({
      output: "test-msg-delta",
      isError: false,
      result: { stdout: "test-msg-delta" },
    });
  });

  it("ralph_partial_bash_tool_error_2.1.218: failing Bash with a string tool_use_result and exit code 1", () => {
    const r = capture("ralph_partial_bash_tool_error_2.1.218.jsonl");
    noUnknown(r);
    expect(r.summary).toMatchObject({
      status: "success",
      finalText:
        'It failed. The file `/nonexistent-file-xyz-123.txt` doesn\'t exist, so `cat` returned exit code 1 with the error: "No such file or directory".',
      toolCalls: [{ id: "toolu_01HxxioxcUJPkM3D27EXMz8p", name: "Bash", status: "error" }],
      usage: { inputTokens: 18, outputTokens: 283, cacheReadTokens: 47812, cacheWriteTokens: 5141, reasoningTokens: null },
      costUsd: 0.016496200000000003,
      durationMs: 6541,
      turns: 2,
    });
    expect(only(r.events, "tool.completed")).toMatchObject({
      isError: true,
      exitCode: 1,
      output: "Exit code 1\ncat: /nonexistent-file-xyz-123.txt: No such file or directory",
      result: "Error: Exit code 1\ncat: /nonexistent-file-xyz-123.txt: No such file or directory",
    });
  });

  it("switchboard_2.1.198 background agent: second init, two results, the summary takes the last", () => {
    const r = capture("switchboard_2.1.198_partial_background_agent_two_results.jsonl");
    noUnknown(r);
    expect(r.summary).toMatchObject({
      status: "success",
      finalText: "done",
      toolCalls: [{ id: "toolu_0117DAjjgkNKvJSrHGZXVLtS", name: "Agent", status: "success" }],
      usage: { inputTokens: 3299, outputTokens: 3, cacheReadTokens: 33228, cacheWriteTokens: 320, reasoningTokens: null },
      costUsd: 0.1662723,
      durationMs: 3515,
      turns: 1,
      subagents: 1,
    });
    const root = "2494fcf5-e2be-4dad-ad97-6ff407f764f9";
    expect(
      ofType(r.events, "session.completed")
        .filter((s) => s.sessionId === root)
        .map((s) => [s.finalText, s.costUsd]),
    ).toEqual([
      ["waiting", 0.0899829],
      ["done", 0.1662723],
    ]);
    expect(ofType(r.events, "session.started").filter((s) => s.sessionId === root)).toHaveLength(1);
    const childId = "subagent-toolu_0117DAjjgkNKvJSrHGZXVLtS";
    expect(
      ofType(r.events, "message.completed")
        .filter((m) => m.sessionId === childId)
        .map((m) => m.text),
    ).toEqual(["ack"]);
    expect(ofType(r.events, "session.completed").find((s) => s.sessionId === childId)).toMatchObject({
      status: "success",
      finalText: "ack",
      durationMs: 1803,
    });
  });

  it("switchboard_2.1.206 tool vocabulary: TaskCreate, TaskUpdate, Bash, Read, Edit, Write, Grep", () => {
    const r = capture("switchboard_2.1.206_tool_vocabulary_read_edit_write_bash_grep_sanitized.jsonl");
    noUnknown(r);
    expect(r.summary.toolCalls.map((t) => [t.name, t.status])).toEqual([
      ["TaskCreate", "success"],
      ["TaskUpdate", "success"],
      ["Bash", "success"],
      ["Read", "success"],
      ["Edit", "success"],
      ["Write", "success"],
      ["Grep", "success"],
    ]);
    expect(r.summary).toMatchObject({
      finalText: "done",
      usage: { inputTokens: 14, outputTokens: 577, cacheReadTokens: 116830, cacheWriteTokens: 7074, reasoningTokens: null },
      costUsd: 0.08618999999999999,
      durationMs: 14974,
      turns: 7,
    });
    expect(ofType(r.events, "file.changed").map((f) => [f.changes[0]?.path, f.changes[0]?.kind])).toEqual([
      ["/private/tmp/facet-probe/scratch/alpha.txt", "update"],
      ["/private/tmp/facet-probe/scratch/epsilon.txt", "add"],
    ]);
    expect(ofType(r.events, "plan.updated").map((p) => p.items)).toEqual([
      [{ text: "Edit alpha.txt", status: "pending" }],
      [{ text: "Edit alpha.txt", status: "completed" }],
    ]);
  });

  it("yad_2.1.276 five-hour limit: rate_limit rejected, then an error result with the API text", () => {
    const r = capture("yad_2.1.276_five_hour_limit_rejected.jsonl");
    noUnknown(r);
    expect(r.summary).toMatchObject({
      status: "error",
      error: "API Error: Request rejected (429) · You've hit your 5-hour limit · resets 3:30am",
      finalText: null,
      usage: { inputTokens: 10, outputTokens: 44, cacheReadTokens: 13612, cacheWriteTokens: 9391, reasoningTokens: 36 },
      costUsd: 0.0213312,
      durationMs: 1241,
    });
    expect(only(r.events, "rate_limit")).toMatchObject({ status: "rejected", limit: "five_hour" });
    expect(ofType(r.events, "message.completed").map((m) => [m.role, m.text])).toEqual([["user", "Reply with exactly: pong"]]);
  });

  it("yad_2.1.276 prompt too long: synthetic invalid_request assistant → api error, status error", () => {
    const r = capture("yad_2.1.276_prompt_too_long.jsonl");
    noUnknown(r);
    expect(r.summary.status).toBe("error");
    expect(r.summary.error).toMatch(/^Prompt is too long · the request is ~248028 tokens \(limit 200000\)/);
    expect(only(r.events, "error")).toMatchObject({ scope: "api", code: "invalid_request" });
    expect(only(r.events, "session.completed").details).toMatchObject({ terminal_reason: "prompt_too_long", api_error_status: 400 });
  });
});

describe("claude: result status with a terminal_reason from a newer version", () => {
  it("is success when is_error is false and the subtype is success", async () => {
    const { readAll } = await import("../../helpers/read.ts");
    const lines = [
      '{"type":"system","subtype":"init","session_id":"s","model":"m","tools":[],"claude_code_version":"2.1.300","uuid":"u1","cwd":"/w","permissionMode":"default","apiKeySource":"none","mcp_servers":[]}',
      '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","terminal_reason":"some_future_reason","num_turns":1,"uuid":"u2"}',
    ];
    const { summary } = readAll([`${lines.join("\n")}\n`]);
    expect(summary.status).toBe("success");
    expect(summary.finalText).toBe("ok");
  });
});

describe.skipIf(!hasShared)("claude: a capture repeated (ids recur, as in a concatenated log)", () => {
  it("decodes the second copy exactly as the first: per-message state is released, not carried over", () => {
    const bytes = readFileSync(sharedPath("fixtures/claude/ralph_partial_bash_success_2.1.218.jsonl"));
    const once = readAll([bytes], { dialect: claude }).events;
    const twice = readAll([bytes, bytes], { dialect: claude }).events;
    // Messages only: the second copy's system/init is rightly "init again", and a tool_use id seen
    // before is (still) taken as a repeat of the same call.
    const shape = (events: readonly AgentEvent[]): string[] =>
      events.filter((e) => "messageId" in e).map((e) => `${e.type}:${"messageId" in e ? e.messageId : ""}`);
    const first = shape(once);
    expect(shape(twice)).toEqual([...first, ...first]);
  });
});
