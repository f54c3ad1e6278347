import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { claudeSession } from "../../../src/agents/claude/session.ts";
import { detectDialect } from "../../../src/dialects.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { createNdjsonParser, type InputRecord } from "../../../src/framing/ndjson/create-ndjson-parser.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { describeDialect } from "../../../src/testing/index.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { hasShared, sharedPath } from "../../helpers/shared.ts";
import { ofType } from "../../helpers/events.ts";
import { fixturePath } from "../../helpers/fixtures.ts";
import { jsonRecord } from "../../helpers/records.ts";

const capture = (name: string): string => sharedPath("fixtures", "claude-session", name);
const decode = (...records: object[]) => readAll([records.map((r) => `${JSON.stringify(r)}\n`).join("")], { dialect: "claude-session" });

const SID = "5f0c2a9e-0000-4a2b-9c3d-00000000c1a0";
const envelope = { isSidechain: false, userType: "external", cwd: "/w", sessionId: SID, version: "2.1.200", gitBranch: "main" };
const prompt = (uuid: string, content: unknown, extra: object = {}) => ({
  ...envelope,
  parentUuid: null,
  type: "user",
  uuid,
  timestamp: "2026-01-01T00:00:00.000Z",
  message: { role: "user", content },
  ...extra,
});
const reply = (uuid: string, id: string, block: object, usage: object = { input_tokens: 1, output_tokens: 2 }, extra: object = {}) => ({
  ...envelope,
  parentUuid: "u-1",
  type: "assistant",
  uuid,
  timestamp: "2026-01-01T00:00:01.000Z",
  message: { id, type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [block], stop_reason: null, usage },
  ...extra,
});

describe("claude-session detection", () => {
  it.each([
    ["user record (parentUuid + uuid)", prompt("u-1", "hi"), true],
    ["assistant record", reply("a-1", "msg_1", { type: "text", text: "x" }), true],
    ["2.1.223 first record: mode", { type: "mode", mode: "normal", sessionId: SID }, true],
    ["permission-mode", { type: "permission-mode", permissionMode: "default", sessionId: SID }, true],
    ["1.x first record: summary with leafUuid", { type: "summary", summary: "x", leafUuid: "u-9" }, true],
    [
      "file-history-snapshot",
      { type: "file-history-snapshot", messageId: "m", snapshot: { trackedFileBackups: {} }, isSnapshotUpdate: false },
      true,
    ],
    ["queue-operation", { type: "queue-operation", operation: "dequeue", timestamp: "2026-01-01T00:00:00Z", sessionId: SID }, true],
    [
      "attachment",
      { parentUuid: "p", isSidechain: false, type: "attachment", uuid: "t", sessionId: SID, attachment: { type: "goal_status" } },
      true,
    ],
    [
      "system without uuid but with sessionId + isSidechain",
      { type: "system", subtype: "turn_duration", sessionId: SID, isSidechain: false },
      true,
    ],
    ["stream-json system/init", { type: "system", subtype: "init", session_id: SID, cwd: "/w", model: "m", tools: [] }, false],
    [
      "stream-json assistant",
      { type: "assistant", message: { id: "msg_1", content: [] }, parent_tool_use_id: null, session_id: SID, uuid: "x" },
      false,
    ],
    ["stream-json result", { type: "result", subtype: "success", session_id: SID, result: "done" }, false],
    ["summary without leafUuid", { type: "summary", summary: "x" }, false],
    ["mode without sessionId", { type: "mode", mode: "normal" }, false],
    ["gemini session header", { sessionId: SID, projectHash: "ab", startTime: "t", lastUpdated: "t", kind: "main" }, false],
    ["gemini session record", { id: "x", timestamp: "t", type: "user", content: [{ text: "hi" }] }, false],
    ["user record without session fields", { type: "user", message: { role: "user", content: "hi" } }, false],
  ])("%s → %s", (_name, value, expected) => {
    expect(claudeSession.detect(jsonRecord(value))).toBe(expected);
  });

  it("never claims a text line", () => {
    expect(claudeSession.detect({ kind: "text", text: '{"parentUuid":null', line: 1, offset: 0, length: 1 })).toBe(false);
  });

  it("every synthetic fixture is detected as claude-session", () => {
    for (const name of readdirSync(fixturePath("claude-session", "")))
      expect(readFile(fixturePath("claude-session", name)).dialect, name).toBe("claude-session");
  });

  describe.skipIf(!hasShared)("other agents' captures (the first 64 records of each)", () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (!name.endsWith(".meta.json")) files.push(path);
      }
    };
    if (hasShared)
      for (const folder of readdirSync(sharedPath("fixtures")))
        if (folder !== "claude-session" && statSync(sharedPath("fixtures", folder)).isDirectory()) walk(sharedPath("fixtures", folder));
    it.each(files.map((f) => [f.slice(sharedPath("fixtures").length + 1), f]))("%s is not claimed", (_name, path) => {
      const records: InputRecord[] = [];
      const parser = createNdjsonParser({ onRecord: (r) => records.push(r) });
      parser.feed(readFileSync(path));
      parser.end();
      expect(
        records
          .slice(0, 64)
          .filter((r) => claudeSession.detect(r))
          .map((r) => r.line),
      ).toEqual([]);
    });
  });
});

