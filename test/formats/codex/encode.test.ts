/**
 * `--to codex`: the mapping table, the validator's rules (each with a stream that breaks it), every capture read back
 * through our own `codex` dialect, and the peer proof: @openai/codex-sdk's Thread.run(), pointed at a stand-in
 * binary that prints our output, returns the final answer, tool items and usage of our summary.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Codex, type ThreadItem, type Usage as SdkUsage } from "@openai/codex-sdk";
import { fc, test } from "../../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { codex } from "../../../src/agents/codex/exec.ts";
import type { AgentEvent, AgentEventDraft, Usage } from "../../../src/model/events.ts";
import type { SessionSummary } from "../../../src/summary/summarize.ts";
import { codexItemTypeFor, PLACEHOLDER_THREAD_ID } from "../../../src/formats/codex/encode.ts";
import { convertEvents, readBack, records, sources, validateFormat, validateRecords } from "../../helpers/convert.ts";
import { readFile } from "../../helpers/read.ts";
import { hasShared, noteSharedMissing, repoRoot } from "../../helpers/shared.ts";
import { tempDir } from "../../helpers/temp.ts";

/** Stamps drafts with the envelope, as the pipeline does. */
const stream = (...drafts: AgentEventDraft[]): AgentEvent[] => drafts.map((d, seq) => ({ ...d, v: 1, seq }) as AgentEvent);
const toCodex = (events: readonly AgentEvent[]): Record<string, unknown>[] => records(convertEvents(events, "codex"));
const usage = (input: number, output: number, cached: number | null = null): Usage => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cached,
  cacheWriteTokens: null,
  reasoningTokens: null,
});
const codexUsage = (u: Usage) => ({
  input_tokens: u.inputTokens ?? 0,
  cached_input_tokens: u.cacheReadTokens ?? 0,
  cache_write_input_tokens: u.cacheWriteTokens ?? 0,
  output_tokens: u.outputTokens ?? 0,
  reasoning_output_tokens: u.reasoningTokens ?? 0,
});

const START: AgentEventDraft = { type: "session.started", agent: "claude-code", sessionId: "s1" };
const THREAD = { type: "thread.started", thread_id: "s1" };
const TURN = { type: "turn.started" };
const ZERO = { type: "turn.completed", usage: codexUsage(usage(0, 0)) };
const DONE: AgentEventDraft = { type: "session.completed", status: "success" };
const say = (id: string, text: string, extra: Partial<AgentEventDraft> = {}): AgentEventDraft =>
  ({ type: "message.completed", messageId: id, role: "assistant", kind: "text", text, ...extra }) as AgentEventDraft;

