import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { gemini } from "../../../src/agents/gemini/cli.ts";
import { detectDialect } from "../../../src/dialects.ts";
import { validateEvent } from "../../../src/validation/validate-event.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord, textRecord } from "../../helpers/records.ts";

/** Decodes lines with this dialect and no repair stage, so the decoder's own output is checked. */
const decode = (...lines: (object | string)[]) =>
  readAll([`${lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n")}\n`], { dialect: gemini, repair: false });

const T = "2026-03-01T10:00:00.000Z";
const init = { type: "init", timestamp: T, session_id: "s-1", model: "gemini-2.5-pro" };

describe("gemini: detection", () => {
  it.each([
    ["init", jsonRecord(init), true],
    ["tool_use", jsonRecord({ type: "tool_use", timestamp: T, tool_name: "read_file", tool_id: "read_file_1_0", parameters: {} }), true],
    ["tool_result", jsonRecord({ type: "tool_result", timestamp: T, tool_id: "read_file_1_0", status: "success" }), true],
    ["result with stats", jsonRecord({ type: "result", status: "success", stats: { total_tokens: 1 } }), true],
    ["YOLO banner", textRecord("YOLO mode is enabled. All tool calls will be automatically approved."), true],
    ["ripgrep notice", textRecord("Ripgrep is not available. Falling back to GrepTool."), true],
    [
      "API error report",
      textRecord("Error when talking to Gemini API Full report available at: /tmp/x.json ModelNotFoundError: gone"),
      true,
    ],
    ["a Claude result", jsonRecord({ type: "result", subtype: "success", result: "x", session_id: "s" }), false],
    ["an OpenCode tool_use", jsonRecord({ type: "tool_use", timestamp: 1, sessionID: "ses_1", part: {} }), false],
    ["a plain error line", textRecord("Error: something failed"), false],
    ["an Aider banner", textRecord("Aider v0.86.0"), false],
  ])("%s", (_name, record, expected) => {
    expect(gemini.detect(record)).toBe(expected);
  });

  it("the registry picks gemini for an init line and for the YOLO banner", () => {
    expect(detectDialect(jsonRecord(init))?.name).toBe("gemini");
    expect(detectDialect(textRecord("YOLO mode is enabled. All tool calls will be automatically approved."))?.name).toBe("gemini");
  });
});