describe("claude-session record shapes", () => {
  it.each([
    [
      "system/api_error with retryAttempt → retry",
      {
        ...envelope,
        type: "system",
        subtype: "api_error",
        uuid: "s",
        parentUuid: "u-1",
        retryAttempt: 3,
        maxRetries: 10,
        retryInMs: 4000,
        error: { status: 529 },
      },
      "retry",
    ],
    [
      "system/api_error without retryAttempt → error",
      { ...envelope, type: "system", subtype: "api_error", uuid: "s", parentUuid: "u-1", content: "API error" },
      "error",
    ],
    [
      "system/turn_duration → metric",
      { ...envelope, type: "system", subtype: "turn_duration", uuid: "s", parentUuid: "u-1", durationMs: 10 },
      "metric",
    ],
    [
      "system/compact_boundary → notice",
      {
        ...envelope,
        type: "system",
        subtype: "compact_boundary",
        uuid: "s",
        parentUuid: null,
        content: "Conversation compacted",
        compactMetadata: { trigger: "manual", preTokens: 9 },
      },
      "notice",
    ],
    [
      "system/microcompact_boundary → notice",
      { ...envelope, type: "system", subtype: "microcompact_boundary", uuid: "s", parentUuid: "u-1" },
      "notice",
    ],
    [
      "system/stop_hook_summary → notice",
      { ...envelope, type: "system", subtype: "stop_hook_summary", uuid: "s", parentUuid: "u-1", hookCount: 1, hookErrors: [] },
      "notice",
    ],
    [
      "attachment/goal_status → notice",
      { ...envelope, type: "attachment", uuid: "t", parentUuid: "u-1", attachment: { type: "goal_status", met: false, condition: "c" } },
      "notice",
    ],
    [
      "attachment/hook_success → notice",
      { ...envelope, type: "attachment", uuid: "t", parentUuid: "u-1", attachment: { type: "hook_success", content: "ok" } },
      "notice",
    ],
    [
      "progress/hook_progress → notice",
      { ...envelope, type: "progress", uuid: "p", parentUuid: "u-1", data: { type: "hook_progress", hookName: "Stop" } },
      "notice",
    ],
    ["summary → notice", { type: "summary", summary: "s", leafUuid: "u-1" }, "notice"],
    ["queue-operation → notice", { type: "queue-operation", operation: "enqueue", content: "x", sessionId: SID }, "notice"],
    ["ai-title → notice", { type: "ai-title", aiTitle: "t", sessionId: SID }, "notice"],
    [
      "assistant redacted_thinking → message.completed",
      reply("a-1", "msg_1", { type: "redacted_thinking", data: "abc" }),
      "message.completed",
    ],
    [
      "assistant server_tool_use → tool.started",
      reply("a-1", "msg_1", { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } }),
      "tool.started",
    ],
    ["assistant unknown block → notice", reply("a-1", "msg_1", { type: "container_upload", file_id: "f" }), "notice"],
    ["user document block → notice", prompt("u-2", [{ type: "document", source: { type: "text", data: "d" } }]), "notice"],
  ])("%s", (_name, record, type) => {
    const { events, issues } = decode(prompt("u-1", "hello"), record);
    expect(events.map((e) => e.type)).toContain(type);
    expect(ofType(events, "unknown")).toEqual([]);
    expect(issues.filter((i) => i.code === "unknown-record")).toEqual([]);
  });

  it("a record type nobody documented is an unknown event and an issue", () => {
    const { events, issues } = decode(prompt("u-1", "hi"), { type: "brand-new-record", sessionId: SID, x: 1 });
    expect(ofType(events, "unknown").map((e) => e.raw)).toEqual([{ type: "brand-new-record", sessionId: SID, x: 1 }]);
    expect(issues.some((i) => i.code === "unknown-record")).toBe(true);
  });

  it("a user record without message content is an unknown event, not a crash", () => {
    const { events } = decode({ ...envelope, parentUuid: null, type: "user", uuid: "u-1" });
    expect(ofType(events, "unknown")).toHaveLength(1);
  });

  it("server tool results inside the assistant message complete the server tool call", () => {
    const { events } = decode(
      prompt("u-1", "search"),
      reply("a-1", "msg_1", { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } }),
      reply("a-2", "msg_1", {
        type: "web_search_tool_result",
        tool_use_id: "srvtoolu_1",
        content: [{ type: "web_search_result", url: "https://x", title: "X" }],
      }),
    );
    expect(ofType(events, "tool.started")[0]).toMatchObject({ toolCallId: "srvtoolu_1", kind: "web_search" });
    expect(ofType(events, "tool.completed")[0]).toMatchObject({ toolCallId: "srvtoolu_1", isError: false });
  });

  it("session.started comes first and carries the model of the first reply", () => {
    const { events } = decode(
      { type: "mode", mode: "normal", sessionId: SID },
      prompt("u-1", "hi"),
      reply("a-1", "msg_1", { type: "text", text: "hello" }),
    );
    expect(events[0]).toMatchObject({
      type: "session.started",
      agent: "claude-code",
      agentVersion: "2.1.200",
      model: "claude-sonnet-4-5",
      cwd: "/w",
      sessionId: SID,
    });
    expect(events.filter((e) => e.type === "session.started")).toHaveLength(1);
    // held events keep their own line
    expect(events.find((e) => e.type === "notice")?.source?.line).toBe(1);
    expect(events.find((e) => e.type === "message.completed" && e.role === "user")?.source?.line).toBe(2);
  });

  it("a session that never replies is released at the end of input, without a model", () => {
    const { events } = decode(prompt("u-1", "hi"));
    expect(events[0]).toMatchObject({ type: "session.started", sessionId: SID });
    expect(events[0]).not.toHaveProperty("model");
    expect(ofType(events, "message.completed")).toHaveLength(1);
  });

  it("holding stops after 512 records even without a model", () => {
    const records = [
      prompt("u-0", "hi"),
      ...Array.from({ length: 600 }, (_, i) => ({ type: "ai-title", aiTitle: `t${i}`, sessionId: SID })),
    ];
    const events: AgentEvent[] = [];
    const decoder = claudeSession.createDecoder();
    let released = -1;
    records.forEach((r, i) => {
      const out = decoder.decode(jsonRecord(r), { line: i + 1, report: () => {} });
      if (out.length > 0 && released < 0) released = i;
      events.push(...(out as AgentEvent[]));
    });
    expect(released).toBeGreaterThan(0);
    expect(released).toBeLessThan(600);
  });
});