describe("codex mapping", () => {
  it.each<[string, AgentEventDraft[], Record<string, unknown>[]]>([
    ["session.started → thread.started with the session id", [START], [THREAD]],
    [
      "no session id → the placeholder thread id, opened by the first line",
      [say("m", "hi")],
      [
        { type: "thread.started", thread_id: PLACEHOLDER_THREAD_ID },
        TURN,
        { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "hi" } },
        ZERO,
      ],
    ],
    [
      "assistant text and reasoning → agent_message and reasoning items; deltas are not written",
      [
        START,
        { type: "message.started", messageId: "r", role: "assistant", kind: "reasoning" },
        { type: "message.delta", role: "assistant", kind: "reasoning", messageId: "r", text: "think", position: 0 },
        { type: "message.completed", messageId: "r", role: "assistant", kind: "reasoning", text: "think" },
        say("a", "answer"),
        DONE,
      ],
      [
        THREAD,
        TURN,
        { type: "item.completed", item: { id: "item_0", type: "reasoning", text: "think" } },
        { type: "item.completed", item: { id: "item_1", type: "agent_message", text: "answer" } },
        ZERO,
      ],
    ],
    [
      "blank text, redacted reasoning, user and system messages → nothing",
      [
        START,
        say("a", "  "),
        { type: "message.completed", messageId: "x", role: "assistant", kind: "redacted_reasoning", text: "" },
        { type: "message.completed", messageId: "u", role: "user", kind: "text", text: "prompt" },
        { type: "message.completed", messageId: "y", role: "system", kind: "text", text: "sys" },
      ],
      [THREAD],
    ],
    [
      "a plan-channel message → a plan item",
      [START, say("p", "1. do it", { channel: "plan" }), say("a", "ok"), DONE],
      [
        THREAD,
        TURN,
        { type: "item.completed", item: { id: "item_0", type: "plan", text: "1. do it" } },
        { type: "item.completed", item: { id: "item_1", type: "agent_message", text: "ok" } },
        ZERO,
      ],
    ],
    [
      "a command → command_execution started (exit_code null) then completed with output and exit code",
      [
        START,
        { type: "tool.started", toolCallId: "t", name: "Bash", kind: "command", input: { command: "ls" } },
        { type: "tool.completed", toolCallId: "t", output: "a\n", exitCode: 0, isError: false },
        DONE,
      ],
      [
        THREAD,
        TURN,
        {
          type: "item.started",
          item: { id: "item_0", type: "command_execution", command: "ls", aggregated_output: "", exit_code: null, status: "in_progress" },
        },
        {
          type: "item.completed",
          item: { id: "item_0", type: "command_execution", command: "ls", aggregated_output: "a\n", exit_code: 0, status: "completed" },
        },
        ZERO,
      ],
    ],
    [
      "a failed command without an exit code → status failed, no exit_code invented; argv joined",
      [
        START,
        { type: "tool.started", toolCallId: "t", name: "shell", kind: "command", input: { command: ["bash", "-lc", "false"] } },
        { type: "tool.completed", toolCallId: "t", isError: true },
        DONE,
      ],
      [
        THREAD,
        TURN,
        {
          type: "item.started",
          item: {
            id: "item_0",
            type: "command_execution",
            command: "bash -lc false",
            aggregated_output: "",
            exit_code: null,
            status: "in_progress",
          },
        },
        {
          type: "item.completed",
          item: { id: "item_0", type: "command_execution", command: "bash -lc false", aggregated_output: "", status: "failed" },
        },
        ZERO,
      ],
    ],
    [
      "streamed arguments: item.started waits for them; progress output is the fallback output",
      [
        START,
        { type: "tool.started", toolCallId: "t", name: "Bash", kind: "command" },
        { type: "tool.input.delta", toolCallId: "t", text: '{"command":' },
        { type: "tool.input.delta", toolCallId: "t", text: '"make"}' },
        { type: "tool.progress", toolCallId: "t", output: "ok " },
        { type: "tool.progress", toolCallId: "t", output: "done" },
        { type: "tool.completed", toolCallId: "t", exitCode: 0, isError: false },
        DONE,
      ],
      [
        THREAD,
        TURN,
        {
          type: "item.started",
          item: { id: "item_0", type: "command_execution", command: "make", aggregated_output: "", exit_code: null, status: "in_progress" },
        },
        {
          type: "item.completed",
          item: {
            id: "item_0",
            type: "command_execution",
            command: "make",
            aggregated_output: "ok done",
            exit_code: 0,
            status: "completed",
          },
        },
        ZERO,
      ],
    ],
    [
      "a file edit and its file.changed → one file_change item with the reported change and diff",
      [
        START,
        {
          type: "tool.started",
          toolCallId: "e",
          name: "Edit",
          kind: "file_edit",
          input: { file_path: "/a.ts", old_string: "x", new_string: "y" },
        },
        { type: "tool.completed", toolCallId: "e", output: "updated", isError: false },
        { type: "file.changed", toolCallId: "e", changes: [{ path: "/a.ts", kind: "update", diff: "@@ -1 +1 @@" }], status: "success" },
        DONE,
      ],
      [
        THREAD,
        TURN,
        {
          type: "item.started",
          item: { id: "item_0", type: "file_change", changes: [{ path: "/a.ts", kind: "update" }], status: "in_progress" },
        },
        {
          type: "item.completed",
          item: {
            id: "item_0",
            type: "file_change",
            changes: [{ path: "/a.ts", kind: "update", diff: "@@ -1 +1 @@" }],
            status: "completed",
          },
        },
        ZERO,
      ],
    ],
    [
      "a file write with no file.changed → add; a failed one → status failed",
      [
        START,
        { type: "tool.started", toolCallId: "w", name: "Write", kind: "file_write", input: { file_path: "/n.txt", content: "x" } },
        { type: "tool.completed", toolCallId: "w", output: "denied", isError: true },
        DONE,
      ],
      [
        THREAD,
        TURN,
        {
          type: "item.started",
          item: { id: "item_0", type: "file_change", changes: [{ path: "/n.txt", kind: "add" }], status: "in_progress" },
        },
        {
          type: "item.completed",
          item: { id: "item_0", type: "file_change", changes: [{ path: "/n.txt", kind: "add" }], status: "failed" },
        },
        ZERO,
      ],
    ],
    [
      "a rename is an update of its old path",
      [START, { type: "file.changed", changes: [{ path: "/old", kind: "rename", newPath: "/new" }] }, DONE],
      [
        THREAD,
        TURN,
        {
          type: "item.completed",
          item: { id: "item_0", type: "file_change", changes: [{ path: "/old", kind: "update" }], status: "completed" },
        },
        ZERO,
      ],
    ],
    [
      "an MCP tool → mcp_tool_call with its server, text output and structured result",
      [
        START,
        { type: "tool.started", toolCallId: "m", name: "lean_goals", kind: "mcp", server: "lean", input: { line: 3 } },
        { type: "tool.completed", toolCallId: "m", output: "⊢ goal", result: { goals: 1 }, isError: false },
        DONE,
      ],
      [
        THREAD,
        TURN,
        {
          type: "item.started",
          item: {
            id: "item_0",
            type: "mcp_tool_call",
            server: "lean",
            tool: "lean_goals",
            arguments: { line: 3 },
            result: null,
            error: null,
            status: "in_progress",
          },
        },
        {
          type: "item.completed",
          item: {
            id: "item_0",
            type: "mcp_tool_call",
            server: "lean",
            tool: "lean_goals",
            arguments: { line: 3 },
            result: { content: [{ type: "text", text: "⊢ goal" }], structured_content: { goals: 1 } },
            error: null,
            status: "completed",
          },
        },
        ZERO,
      ],
    ],
    [
      "a failed tool of another kind → mcp_tool_call on the agent's server with error.message",
      [
        START,
        { type: "tool.started", toolCallId: "r", name: "Read", kind: "file_read", input: { file_path: "/x" } },
        { type: "tool.completed", toolCallId: "r", output: "no such file", isError: true },
        DONE,
      ],
      [
        THREAD,
        TURN,
        {
          type: "item.started",
          item: {
            id: "item_0",
            type: "mcp_tool_call",
            server: "claude-code",
            tool: "Read",
            arguments: { file_path: "/x" },
            result: null,
            error: null,
            status: "in_progress",
          },
        },
        {
          type: "item.completed",
          item: {
            id: "item_0",
            type: "mcp_tool_call",
            server: "claude-code",
            tool: "Read",
            arguments: { file_path: "/x" },
            result: null,
            error: { message: "no such file" },
            status: "failed",
          },
        },
        ZERO,
      ],
    ],
    [
      "a web search → web_search with its query",
      [
        START,
        { type: "tool.started", toolCallId: "w", name: "WebSearch", kind: "web_search", input: { query: "vitest 4" } },
        { type: "tool.completed", toolCallId: "w", output: "results", isError: false },
        DONE,
      ],
      [
        THREAD,
        TURN,
        { type: "item.started", item: { id: "item_0", type: "web_search", query: "vitest 4" } },
        { type: "item.completed", item: { id: "item_0", type: "web_search", query: "vitest 4" } },
        ZERO,
      ],
    ],
    [
      "plans → one todo_list: started, updated, completed when the turn ends",
      [
        START,
        { type: "plan.updated", items: [{ text: "a", status: "in_progress" }] },
        {
          type: "plan.updated",
          items: [
            { text: "a", status: "completed" },
            { text: "b", status: "pending" },
          ],
        },
        DONE,
      ],
      [
        THREAD,
        TURN,
        { type: "item.started", item: { id: "item_0", type: "todo_list", items: [{ text: "a", completed: false }] } },
        {
          type: "item.updated",
          item: {
            id: "item_0",
            type: "todo_list",
            items: [
              { text: "a", completed: true },
              { text: "b", completed: false },
            ],
          },
        },
        {
          type: "item.completed",
          item: {
            id: "item_0",
            type: "todo_list",
            items: [
              { text: "a", completed: true },
              { text: "b", completed: false },
            ],
          },
        },
        ZERO,
      ],
    ],
    [
      "usage: the session's total wins over per-turn and cumulative figures; null becomes 0",
      [
        START,
        { type: "turn.started", turnId: "1" },
        { type: "turn.completed", turnId: "1", usage: usage(1, 1) },
        { type: "usage", usage: usage(5, 5), scope: "cumulative" },
        { ...DONE, usage: usage(10, 20, 30) },
      ],
      [THREAD, TURN, { type: "turn.completed", usage: codexUsage(usage(10, 20, 30)) }],
    ],
    [
      "usage without a session total: the last cumulative figure, else turns plus deltas",
      [START, { type: "turn.completed", turnId: "1", usage: usage(1, 2) }, { type: "usage", usage: usage(3, 4), scope: "delta" }, DONE],
      [THREAD, TURN, { type: "turn.completed", usage: codexUsage(usage(4, 6)) }],
    ],
    [
      "a failed session → turn.failed with its error",
      [START, { type: "turn.started", turnId: "1" }, { type: "session.completed", status: "error", error: "quota" }],
      [THREAD, TURN, { type: "turn.failed", error: { message: "quota" } }],
    ],
    [
      "an interrupted session without a reason → turn.failed naming the status",
      [START, { type: "session.completed", status: "interrupted" }],
      [THREAD, TURN, { type: "turn.failed", error: { message: "session interrupted" } }],
    ],
    [
      "errors → top-level error; retries in Codex's reconnect wording",
      [
        START,
        { type: "error", scope: "api", message: "overloaded" },
        { type: "retry", attempt: 1, maxAttempts: 5, error: "stream closed" },
        { type: "retry", attempt: 2, error: "Reconnecting... 2/5 (x)" },
      ],
      [
        THREAD,
        { type: "error", message: "overloaded" },
        { type: "error", message: "Reconnecting... 1/5 (stream closed)" },
        { type: "error", message: "Reconnecting... 2/5 (x)" },
      ],
    ],
    [
      "warnings and rejected rate limits → error items (outside a turn, as Codex writes them); info notices → nothing",
      [
        START,
        { type: "notice", kind: "warning", level: "warning", text: "hooks loaded twice" },
        { type: "notice", kind: "hook", level: "info", text: "ran hook" },
        { type: "rate_limit", status: "rejected", limit: "five_hour", resetsAt: "2026-01-01T00:00:00Z" },
        { type: "rate_limit", status: "allowed" },
      ],
      [
        THREAD,
        { type: "item.completed", item: { id: "item_0", type: "error", message: "hooks loaded twice" } },
        {
          type: "item.completed",
          item: { id: "item_1", type: "error", message: "rate limit rejected (five_hour) until 2026-01-01T00:00:00Z" },
        },
      ],
    ],
    [
      "metric, heartbeat, text, repair and unknown events → nothing",
      [
        START,
        { type: "metric", name: "m", values: {} },
        { type: "heartbeat" },
        { type: "text", text: "banner", position: "preamble" },
        { type: "repair", kind: "duplicate-delta", removedChars: 1, message: "x" },
        { type: "unknown", raw: { a: 1 } },
      ],
      [THREAD],
    ],
  ])("%s", (_name, drafts, expected) => {
    expect(toCodex(stream(...drafts))).toEqual(expected);
  });
});