describe("gemini: record shapes", () => {
  it.each([
    [
      "init → session.started",
      [init],
      [{ type: "session.started", agent: "gemini-cli", model: "gemini-2.5-pro", sessionId: "s-1", time: T }],
    ],
    [
      "user message → a complete user message",
      [{ type: "message", timestamp: T, role: "user", content: "hi\n" }],
      [
        { type: "message.started", role: "user", kind: "text" },
        { type: "message.completed", role: "user", kind: "text", text: "hi\n" },
      ],
    ],
    [
      "assistant message without delta → a complete message",
      [{ type: "message", timestamp: T, role: "assistant", content: "whole" }],
      [
        { type: "message.started", role: "assistant" },
        { type: "message.completed", role: "assistant", text: "whole" },
      ],
    ],
    [
      "error severity warning → notice",
      [{ type: "error", timestamp: T, severity: "warning", message: "Loop detected" }],
      [{ type: "notice", kind: "warning", level: "warning", text: "Loop detected" }],
    ],
    [
      "error severity error → error",
      [{ type: "error", timestamp: T, severity: "error", message: "bad stream" }],
      [{ type: "error", scope: "turn", message: "bad stream" }],
    ],
    [
      "result v0.11 stats → usage without cache",
      [
        {
          type: "result",
          timestamp: T,
          status: "success",
          stats: { total_tokens: 30, input_tokens: 20, output_tokens: 10, duration_ms: 5, tool_calls: 0 },
        },
      ],
      [
        {
          type: "session.completed",
          status: "success",
          usage: { inputTokens: 20, outputTokens: 10, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
          durationMs: 5,
          details: { totalTokens: 30, toolCalls: 0 },
        },
      ],
    ],
    [
      "result FatalCancellationError → interrupted",
      [
        {
          type: "result",
          timestamp: T,
          status: "error",
          error: { type: "FatalCancellationError", message: "Operation cancelled." },
          stats: { total_tokens: 0 },
        },
      ],
      [{ type: "session.completed", status: "interrupted", error: "Operation cancelled." }],
    ],
  ])("%s", (_name, lines, expected) => {
    const { events, issues } = decode(...lines);
    expect(events).toMatchObject(expected);
    expect(events.length).toBe(expected.length);
    expect(issues.filter((i) => i.severity !== "info")).toEqual([]);
  });

  it("an unknown record type is kept as unknown and reported", () => {
    const { events, issues } = decode(init, { type: "thought", timestamp: T, content: "?" });
    expect(ofType(events, "unknown")).toHaveLength(1);
    expect(issues.map((i) => i.code)).toContain("unknown-record");
  });

  it("never throws on odd shapes", () => {
    const { events } = decode(
      { type: "message" },
      { type: "tool_use" },
      { type: "tool_result" },
      { type: "result" },
      { type: "error" },
      { type: "init" },
    );
    for (const event of events) expect(validateEvent(event)).toEqual([]);
  });
});

describe("gemini: synthetic fixtures", () => {
  const read = (name: string) => readFile(fixturePath("gemini", name), { dialect: gemini, repair: false });

  it("deltas-around-tool-call: chunks form one message per run of deltas, closed by the tool call", () => {
    const { events, summary } = read("deltas-around-tool-call.ndjson");
    const completed = ofType(events, "message.completed").filter((m) => m.role === "assistant");
    expect(completed.map((m) => m.text)).toEqual(["I will list the files.", "There are two files."]);
    const firstTool = events.findIndex((e) => e.type === "tool.started");
    expect(events.findIndex((e) => e.type === "message.completed" && e.text === "I will list the files.")).toBeLessThan(firstTool);
    expect(summary.finalText).toBe("There are two files.");
    expect(summary.usage).toEqual({
      inputTokens: 1200,
      outputTokens: 100,
      cacheReadTokens: 800,
      cacheWriteTokens: null,
      reasoningTokens: null,
    });
    expect(ofType(events, "session.completed")[0]?.details).toMatchObject({ models: { "gemini-3-pro-preview": { cached: 800 } } });
    expect(summary.costUsd).toBeNull();
    expect(summary.toolCalls).toEqual([{ id: "list_directory_1772359204000_0", name: "list_directory", status: "success" }]);
  });

  it("late-error-event-then-result-without-error: the error event's message becomes the session error", () => {
    const { events, summary } = read("late-error-event-then-result-without-error.ndjson");
    expect(ofType(events, "error")).toMatchObject([
      { scope: "turn", message: "Model stream ended with an invalid chunk or missing finish reason." },
    ]);
    expect(summary.status).toBe("error");
    expect(summary.error).toBe("Model stream ended with an invalid chunk or missing finish reason.");
  });

  it("warning-error-event-is-a-notice: a warning does not fail the session", () => {
    const { events, summary } = read("warning-error-event-is-a-notice.ndjson");
    expect(ofType(events, "notice")).toMatchObject([{ kind: "warning", level: "warning", text: "Loop detected, stopping execution" }]);
    expect(ofType(events, "error")).toEqual([]);
    expect(summary.status).toBe("success");
  });

  it("yolo-banner-before-json: banner lines are detected as gemini and kept as text", () => {
    const { events, dialect } = readFile(fixturePath("gemini", "yolo-banner-before-json.ndjson"), { repair: false });
    expect(dialect).toBe("gemini");
    expect(ofType(events, "text").map((e) => [e.position, e.text])).toEqual([
      ["preamble", "YOLO mode is enabled. All tool calls will be automatically approved."],
      ["interleaved", "Ripgrep is not available. Falling back to GrepTool."],
    ]);
    expect(events[0]?.type).toBe("text");
  });

  it("api-error-stderr-only: detected, the API error becomes a fatal error, no success", () => {
    const { events, summary, dialect } = readFile(fixturePath("gemini", "api-error-stderr-only.txt"));
    expect(dialect).toBe("gemini");
    expect(ofType(events, "text")).toHaveLength(4);
    expect(ofType(events, "error")).toMatchObject([
      {
        scope: "api",
        fatal: true,
        code: "QuotaExceededError",
        message: "QuotaExceededError: Quota exceeded for quota metric 'Generate Content API requests per minute'.",
      },
    ]);
    expect(summary.status).toBe("incomplete");
    expect(summary.error).toBe("QuotaExceededError: Quota exceeded for quota metric 'Generate Content API requests per minute'.");
  });

  it("tool-errors-file-changes-and-todos: plans, file changes, tool errors and an orphan result", () => {
    const { events, summary } = read("tool-errors-file-changes-and-todos.ndjson");
    expect(ofType(events, "plan.updated")[0]?.items).toEqual([
      { text: "Write the file", status: "in_progress" },
      { text: "Check it", status: "pending" },
      { text: "Old idea", status: "completed" },
    ]);
    expect(ofType(events, "file.changed")).toMatchObject([
      { toolCallId: "write_file-1772359203000-a1b2c3", changes: [{ path: "/tmp/x/notes.txt", kind: "update", diff: "hello\n" }] },
    ]);
    const failed = ofType(events, "tool.completed").find((e) => e.toolCallId === "replace_1772359205000_1");
    expect(failed).toMatchObject({
      isError: true,
      output: "Failed to edit, 0 occurrences found",
      result: { type: "edit_no_occurrence_found" },
    });
    expect(summary.toolCalls.map((t) => [t.name, t.status])).toEqual([
      ["write_todos", "success"],
      ["write_file", "success"],
      ["replace", "error"],
      ["unknown", "error"],
    ]);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });

  it("cut-stream-without-result: end closes the message and the tool, no session.completed", () => {
    const { events, summary } = read("cut-stream-without-result.ndjson");
    expect(ofType(events, "session.completed")).toEqual([]);
    expect(ofType(events, "tool.completed")).toMatchObject([{ toolCallId: "run_shell_command_1772359202000_0", isError: true }]);
    expect(summary.status).toBe("incomplete");
    expect(summary.finalText).toBe("Running it");
  });
});

describeDialect(
  gemini,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("gemini", "deltas-around-tool-call.ndjson"), "utf8") },
);
describeDialect(gemini, { describe, it, expect }, { sample: readFileSync(fixturePath("gemini", "api-error-stderr-only.txt"), "utf8") });