describe("claude-session synthetic fixtures", () => {
  it("usage-repeated-per-content-block: one usage per message id, with the last record's figures", () => {
    const { events, summary } = readFile(fixturePath("claude-session", "usage-repeated-per-content-block.ndjson"));
    const usage = ofType(events, "usage");
    expect(usage.map((u) => u.usage.outputTokens)).toEqual([41, 12]);
    expect(usage.every((u) => u.scope === "delta" && u.model === "claude-sonnet-4-5")).toBe(true);
    expect(summary.usage).toEqual({
      inputTokens: 8,
      outputTokens: 53,
      cacheReadTokens: 24841,
      cacheWriteTokens: 860,
      reasoningTokens: null,
    });
    expect(
      ofType(events, "message.completed")
        .filter((m) => m.role === "assistant")
        .map((m) => [m.messageId, m.kind]),
    ).toEqual([
      ["msg_0001#0", "reasoning"],
      ["msg_0001#1", "text"],
      ["msg_0002#0", "text"],
    ]);
    expect(summary.finalText).toBe("There are two files: a.txt and b.txt.");
    expect(summary.status).toBe("ended");
    // No costUSD in the records: estimated from the price table, as `sessions` estimates it.
    expect(summary).toMatchObject({ costUsd: 0.011496, costEstimated: true });
  });

  it("message-id-reappears-after-another: a message id is never counted twice, only its growth", () => {
    const { events, summary } = readFile(fixturePath("claude-session", "message-id-reappears-after-another.ndjson"));
    expect(ofType(events, "usage").map((u) => u.usage.outputTokens)).toEqual([100, 20, 30]);
    expect(summary.usage).toEqual({
      inputTokens: 6,
      outputTokens: 150,
      cacheReadTokens: 10500,
      cacheWriteTokens: 540,
      reasoningTokens: null,
    });
    expect(ofType(events, "message.completed").map((m) => m.messageId)).toEqual(["u-1", "msg_A#0", "msg_B#0", "msg_A#1", "msg_A#2"]);
  });

  it("tool-result-bash-exit-code: structured result, exit code read from the failure text", () => {
    const { events, summary } = readFile(fixturePath("claude-session", "tool-result-bash-exit-code.ndjson"));
    const done = ofType(events, "tool.completed");
    expect(done[0]).toMatchObject({
      toolCallId: "toolu_ok",
      name: "Bash",
      output: "hi",
      isError: false,
      result: { stdout: "hi", stderr: "", interrupted: false },
    });
    expect(done[0]).not.toHaveProperty("exitCode");
    expect(done[1]).toMatchObject({ toolCallId: "toolu_fail", exitCode: 2, isError: true });
    expect(done[1]).not.toHaveProperty("result");
    expect(ofType(events, "tool.started")[0]).toMatchObject({ kind: "command", description: "Say hi" });
    expect(summary.toolCalls).toEqual([
      { id: "toolu_ok", name: "Bash", status: "success" },
      { id: "toolu_fail", name: "Bash", status: "error" },
    ]);
  });

  it("file-edits-structured-patch: Write create and Edit give file.changed, a failed Edit does not", () => {
    const { events } = readFile(fixturePath("claude-session", "file-edits-structured-patch.ndjson"));
    const changes = ofType(events, "file.changed");
    expect(changes).toHaveLength(2);
    expect(changes[0]).toMatchObject({
      toolCallId: "toolu_write",
      status: "success",
      changes: [{ path: "/work/demo/notes.txt", kind: "add", diff: "hello\n" }],
    });
    expect(changes[1]?.changes[0]).toEqual({
      path: "/work/demo/app.js",
      kind: "update",
      diff: "--- /work/demo/app.js\n+++ /work/demo/app.js\n@@ -1,1 +1,1 @@\n-consle.log(1)\n+console.log(1)",
    });
    expect(ofType(events, "tool.completed").find((t) => t.toolCallId === "toolu_edit2")).toMatchObject({ isError: true });
  });

  it("interrupted-at-end: the last turn interrupted ends the session as interrupted", () => {
    const { events, summary } = readFile(fixturePath("claude-session", "interrupted-at-end.ndjson"));
    expect(ofType(events, "notice").map((n) => [n.kind, n.level])).toEqual([["interrupted", "warning"]]);
    expect(events.at(-1)).toMatchObject({
      type: "session.completed",
      status: "interrupted",
      error: "[Request interrupted by user for tool use]",
      time: "2026-01-05T14:00:09.001Z",
    });
    expect(summary.status).toBe("interrupted");
    expect(summary.toolCalls).toEqual([{ id: "toolu_rm", name: "Bash", status: "error" }]);
  });

  it("interrupted-then-continued: an interruption followed by more turns does not end the session", () => {
    const { events, summary } = readFile(fixturePath("claude-session", "interrupted-then-continued.ndjson"));
    expect(ofType(events, "session.completed")).toEqual([]);
    expect(ofType(events, "notice").map((n) => n.kind)).toEqual(["interrupted"]);
    expect(summary.status).toBe("ended");
    expect(summary.finalText).toBe("Essays are short now.");
  });

  it("api-error-rate-limit: the synthetic API-error message is an error and a rate limit, never the final text", () => {
    const { events, summary } = readFile(fixturePath("claude-session", "api-error-rate-limit.ndjson"));
    expect(ofType(events, "error")).toMatchObject([{ scope: "api", code: "rate_limit", message: "You've hit your limit · resets 5pm" }]);
    expect(ofType(events, "rate_limit")).toMatchObject([{ status: "rejected", details: { error: "rate_limit", apiErrorStatus: 429 } }]);
    expect(ofType(events, "usage")).toEqual([]);
    expect(summary).toMatchObject({ status: "error", error: "You've hit your limit · resets 5pm", finalText: null, model: null });
  });

  it("system-records: retries, rate limit, hook summary, turn duration, compaction and commands", () => {
    const { events } = readFile(fixturePath("claude-session", "system-records.ndjson"));
    expect(ofType(events, "retry")).toMatchObject([
      { attempt: 1, maxAttempts: 10, delayMs: 1000, error: "529 overloaded_error" },
      { attempt: 2, maxAttempts: 10, delayMs: 2050.5, error: "429 rate_limit_error" },
    ]);
    expect(ofType(events, "rate_limit")).toHaveLength(1);
    expect(ofType(events, "metric")).toMatchObject([{ name: "turn_duration", values: { durationMs: 5200, messageCount: 4 } }]);
    expect(ofType(events, "notice").map((n) => [n.kind, n.level])).toEqual([
      ["hook", "info"],
      ["compact_boundary", "info"],
      ["command", "info"],
      ["informational", "warning"],
      ["away_summary", "info"],
    ]);
    expect(ofType(events, "notice").find((n) => n.kind === "compact_boundary")?.details).toMatchObject({
      compactMetadata: { trigger: "auto", preTokens: 155000 },
    });
  });

  it("summary-and-metadata-records: every metadata record is a notice, permission mode reaches session.started", () => {
    const { events, issues } = readFile(fixturePath("claude-session", "summary-and-metadata-records.ndjson"));
    expect(events[0]).toMatchObject({ type: "session.started", permissionMode: "acceptEdits", model: "claude-sonnet-4-5" });
    expect(ofType(events, "notice").map((n) => n.kind)).toEqual([
      "summary",
      "queue_operation",
      "mode",
      "permission_mode",
      "file_history_snapshot",
      "title",
      "title",
      "last_prompt",
      "bridge_session",
      "tag",
      "agent_name",
    ]);
    expect(ofType(events, "notice").find((n) => n.kind === "file_history_snapshot")).toMatchObject({
      text: "file history snapshot: 1 file(s)",
      time: "2026-01-05T18:00:00.400Z",
    });
    expect(issues).toEqual([]);
  });

  it("thinking-visible-hidden-redacted: reasoning, redacted_reasoning with signature, redacted_thinking data", () => {
    const { events } = readFile(fixturePath("claude-session", "thinking-visible-hidden-redacted.ndjson"));
    const assistant = ofType(events, "message.completed").filter((m) => m.role === "assistant");
    expect(assistant.map((m) => [m.kind, m.text, m.signature])).toEqual([
      ["reasoning", "Two plus two is four.", "c2lnLXZpc2libGU="],
      ["redacted_reasoning", "", "c2lnLWhpZGRlbg=="],
      ["redacted_reasoning", "", "ZW5jcnlwdGVk"],
      ["text", "Four.", undefined],
    ]);
  });

  it("meta-and-command-wrappers: kept as notices, only the user's own text is a user message", () => {
    const { events, summary } = readFile(fixturePath("claude-session", "meta-and-command-wrappers.ndjson"));
    expect(ofType(events, "notice").map((n) => n.kind)).toEqual(["meta", "command", "command_output", "meta", "image", "compact_summary"]);
    expect(ofType(events, "notice").find((n) => n.kind === "command")?.details).toEqual({ command: "/review", args: "src/" });
    expect(
      ofType(events, "message.completed")
        .filter((m) => m.role === "user")
        .map((m) => m.text),
    ).toEqual(["Here is a screenshot."]);
    expect(summary.finalText).toBe("The screenshot shows no bugs.");
  });

  it("sidechain-inline-task: a 1.x sidechain is a child session linked to its Task call and ended by the Task result", () => {
    const { events, summary } = readFile(fixturePath("claude-session", "sidechain-inline-task.ndjson"));
    const started = ofType(events, "session.started");
    expect(started).toHaveLength(2);
    expect(started[1]).toMatchObject({
      sessionId: "subagent-toolu_task1",
      parentSessionId: "0a1b2c3d-0000-4c00-8000-0000000001a0",
      parentToolCallId: "toolu_task1",
      model: "claude-sonnet-4-20250514",
    });
    const childEvents = events.filter((e) => e.sessionId === "subagent-toolu_task1");
    expect(childEvents.map((e) => e.type)).toContain("tool.completed");
    const childDone = ofType(events, "session.completed");
    expect(childDone).toMatchObject([
      { sessionId: "subagent-toolu_task1", status: "success", finalText: "The config is loaded in src/config.ts.", durationMs: 5000 },
    ]);
    // the child ends before the parent's tool call completes
    expect(events.indexOf(childDone[0] as AgentEvent)).toBeLessThan(
      events.findIndex((e) => e.type === "tool.completed" && e.toolCallId === "toolu_task1"),
    );
    expect(summary).toMatchObject({
      model: "claude-opus-4-1-20250805",
      subagents: 1,
      status: "ended",
      finalText: "It is loaded in src/config.ts.",
    });
    // subagent usage counts: 2 main + 2 sidechain message ids
    expect(summary.usage).toEqual({
      inputTokens: 20,
      outputTokens: 185,
      cacheReadTokens: 41000,
      cacheWriteTokens: 11500,
      reasoningTokens: null,
    });
  });

  it("subagent-file: a 2.x subagent file read on its own is a subagent session", () => {
    const { events, summary } = readFile(fixturePath("claude-session", "subagent-file.ndjson"));
    expect(events[0]).toMatchObject({
      type: "session.started",
      sessionId: `${SID}/agent-a0f1e2d3c4b5a6978`,
      parentSessionId: SID,
      model: "claude-haiku-4-5",
      details: { agentId: "a0f1e2d3c4b5a6978", agentType: "Explore" },
    });
    expect(events[0]).not.toHaveProperty("parentToolCallId");
    expect(events.every((e) => e.sessionId === `${SID}/agent-a0f1e2d3c4b5a6978`)).toBe(true);
    expect(summary.subagents).toBe(1);
    expect(summary.finalText).toBe("README.md describes a demo project.");
  });

  it("attachments-goal-and-hooks: goal met vs cleared (sentinel), hook levels", () => {
    const { events } = readFile(fixturePath("claude-session", "attachments-goal-and-hooks.ndjson"));
    expect(ofType(events, "notice").map((n) => [n.kind, n.level, n.text])).toEqual([
      ["goal_status", "info", "Goal met: make the tests pass (All 42 tests pass.)"],
      ["goal_status", "info", "Goal cleared: make the tests pass"],
      ["hook", "info", "session log saved"],
      ["hook", "warning", "rm is not allowed"],
      ["skill_listing", "info", "- review: Review code"],
    ]);
  });

  it("progress-records: bash_progress of an open call is tool.progress, the rest are notices", () => {
    const { events } = readFile(fixturePath("claude-session", "progress-records.ndjson"));
    expect(ofType(events, "tool.progress")).toMatchObject([{ toolCallId: "toolu_build", output: "cc -o demo demo.c\n", elapsedMs: 3000 }]);
    expect(ofType(events, "notice").map((n) => n.kind)).toEqual(["hook", "agent_progress"]);
    expect(checkSequence(events).filter((i) => i.severity === "error")).toEqual([]);
  });

  it("todo-task-and-mcp-tools: TodoWrite and TaskCreate/TaskUpdate give plans, MCP tools a server", () => {
    const { events } = readFile(fixturePath("claude-session", "todo-task-and-mcp-tools.ndjson"));
    expect(ofType(events, "plan.updated").map((p) => p.items)).toEqual([
      [
        { text: "Read the spec", status: "in_progress" },
        { text: "Write the code", status: "pending" },
      ],
      [{ text: "Ship it", status: "pending" }],
      [{ text: "Ship it", status: "completed" }],
    ]);
    expect(ofType(events, "tool.started").find((t) => t.name === "mcp__github__get_issue")).toMatchObject({
      kind: "mcp",
      server: "github",
    });
    // an MCP result array is the output, not repeated as result
    expect(ofType(events, "tool.completed").find((t) => t.toolCallId === "toolu_mcp")).toEqual(
      expect.objectContaining({ output: "Issue #7: Login fails" }),
    );
    expect(ofType(events, "tool.completed").find((t) => t.toolCallId === "toolu_mcp")).not.toHaveProperty("result");
  });

  it("unknown-record-type: one unknown event, the rest decodes", () => {
    const { events, issues, summary } = readFile(fixturePath("claude-session", "unknown-record-type.ndjson"));
    expect(ofType(events, "unknown")).toHaveLength(1);
    expect(issues.map((i) => i.code)).toEqual(["unknown-record"]);
    expect(summary.finalText).toBe("Hi.");
  });

  it("synthetic-no-response-requested: bookkeeping replies are notices without usage", () => {
    const { events, summary } = readFile(fixturePath("claude-session", "synthetic-no-response-requested.ndjson"));
    expect(ofType(events, "notice").map((n) => [n.kind, n.text])).toEqual([
      ["meta", "Continue from where you left off."],
      ["synthetic_message", "No response requested."],
    ]);
    expect(ofType(events, "usage")).toHaveLength(1);
    expect(summary.finalText).toBe("4");
    expect(summary.status).toBe("ended");
  });

  it("every fixture validates: schema and sequence, nothing left open except never-answered calls", () => {
    for (const name of readdirSync(fixturePath("claude-session", ""))) {
      const { events } = readFile(fixturePath("claude-session", name));
      expect(
        checkSequence(events).filter((i) => i.severity === "error"),
        name,
      ).toEqual([]);
    }
  });
});