describe("codex writer on odd sequences", () => {
  it.each<[string, AgentEventDraft[], Record<string, unknown>[]]>([
    [
      "tool.completed with no tool.started → item.completed directly",
      [START, { type: "tool.completed", toolCallId: "x", name: "Grep", output: "hit", isError: false }, DONE],
      [
        THREAD,
        TURN,
        {
          type: "item.completed",
          item: {
            id: "item_0",
            type: "mcp_tool_call",
            server: "claude-code",
            tool: "Grep",
            arguments: null,
            result: { content: [{ type: "text", text: "hit" }], structured_content: null },
            error: null,
            status: "completed",
          },
        },
        ZERO,
      ],
    ],
    [
      "a tool that never completes → failed when the turn ends; a late completion is dropped",
      [
        START,
        { type: "tool.started", toolCallId: "t", name: "Bash", kind: "command", input: { command: "sleep" } },
        DONE,
        { type: "tool.completed", toolCallId: "t", isError: false },
      ],
      [
        THREAD,
        TURN,
        {
          type: "item.started",
          item: {
            id: "item_0",
            type: "command_execution",
            command: "sleep",
            aggregated_output: "",
            exit_code: null,
            status: "in_progress",
          },
        },
        {
          type: "item.completed",
          item: {
            id: "item_0",
            type: "command_execution",
            command: "sleep",
            aggregated_output: "the tool call did not complete",
            status: "failed",
          },
        },
        ZERO,
      ],
    ],
    [
      "input ends mid-turn → turn.completed at end()",
      [START, { type: "turn.started", turnId: "1" }, say("a", "partial")],
      [THREAD, TURN, { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "partial" } }, ZERO],
    ],
    [
      "input ends after a fatal error → turn.failed at end()",
      [START, say("a", "working"), { type: "error", scope: "session", message: "killed", fatal: true }],
      [
        THREAD,
        TURN,
        { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "working" } },
        { type: "error", message: "killed" },
        { type: "turn.failed", error: { message: "killed" } },
      ],
    ],
    [
      "deltas whose message never completes → an agent_message when the turn ends",
      [
        START,
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "Hel", position: 0 },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "lo", position: 3 },
        DONE,
      ],
      [THREAD, TURN, { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "Hello" } }, ZERO],
    ],
    [
      "a subagent speaks after the final answer → the final answer is repeated last, so it stays the SDK's finalResponse",
      [
        START,
        { type: "session.started", sessionId: "sub", parentSessionId: "s1" },
        say("a", "final", { sessionId: "s1" }),
        say("b", "subagent note", { sessionId: "sub" }),
        { ...DONE, sessionId: "s1", finalText: "final" },
      ],
      [
        THREAD,
        TURN,
        { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "final" } },
        { type: "item.completed", item: { id: "item_1", type: "agent_message", text: "subagent note" } },
        { type: "item.completed", item: { id: "item_2", type: "agent_message", text: "final" } },
        ZERO,
      ],
    ],
    [
      "a subagent's session.completed and turns do not end the parent's turn",
      [
        START,
        { type: "session.started", sessionId: "sub", parentToolCallId: "task" },
        say("a", "x", { sessionId: "sub" }),
        { type: "turn.started", turnId: "st", sessionId: "sub" },
        { ...DONE, sessionId: "sub" },
        { ...DONE, sessionId: "s1" },
      ],
      [THREAD, TURN, { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "x" } }, ZERO],
    ],
    [
      "a new prompt after activity starts a new turn; events after session.completed open another",
      [
        START,
        say("a", "one"),
        { type: "message.completed", messageId: "u", role: "user", kind: "text", text: "again" },
        say("b", "two"),
        DONE,
        say("c", "three"),
        DONE,
      ],
      [
        THREAD,
        TURN,
        { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "one" } },
        ZERO,
        TURN,
        { type: "item.completed", item: { id: "item_1", type: "agent_message", text: "two" } },
        ZERO,
        TURN,
        { type: "item.completed", item: { id: "item_2", type: "agent_message", text: "three" } },
        ZERO,
      ],
    ],
    [
      "a second root session continues the one thread",
      [START, say("a", "one"), DONE, { ...START, sessionId: "s2" }],
      [THREAD, TURN, { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "one" } }, ZERO],
    ],
    [
      "a file.changed of a tool that is not a file tool → its own file_change item",
      [
        START,
        { type: "tool.started", toolCallId: "b", name: "Bash", kind: "command", input: { command: "sed -i s/a/b/ f" } },
        { type: "file.changed", toolCallId: "b", changes: [{ path: "f", kind: "update" }] },
        { type: "tool.completed", toolCallId: "b", exitCode: 0, isError: false },
        DONE,
      ],
      [
        THREAD,
        TURN,
        {
          type: "item.started",
          item: {
            id: "item_0",
            type: "command_execution",
            command: "sed -i s/a/b/ f",
            aggregated_output: "",
            exit_code: null,
            status: "in_progress",
          },
        },
        {
          type: "item.completed",
          item: { id: "item_1", type: "file_change", changes: [{ path: "f", kind: "update" }], status: "completed" },
        },
        {
          type: "item.completed",
          item: {
            id: "item_0",
            type: "command_execution",
            command: "sed -i s/a/b/ f",
            aggregated_output: "",
            exit_code: 0,
            status: "completed",
          },
        },
        ZERO,
      ],
    ],
  ])("%s", (_name, drafts, expected) => {
    const events = stream(...drafts);
    expect(toCodex(events)).toEqual(expected);
    expect(validateFormat("codex", convertEvents(events, "codex"))).toEqual([]);
  });

  const anyEvent = fc.constantFrom<AgentEventDraft>(
    START,
    { type: "session.started", sessionId: "sub", parentSessionId: "s1" },
    DONE,
    { type: "session.completed", status: "error", error: "boom" },
    { type: "session.completed", status: "success", sessionId: "sub" },
    { type: "turn.started", turnId: "t" },
    { type: "turn.completed", turnId: "t", status: "error", error: "x" },
    { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
    { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "a", position: 0 },
    say("m", "a"),
    say("n", "b", { sessionId: "sub" }),
    { type: "message.completed", messageId: "u", role: "user", kind: "text", text: "go" },
    { type: "tool.started", toolCallId: "c", name: "Bash", kind: "command" },
    { type: "tool.input.delta", toolCallId: "c", text: '{"command":"ls"}' },
    { type: "tool.progress", toolCallId: "c", output: "o" },
    { type: "tool.completed", toolCallId: "c", isError: false, exitCode: 0 },
    { type: "tool.started", toolCallId: "e", name: "Edit", kind: "file_edit", input: { file_path: "/f" } },
    { type: "tool.completed", toolCallId: "e", isError: false },
    { type: "file.changed", toolCallId: "e", changes: [{ path: "/f", kind: "update" }] },
    { type: "file.changed", changes: [{ path: "/g", kind: "add" }] },
    { type: "tool.started", toolCallId: "m1", name: "q", kind: "mcp", server: "s", input: {} },
    { type: "tool.completed", toolCallId: "m1", isError: true, output: "no" },
    { type: "plan.updated", items: [{ text: "a", status: "pending" }] },
    { type: "usage", usage: usage(1, 1), scope: "delta" },
    { type: "error", scope: "session", message: "fatal", fatal: true },
    { type: "notice", kind: "warning", level: "warning", text: "w" },
    { type: "retry", attempt: 1 },
  );
  test.prop([fc.array(anyEvent, { maxLength: 40 })], { numRuns: 300 })(
    "any sequence of events gives a valid Codex stream, never a throw",
    (drafts) => {
      expect(validateFormat("codex", convertEvents(stream(...drafts), "codex"))).toEqual([]);
    },
  );
});