describe.skipIf(!hasShared)("gemini: real captures", () => {
  const capture = (name: string) => readFile(sharedPath("fixtures", "gemini", name));

  it("agentcmd_say_hello: one streamed answer, v0.11 stats", () => {
    const { summary } = capture("agentcmd_say_hello.jsonl");
    expect(summary).toMatchObject({
      dialect: "gemini",
      agent: "gemini-cli",
      model: "gemini-2.5-pro",
      sessionId: "2aa2472d-f175-41f6-a5a9-fd4f42cc345a",
      status: "success",
      error: null,
    });
    expect(summary.finalText).toBe("Hello! I'm ready to help. What can I do for you?");
    expect(summary.toolCalls).toEqual([]);
    expect(summary.usage).toEqual({
      inputTokens: 7352,
      outputTokens: 16,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      reasoningTokens: null,
    });
    expect(summary.costUsd).toBeNull();
    expect(summary.durationMs).toBe(2239);
  });

  it("agentcmd_read_file: read_file with an empty display output", () => {
    const { events, summary } = capture("agentcmd_read_file.jsonl");
    expect(summary.toolCalls).toEqual([{ id: "read_file-1761734190726-4dfc76eb0c846", name: "read_file", status: "success" }]);
    expect(ofType(events, "tool.completed")[0]?.output).toBe("");
    expect(summary.finalText).toBe(
      "The file /private/tmp/gemini-test/sample.txt contains the following:\ntest content from gemini research\n",
    );
    expect(summary.usage.inputTokens).toBe(11068);
    expect(summary.usage.outputTokens).toBe(44);
    expect(summary.durationMs).toBe(7654);
  });

  it("agentcmd_write_file: write_file result without output, file.changed", () => {
    const { events, summary } = capture("agentcmd_write_file.jsonl");
    expect(summary.toolCalls).toEqual([{ id: "write_file-1761734206262-8f3d4cee1f321", name: "write_file", status: "success" }]);
    expect(ofType(events, "file.changed")[0]?.changes).toEqual([
      { path: "/tmp/gemini-test/created.txt", kind: "update", diff: "Hello from Gemini CLI" },
    ]);
    expect(summary.finalText).toBe("Done.\n");
    expect(summary.usage).toMatchObject({ inputTokens: 10902, outputTokens: 24 });
  });

  it("agentcmd_replace_edit: three tools, stats.tool_calls 3", () => {
    const { events, summary } = capture("agentcmd_replace_edit.jsonl");
    expect(summary.toolCalls.map((t) => [t.name, t.status])).toEqual([
      ["read_file", "success"],
      ["replace", "success"],
      ["read_file", "success"],
    ]);
    expect(ofType(events, "file.changed")[0]?.changes).toEqual([{ path: "/private/tmp/gemini-test/created.txt", kind: "update" }]);
    expect(ofType(events, "session.completed")[0]?.details).toMatchObject({ toolCalls: 3, totalTokens: 22257 });
    expect(summary.finalText).toBe("Done.");
    expect(summary.usage).toMatchObject({ inputTokens: 21694, outputTokens: 77 });
    expect(summary.durationMs).toBe(13099);
  });

  it("autocrucible 0.39.1: router model in init, concrete model and cache in stats", () => {
    const { events, summary } = capture("autocrucible_0.39.1_read_file_tool_call.jsonl");
    expect(summary.model).toBe("auto-gemini-3");
    expect(Object.keys(ofType(events, "session.completed")[0]?.details?.models ?? {})).toEqual(["gemini-3.1-pro-preview"]);
    expect(summary.finalText).toBe("`test.py` 的內容如下：\n\n```python\nx = 1\n```");
    expect(summary.toolCalls).toEqual([{ id: "read_file_1777177753115_0", name: "read_file", status: "success" }]);
    expect(summary.usage).toEqual({
      inputTokens: 12988,
      outputTokens: 42,
      cacheReadTokens: 5817,
      cacheWriteTokens: null,
      reasoningTokens: null,
    });
    expect(summary.durationMs).toBe(12605);
  });

  it("switchboard 0.42.0 tool use: update_topic beside read_file, two tool_use before both results", () => {
    const { summary } = capture("switchboard_0.42.0_tool_use_update_topic_sanitized_ids.jsonl");
    expect(summary.toolCalls).toEqual([
      { id: "update_topic_1779056026792_0", name: "update_topic", status: "success" },
      { id: "read_file_1779056026793_1", name: "read_file", status: "success" },
    ]);
    expect(summary.finalText).toBe("SWITCHBOARD_GEMINI_PROBE_TOOL_5F8A21");
    expect(summary.usage).toEqual({
      inputTokens: 20525,
      outputTokens: 100,
      cacheReadTokens: 7559,
      cacheWriteTokens: null,
      reasoningTokens: null,
    });
    expect(summary.durationMs).toBe(2855);
    expect(summary.status).toBe("success");
  });

  it("switchboard 0.42.0 invalid model: the result's error object", () => {
    const { summary } = capture("switchboard_0.42.0_error_invalid_model_result_error.jsonl");
    expect(summary).toMatchObject({
      model: "does-not-exist-model",
      status: "error",
      error: "[API Error: Requested entity was not found.]",
      finalText: null,
      toolCalls: [],
    });
    expect(summary.usage).toMatchObject({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0 });
    expect(summary.durationMs).toBe(0);
  });

  it("switchboard 0.42.0 stderr only: detected as gemini, the ModelNotFoundError is visible, no success", () => {
    const { events, summary, dialect } = capture("switchboard_0.42.0_error_invalid_model.stderr.txt");
    expect(dialect).toBe("gemini");
    expect(ofType(events, "text")).toHaveLength(16);
    expect(ofType(events, "error")).toMatchObject([
      { scope: "api", fatal: true, code: "ModelNotFoundError", message: "ModelNotFoundError: Requested entity was not found." },
    ]);
    expect(summary.status).toBe("incomplete");
    expect(summary.error).toBe("ModelNotFoundError: Requested entity was not found.");
  });
});