describeDialect(
  claudeSession,
  { describe, it, expect },
  { sample: readFileSync(fixturePath("claude-session", "sidechain-inline-task.ndjson"), "utf8") },
);

describe.skipIf(!hasShared)("claude-session real captures", () => {
  it("ccviewer 1.0.98: 167 tool calls (23 failed), 5 linked subagents, usage over 170 unique message ids", () => {
    const { events, summary, dialect } = readFile(capture("ccviewer_1.0.98_orchestrator_todo_app_fe5e1c67.jsonl"));
    expect(dialect).toBe("claude-session");
    expect(summary).toMatchObject({
      agent: "claude-code",
      agentVersion: "1.0.98",
      sessionId: "fe5e1c67-53e7-4862-81ae-d0e013e3270b",
      model: "claude-sonnet-4-20250514",
      status: "ended",
      error: null,
      // `sessions` says ~$2.39 for this session: the same table, the same rule.
      costUsd: 2.393215,
      costEstimated: true,
      subagents: 5,
    });
    expect(summary.finalText).toBe(
      "CLAUDE.md has been created with comprehensive documentation of the TODO app project, including structure, tech stack, features, development commands, and architecture details.",
    );
    expect(summary.toolCalls).toHaveLength(167);
    expect(summary.toolCalls.filter((t) => t.status === "error")).toHaveLength(23);
    const names = new Map<string, number>();
    for (const t of summary.toolCalls) names.set(t.name, (names.get(t.name) ?? 0) + 1);
    expect(Object.fromEntries(names)).toEqual({
      Bash: 61,
      Write: 33,
      Read: 28,
      TodoWrite: 19,
      Edit: 8,
      Task: 5,
      BashOutput: 5,
      KillBash: 3,
      MultiEdit: 3,
      Glob: 2,
    });
    expect(ofType(events, "usage")).toHaveLength(170);
    expect(summary.usage).toEqual({
      inputTokens: 818,
      outputTokens: 51933,
      cacheReadTokens: 3647854,
      cacheWriteTokens: 137976,
      reasoningTokens: null,
    });
    const children = ofType(events, "session.started").filter((s) => s.parentToolCallId !== undefined);
    expect(children.map((s) => s.parentToolCallId)).toEqual([
      "toolu_01LS6tcVd796SbQKmZqeVnWY",
      "toolu_014i9ThHMNShCHocf9xMKasf",
      "toolu_01EbxY94wRUAGyMLj5wh699C",
      "toolu_017rjDpjVPeNFmAEXNTkoP55",
      "toolu_01EPom7jESzNbU8coiKjzVGS",
    ]);
    expect(ofType(events, "session.completed").map((s) => s.status)).toEqual(["success", "success", "success", "success", "success"]);
    expect(ofType(events, "notice").map((n) => n.kind)).toEqual(["summary", "command", "meta"]);
    expect(ofType(events, "plan.updated")).toHaveLength(19);
    expect(ofType(events, "unknown")).toEqual([]);
  });

  it("happy 1.0.51: a refused Write, then interrupted by the user", () => {
    const { summary } = readFile(capture("happy_1.0.51_permission_prompt_interrupted.jsonl"));
    expect(summary).toMatchObject({
      agentVersion: "1.0.51",
      model: "claude-opus-4-20250514",
      status: "interrupted",
      error: "[Request interrupted by user for tool use]",
      finalText: "I'll create a file named `lol.txt` with some dummy data for you.",
      toolCalls: [{ id: "toolu_012zxmcJcS9XBT1g3pbUt1tx", name: "Write", status: "error" }],
      costUsd: 0.122634,
      costEstimated: true,
    });
    // two records of msg_012JP77PLu6spQV3p9Yj2hgN, counted once
    expect(summary.usage).toEqual({
      inputTokens: 4,
      outputTokens: 5,
      cacheReadTokens: 10491,
      cacheWriteTokens: 5678,
      reasoningTokens: null,
    });
  });

  it("happy 1.0.71: the inline Task sidechain is a subagent linked to its Task call", () => {
    const { events, summary } = readFile(capture("happy_1.0.71_task_subagent_websearch_non_sdk.jsonl"));
    expect(summary).toMatchObject({ model: "claude-opus-4-1-20250805", subagents: 1, status: "ended", costUsd: 0.315976 });
    expect(
      summary.finalText?.startsWith("The Task tool successfully searched for and compiled information about TypeScript 5.6 features."),
    ).toBe(true);
    expect(summary.toolCalls.map((t) => [t.name, t.status])).toEqual([
      ["Task", "success"],
      ["WebSearch", "success"],
      ["WebFetch", "success"],
    ]);
    expect(ofType(events, "session.started")[1]).toMatchObject({
      sessionId: "subagent-toolu_01EmKA8FJ7B2Ah9seGxK1Wct",
      parentToolCallId: "toolu_01EmKA8FJ7B2Ah9seGxK1Wct",
      model: "claude-sonnet-4-20250514",
    });
    expect(ofType(events, "session.completed")).toMatchObject([
      { sessionId: "subagent-toolu_01EmKA8FJ7B2Ah9seGxK1Wct", status: "success", durationMs: 72558 },
    ]);
    expect(ofType(events, "tool.completed").find((t) => t.name === "WebSearch")?.durationMs).toBe(30681);
    expect(summary.usage).toEqual({
      inputTokens: 25,
      outputTokens: 1163,
      cacheReadTokens: 78093,
      cacheWriteTokens: 28106,
      reasoningTokens: null,
    });
  });

  it("happy 2.1.153 and 2.1.167: a lone goal_status attachment (cleared vs met)", () => {
    const cleared = readFile(capture("happy_2.1.153_goal_status_cleared.jsonl"));
    expect(ofType(cleared.events, "notice")).toMatchObject([
      { kind: "goal_status", text: "Goal cleared: replace this goal with edited fixture objective" },
    ]);
    expect(cleared.summary).toMatchObject({
      agentVersion: "2.1.153",
      sessionId: "ff668493-8325-49cc-976f-689b779b85a2",
      status: "ended",
      finalText: null,
      model: null,
    });
    const met = readFile(capture("happy_2.1.167_goal_status_completed_remote_mobile.jsonl"));
    expect(ofType(met.events, "notice")[0]?.text.startsWith("Goal met: проанализируй проект (The assistant completed")).toBe(true);
    expect(ofType(met.events, "session.started")[0]?.details).toEqual({
      gitBranch: "fix/mass-cli-fixes-1405-1408",
      entrypoint: "remote_mobile",
    });
  });

  it("happy 2.1.179: a 429 rate limit", () => {
    const { events, summary } = readFile(capture("happy_2.1.179_api_error_rate_limit_429.jsonl"));
    expect(summary).toMatchObject({
      agentVersion: "2.1.179",
      status: "error",
      error: "You've hit your limit · resets Jul 23 at 6pm (America/Los_Angeles)",
      finalText: null,
      model: null,
      toolCalls: [],
      costUsd: null,
    });
    expect(summary.usage).toEqual({
      inputTokens: null,
      outputTokens: null,
      cacheReadTokens: null,
      cacheWriteTokens: null,
      reasoningTokens: null,
    });
    expect(ofType(events, "rate_limit")).toMatchObject([{ status: "rejected", details: { apiErrorStatus: 429, error: "rate_limit" } }]);
  });

  it("ralph 2.1.223 parent: metadata records, five unanswered Agent calls, hidden thinking", () => {
    const { events, summary, issues } = readFile(capture("ralph_2.1.223_interactive_parent_a4731909.jsonl"));
    expect(summary).toMatchObject({
      agentVersion: "2.1.223",
      sessionId: "a4731909-31bc-4ad5-bac9-cd59ee7e0615",
      model: "claude-sonnet-5",
      status: "ended",
      finalText: "I'll stop delegating to sub-agents (that pattern has failed repeatedly) and do the work directly myself now.",
      costUsd: null,
      subagents: 0,
    });
    expect(summary.toolCalls.map((t) => [t.name, t.status])).toEqual(Array.from({ length: 5 }, () => ["Agent", "error"]));
    expect(summary.usage).toEqual({
      inputTokens: 5,
      outputTokens: 12278,
      cacheReadTokens: 61664,
      cacheWriteTokens: 25802,
      reasoningTokens: null,
    });
    expect(events[0]).toMatchObject({
      type: "session.started",
      permissionMode: "bypassPermissions",
      details: { gitBranch: "wt-02-contractor", entrypoint: "cli" },
    });
    expect(ofType(events, "message.completed").filter((m) => m.kind === "redacted_reasoning")).toHaveLength(5);
    expect(ofType(events, "notice").filter((n) => n.kind === "synthetic_message")).toHaveLength(5);
    expect(ofType(events, "unknown")).toEqual([]);
    expect(issues).toEqual([]);
  });

  it("ralph 2.1.223 subagent file: a subagent session on its own, interrupted", () => {
    const { events, summary } = readFile(capture("ralph_2.1.223_interactive_a4731909_subagents/agent-a4ff0e1ce30e00726.jsonl"));
    expect(events[0]).toMatchObject({
      type: "session.started",
      sessionId: "a4731909-31bc-4ad5-bac9-cd59ee7e0615/agent-a4ff0e1ce30e00726",
      parentSessionId: "a4731909-31bc-4ad5-bac9-cd59ee7e0615",
      model: "claude-sonnet-5",
      agentVersion: "2.1.223",
      details: { agentId: "a4ff0e1ce30e00726", agentType: "Explore" },
    });
    expect(summary).toMatchObject({ status: "interrupted", error: "[Request interrupted by user]", subagents: 1, costUsd: null });
    expect(summary.finalText).toBe("I found several plan-related files under `.agent/`. Let me read them.");
    expect(summary.toolCalls).toHaveLength(13);
    expect(summary.toolCalls.every((t) => t.status === "success")).toBe(true);
    expect(summary.toolCalls[0]?.name).toBe("Skill");
    expect(ofType(events, "tool.started").filter((t) => t.kind === "mcp" && t.server === "ralph")).toHaveLength(12);
    expect(summary.usage).toEqual({
      inputTokens: 7,
      outputTokens: 1050,
      cacheReadTokens: 116801,
      cacheWriteTokens: 88427,
      reasoningTokens: null,
    });
  });

  it("switchboard 2.1.206: the transcript of the stream capture's run", () => {
    const { events, summary } = readFile(capture("switchboard_2.1.206_tool_vocabulary_session_sanitized.jsonl"));
    expect(summary).toMatchObject({
      agentVersion: "2.1.206",
      model: "claude-sonnet-5",
      finalText: "done",
      status: "ended",
      costUsd: null,
    });
    expect(summary.toolCalls.map((t) => [t.name, t.status])).toEqual([
      ["TaskCreate", "success"],
      ["TaskUpdate", "success"],
      ["Bash", "success"],
      ["Read", "success"],
      ["Edit", "success"],
      ["Write", "success"],
      ["Bash", "success"],
      ["Grep", "success"],
    ]);
    // 9 unique message ids; msg_facet003 appears again after msg_facet001/002 and is not counted twice
    expect(ofType(events, "usage")).toHaveLength(9);
    expect(summary.usage).toEqual({
      inputTokens: 224,
      outputTokens: 1118,
      cacheReadTokens: 216147,
      cacheWriteTokens: 11226,
      reasoningTokens: null,
    });
    expect(ofType(events, "file.changed").map((f) => f.changes.map((c) => [c.path, c.kind]))).toEqual([
      [["/private/tmp/facet-probe/scratch/alpha.txt", "update"]],
      [["/private/tmp/facet-probe/scratch/epsilon.txt", "add"]],
    ]);
  });

  it("every capture decodes to the claude-session dialect, no unknown event", () => {
    for (const dir of [capture(""), capture("ralph_2.1.223_interactive_a4731909_subagents")]) {
      for (const name of readdirSync(dir)) {
        if (!name.endsWith(".jsonl")) continue;
        const result = readFile(join(dir, name));
        expect(result.dialect, name).toBe("claude-session");
        expect(ofType(result.events, "unknown"), name).toEqual([]);
        expect(
          detectDialect(jsonRecord(JSON.parse(readFileSync(join(dir, name), "utf8").split("\n")[0] as string) as object))?.name,
          name,
        ).toBe("claude-session");
      }
    }
  });
});