describe("codex validator rejects", () => {
  const item = (phase: string, value: Record<string, unknown>) => ({ type: phase, item: value });
  const msg = { id: "item_0", type: "agent_message", text: "hi" };
  const cmd = (status: string) => ({
    id: "item_1",
    type: "command_execution",
    command: "ls",
    aggregated_output: "",
    exit_code: status === "in_progress" ? null : 0,
    status,
  });
  const OK_TURN = { type: "turn.completed", usage: { input_tokens: 1, cached_input_tokens: 0, output_tokens: 1 } };
  it.each<[string, object[], string]>([
    ["thread.started without thread_id", [{ type: "thread.started" }], "thread_id"],
    ["an unknown event type", [THREAD, { type: "turn.paused" }], "must be one of"],
    ["a field the event does not have", [THREAD, { type: "turn.started", id: 1 }], "does not allow"],
    ["turn.completed without usage", [THREAD, TURN, { type: "turn.completed" }], "usage"],
    [
      "negative token counts",
      [THREAD, TURN, { type: "turn.completed", usage: { input_tokens: -1, cached_input_tokens: 0, output_tokens: 1 } }],
      "input_tokens",
    ],
    ["an unknown item type", [THREAD, TURN, item("item.completed", { id: "i", type: "thought", text: "x" })], "must be one of"],
    ["an item without id", [THREAD, TURN, item("item.completed", { type: "agent_message", text: "x" })], "id"],
    [
      "a command without status",
      [THREAD, TURN, item("item.completed", { id: "i", type: "command_execution", command: "ls", aggregated_output: "" })],
      "status",
    ],
    [
      "a file change of an unknown kind",
      [THREAD, TURN, item("item.completed", { id: "i", type: "file_change", changes: [{ path: "a", kind: "move" }], status: "completed" })],
      "kind",
    ],
    ["turn.failed without a message", [THREAD, TURN, { type: "turn.failed", error: {} }], "message"],
    ["a stream that does not start with thread.started", [TURN, OK_TURN], "thread.started comes first"],
    ["thread.started later in the stream", [{ type: "error", message: "x" }, THREAD], "not the first line"],
    ["two thread.started", [THREAD, THREAD], "a second thread.started"],
    ["turn.started inside a turn", [THREAD, TURN, TURN], "while a turn is open"],
    ["turn.completed with no turn", [THREAD, OK_TURN], "without an open turn"],
    ["turn.failed with no turn", [THREAD, { type: "turn.failed", error: { message: "x" } }], "without an open turn"],
    ["an item outside a turn", [THREAD, item("item.completed", msg)], "outside a turn"],
    [
      "an item started twice",
      [THREAD, TURN, item("item.started", cmd("in_progress")), item("item.started", cmd("in_progress"))],
      "started again",
    ],
    ["item.updated for an item that never started", [THREAD, TURN, item("item.updated", cmd("in_progress"))], "never started"],
    [
      "item.updated after item.completed",
      [
        THREAD,
        TURN,
        item("item.started", cmd("in_progress")),
        item("item.completed", cmd("completed")),
        item("item.updated", cmd("in_progress")),
      ],
      "after its item.completed",
    ],
    ["an item completed twice", [THREAD, TURN, item("item.completed", msg), item("item.completed", msg)], "completed twice"],
    [
      "an id reused for another item type",
      [THREAD, TURN, item("item.started", cmd("in_progress")), item("item.completed", { id: "item_1", type: "agent_message", text: "x" })],
      "an id names one item",
    ],
    ["turn.completed while an item runs", [THREAD, TURN, item("item.started", cmd("in_progress")), OK_TURN], "still in progress"],
    ["a stream cut inside a turn (warning)", [THREAD, TURN], "ended inside a turn"],
  ])("%s", (_name, values, message) => {
    const issues = validateRecords("codex", values);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.map((i) => i.message).join("\n")).toContain(message);
  });

  it("accepts a well-formed stream with warnings before the turn", () => {
    expect(
      validateRecords("codex", [
        THREAD,
        item("item.completed", { id: "w", type: "error", message: "warn" }),
        TURN,
        item("item.started", cmd("in_progress")),
        item("item.completed", cmd("completed")),
        item("item.completed", msg),
        OK_TURN,
      ]),
    ).toEqual([]);
  });
});

noteSharedMissing();
const currentFormatCaptures = hasShared ? sources().filter(([name]) => name.startsWith("codex/") && !name.startsWith("codex/legacy_")) : [];
describe.skipIf(!hasShared)("real Codex captures (0.44+) pass the codex validator", () => {
  it.each(currentFormatCaptures)("%s", (_name, path) => {
    const text = readFileSync(path, "utf8");
    // Codex may print a stdin banner before the JSON (a merged stderr); the validator judges the JSON lines.
    const json = text
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .join("\n");
    expect(validateFormat("codex", `${json}\n`)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// What a Codex reader gets back: our own dialect and the SDK
// ---------------------------------------------------------------------------------------------

/** The tool items a Codex reader sees for a source: our tool calls by item type, plus one file_change per change no file tool made. */
function expectedToolNames(events: readonly AgentEvent[], summary: SessionSummary, commandName = "shell"): string[] {
  const kinds = new Map<string, AgentEvent & { type: "tool.started" }>();
  for (const e of events) if (e.type === "tool.started" && !kinds.has(e.toolCallId)) kinds.set(e.toolCallId, e);
  const names = summary.toolCalls.map((call) => {
    const type = codexItemTypeFor(kinds.get(call.id)?.kind);
    // Our codex dialect names a command_execution "shell", the name people know it by.
    return type === "mcp_tool_call" ? call.name : type === "command_execution" ? commandName : type;
  });
  for (const e of events) {
    if (e.type !== "file.changed") continue;
    const tool = e.toolCallId === undefined ? undefined : kinds.get(e.toolCallId);
    if (tool === undefined || codexItemTypeFor(tool.kind) !== "file_change") names.push("file_change");
  }
  return names.sort();
}

const zeroed = (u: Usage): Usage => ({
  inputTokens: u.inputTokens ?? 0,
  outputTokens: u.outputTokens ?? 0,
  cacheReadTokens: u.cacheReadTokens ?? 0,
  cacheWriteTokens: u.cacheWriteTokens ?? 0,
  reasoningTokens: u.reasoningTokens ?? 0,
});

describe("every source read back through our codex dialect keeps its facts", () => {
  it.each(sources())("%s", (_name, path) => {
    const { events, summary } = readFile(path);
    const text = convertEvents(events, "codex");
    if (text === "") {
      expect(summary.finalText).toBeNull();
      expect(summary.toolCalls).toEqual([]);
      return;
    }
    const back = readBack(text, codex).summary;
    expect(back.finalText).toBe(summary.finalText);
    expect(back.toolCalls.map((t) => t.name).sort()).toEqual(expectedToolNames(events, summary));
    expect(back.sessionId).toBe(summary.sessionId ?? PLACEHOLDER_THREAD_ID);
    if (summary.status === "success") expect(back.status).toBe("success");
    else if (summary.status === "error" || summary.status === "interrupted") {
      expect(back.status).toBe("error");
      if (summary.error !== null) expect(back.error).toBe(summary.error);
    }
    // Codex says "ended" or "failed"; a source cut short comes back as one of them, with the usage so far.
    if (back.status === "success") expect(back.usage).toEqual(zeroed(summary.usage));
  });
});

// ---------------------------------------------------------------------------------------------
// The peer: @openai/codex-sdk
// ---------------------------------------------------------------------------------------------

const fakeCodex = join(repoRoot, "test/fixtures/codex-sdk/fake-codex.mjs");
const scratch = tempDir("codex-sdk");

/** Runs Thread.run() over a Codex stream we wrote, the way an SDK user would (the SDK spawns our stand-in binary). */
async function runSdk(codexText: string, name: string) {
  const file = join(scratch, `${name.replace(/[^\w.-]/g, "_")}.jsonl`);
  writeFileSync(file, codexText);
  const sdk = new Codex({ codexPathOverride: fakeCodex, env: { PATH: process.env.PATH ?? "", AGENTSTREAM_CODEX_STREAM: file } });
  const thread = sdk.startThread({ skipGitRepoCheck: true });
  return { thread, result: thread.run("replay") };
}

const sdkUsage = (u: Usage): SdkUsage => ({
  input_tokens: u.inputTokens ?? 0,
  cached_input_tokens: u.cacheReadTokens ?? 0,
  cache_write_input_tokens: u.cacheWriteTokens ?? 0,
  output_tokens: u.outputTokens ?? 0,
  reasoning_output_tokens: u.reasoningTokens ?? 0,
});

const toolNameOf = (item: ThreadItem): string | undefined => {
  if (item.type === "mcp_tool_call") return item.tool;
  if (item.type === "command_execution" || item.type === "file_change" || item.type === "web_search") return item.type;
  return undefined;
};

describe("@openai/codex-sdk Thread.run() reads our output with our summary's facts", () => {
  it.each(sources())("%s", async (name, path) => {
    const { events, summary } = readFile(path);
    const text = convertEvents(events, "codex");
    if (text === "") return; // nothing a Codex reader could see (no session, no content)
    const { thread, result } = await runSdk(text, name);
    if (summary.status === "error" || summary.status === "interrupted") {
      await expect(result).rejects.toThrow(summary.error ?? `session ${summary.status}`);
      return;
    }
    const turn = await result;
    expect(thread.id).toBe(summary.sessionId ?? PLACEHOLDER_THREAD_ID);
    expect(turn.finalResponse).toBe(summary.finalText ?? "");
    // A source with no activity gives a thread with no turn: the SDK reports no usage, and there was none.
    if (text.includes('"turn.completed"')) expect(turn.usage).toEqual(sdkUsage(summary.usage));
    else expect([turn.usage, Object.values(summary.usage).every((n) => n === null)]).toEqual([null, true]);
    const tools = turn.items.map(toolNameOf).filter((n): n is string => n !== undefined);
    expect(tools.sort()).toEqual(expectedToolNames(events, summary, "command_execution"));
    const answers = turn.items.filter((i) => i.type === "agent_message");
    if (summary.finalText !== null) expect(answers.at(-1)?.type === "agent_message" && answers.at(-1)?.text).toBe(summary.finalText);
  });

  it("the example, converted by the built CLI inside the stand-in (AGENTSTREAM_CODEX_SOURCE)", async () => {
    if (!existsSync(join(repoRoot, "dist/cli/bin.js"))) return; // a fresh clone without `npm run build`
    const source = join(repoRoot, "examples/claude-code-session.ndjson");
    const { summary } = readFile(source);
    const sdk = new Codex({ codexPathOverride: fakeCodex, env: { PATH: process.env.PATH ?? "", AGENTSTREAM_CODEX_SOURCE: source } });
    const run = sdk.startThread().run("replay");
    if (summary.status !== "success") return void (await expect(run).rejects.toThrow());
    const turn = await run;
    expect(turn.finalResponse).toBe(summary.finalText);
    expect(turn.usage).toEqual(sdkUsage(summary.usage));
  });

  it("runStreamed() yields thread.started first and turn.completed last", async () => {
    const path = join(repoRoot, "examples/claude-code-session.ndjson");
    const { events } = readFile(path);
    const file = join(scratch, "streamed.jsonl");
    writeFileSync(file, convertEvents(events, "codex"));
    const sdk = new Codex({ codexPathOverride: fakeCodex, env: { PATH: process.env.PATH ?? "", AGENTSTREAM_CODEX_STREAM: file } });
    const { events: stream } = await sdk.startThread().runStreamed("replay");
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe("thread.started");
    expect(["turn.completed", "turn.failed"]).toContain(types.at(-1));
  });
});
