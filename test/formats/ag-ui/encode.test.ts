/**
 * `--to ag-ui` and `--format ag-ui`.
 *
 * Peer client: @ag-ui/core's zod `EventSchemas` parses every event we write, @ag-ui/client's
 * `verifyEvents` accepts every stream, and `HttpAgent` (SSE parser, chunk transform, verifier and
 * message reducer) rebuilds from our `--sse` output the final text and the tool calls of the source.
 * Our own validator accepts the AG-UI .NET golden streams and rejects one synthetic stream per
 * ordering rule, and agrees with `verifyEvents` on every synthetic case.
 */
import { readdirSync } from "node:fs";
import { EventSchemas } from "@ag-ui/core/schemas";
import { HttpAgent, transformChunks, verifyEvents, type BaseEvent, type Message } from "@ag-ui/client";
import { test } from "../../helpers/property.ts";
import { from, lastValueFrom, toArray } from "rxjs";
import { describe, expect, it, vi } from "vitest";
import { run } from "../../../src/cli/run.ts";
import type { Issue } from "../../../src/errors.ts";
import type { AgentEvent, AgentEventDraft, JsonObject } from "../../../src/model/events.ts";
import { createNdjsonParser } from "../../../src/framing/ndjson/create-ndjson-parser.ts";
import { agUiSpec as agUiFormat } from "../../../src/formats/ag-ui/spec.ts";
import { compileOnce, convertEvents, records } from "../../helpers/convert.ts";
import { build } from "../../helpers/events.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { oddEvents } from "../../helpers/odd-events.ts";
import { readFile } from "../../helpers/read.ts";
import { hasShared, listCaptures, noteSharedMissing, repoRoot, sharedPath } from "../../helpers/shared.ts";

type Wire = JsonObject & { type: string };

/** Our events with the envelope filled in. */
const stream = (...drafts: AgentEventDraft[]): AgentEvent[] => build(drafts);
const writeText = (events: readonly AgentEvent[], sse = false): string => convertEvents(events, "ag-ui", { sse });
const write = (events: readonly AgentEvent[]): Wire[] => records(writeText(events)) as Wire[];

/** The peer's verdict: undefined when verifyEvents (after transformChunks) accepts the whole stream, else its error. */
async function peerVerdict(events: readonly JsonObject[]): Promise<string | undefined> {
  try {
    await lastValueFrom(verifyEvents()(transformChunks()(from(events as unknown as BaseEvent[]))).pipe(toArray()));
    return undefined;
  } catch (error) {
    return String(error);
  }
}

function schemaFailures(events: readonly JsonObject[]): string[] {
  return events.flatMap((event) => {
    const result = EventSchemas.safeParse(event);
    return result.success
      ? []
      : [`${JSON.stringify(event).slice(0, 120)}: ${result.error.issues.map((i) => `${i.path.join(".")} ${i.message}`).join("; ")}`];
  });
}

function ourIssues(events: readonly JsonObject[]): Issue[] {
  const validator = agUiFormat!.createValidator(compileOnce);
  const issues = events.flatMap((event, i) => validator.check(event, i + 1));
  return [...issues, ...validator.end()];
}

/** Every proof for one stream we wrote: zod shapes, verifyEvents order, our validator. */
async function expectValid(events: readonly Wire[]): Promise<void> {
  expect(schemaFailures(events)).toEqual([]);
  expect(await peerVerdict(events)).toBeUndefined();
  expect(ourIssues(events)).toEqual([]);
}

const types = (events: readonly Wire[]): string[] => events.map((e) => e.type);
const S = "sess-1";

describe("ag-ui writer: mapping", () => {
  const cases: { name: string; input: AgentEventDraft[]; types: string[]; check?: (out: Wire[]) => void }[] = [
    {
      name: "a streamed message in a session",
      input: [
        { type: "session.started", sessionId: S, agent: "claude-code", model: "m1" },
        { type: "message.started", sessionId: S, messageId: "m", role: "assistant", kind: "text" },
        { type: "message.delta", role: "assistant", kind: "text", sessionId: S, messageId: "m", text: "Hel", position: 0 },
        { type: "message.delta", role: "assistant", kind: "text", sessionId: S, messageId: "m", text: "lo", position: 3 },
        { type: "message.completed", sessionId: S, messageId: "m", role: "assistant", kind: "text", text: "Hello" },
        {
          type: "session.completed",
          sessionId: S,
          status: "success",
          finalText: "Hello",
          usage: { inputTokens: 3, outputTokens: 2, cacheReadTokens: null, cacheWriteTokens: 1, reasoningTokens: null },
          costUsd: 0.5,
        },
      ],
      types: ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"],
      check(out) {
        expect(out[0]).toEqual({
          type: "RUN_STARTED",
          threadId: S,
          runId: "run-1",
          metadata: { agentstream: { sessionId: S, agent: "claude-code", model: "m1" } },
        });
        expect(out[5]).toEqual({
          type: "RUN_FINISHED",
          threadId: S,
          runId: "run-1",
          result: "Hello",
          outcome: { type: "success" },
          usage: [{ inputTokens: 3, outputTokens: 2, cacheWriteInputTokens: 1 }],
          metadata: { agentstream: { costUsd: 0.5 } },
        });
      },
    },
    {
      name: "a message.completed with no deltas becomes START + one CONTENT + END",
      input: [{ type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "whole" }],
      types: ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"],
      check: (out) => expect(out[2]).toMatchObject({ messageId: "m", delta: "whole" }),
    },
    {
      name: "a final answer only the completion carries becomes an assistant message (a chat UI shows messages)",
      input: [
        { type: "session.started", sessionId: S },
        { type: "session.completed", sessionId: S, status: "success", finalText: "Done." },
      ],
      types: ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"],
      check(out) {
        expect(out[1]).toEqual({
          type: "TEXT_MESSAGE_START",
          messageId: `${S}:final-text`,
          role: "assistant",
          metadata: { agentstream: { finalText: true } },
        });
        expect(out[2]).toMatchObject({ delta: "Done." });
      },
    },
    {
      name: "a final answer already shown as a message is not repeated",
      input: [
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "Done." },
        { type: "session.completed", status: "success", finalText: "Done." },
      ],
      types: ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"],
    },
    {
      name: "empty text writes no empty CONTENT",
      input: [
        { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "", position: 0 },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "" },
      ],
      types: ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_END", "RUN_FINISHED"],
    },
    {
      name: "a completion longer than the deltas sends the rest",
      input: [
        { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "Hel", position: 0 },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "Hello!" },
      ],
      types: ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"],
      check: (out) => expect(out[3]).toMatchObject({ delta: "lo!" }),
    },
    {
      name: "a completion that revises streamed text follows as a new message",
      input: [
        { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "Helo", position: 0 },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "Hello" },
      ],
      types: [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
      ],
      check(out) {
        expect(out[4]).toMatchObject({ messageId: "m:revised-1", metadata: { agentstream: { revises: "m" } } });
        expect(out[5]).toMatchObject({ messageId: "m:revised-1", delta: "Hello" });
      },
    },
    {
      name: "a delta with no start opens an assistant message",
      input: [{ type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "hi", position: 0 }],
      types: ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_FINISHED"],
    },
    {
      name: "reasoning with a signature",
      input: [
        { type: "message.started", messageId: "r", role: "assistant", kind: "reasoning" },
        { type: "message.delta", role: "assistant", kind: "reasoning", messageId: "r", text: "think", position: 0 },
        { type: "message.completed", messageId: "r", role: "assistant", kind: "reasoning", text: "think", signature: "sig" },
      ],
      types: [
        "RUN_STARTED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_ENCRYPTED_VALUE",
        "REASONING_END",
        "RUN_FINISHED",
      ],
      check: (out) =>
        expect(out[5]).toEqual({ type: "REASONING_ENCRYPTED_VALUE", subtype: "message", entityId: "r", encryptedValue: "sig" }),
    },
    {
      name: "redacted reasoning keeps only the encrypted value",
      input: [{ type: "message.completed", messageId: "r", role: "assistant", kind: "redacted_reasoning", text: "", signature: "cipher" }],
      types: [
        "RUN_STARTED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_END",
        "REASONING_ENCRYPTED_VALUE",
        "REASONING_END",
        "RUN_FINISHED",
      ],
      check: (out) => expect(out[1]).toMatchObject({ metadata: { agentstream: { kind: "redacted_reasoning" } } }),
    },
    {
      name: "a tool call with its input, after a text message",
      input: [
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "running" },
        { type: "tool.started", toolCallId: "t1", name: "Bash", kind: "command", input: { command: "ls" } },
        { type: "tool.completed", toolCallId: "t1", output: "a\nb", isError: false, exitCode: 0 },
      ],
      types: [
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "RUN_FINISHED",
      ],
      check(out) {
        expect(out[4]).toEqual({
          type: "TOOL_CALL_START",
          toolCallId: "t1",
          toolCallName: "Bash",
          parentMessageId: "m",
          metadata: { agentstream: { kind: "command" } },
        });
        expect(out[5]).toMatchObject({ delta: '{"command":"ls"}' });
        expect(out[7]).toEqual({
          type: "TOOL_CALL_RESULT",
          messageId: "t1:result",
          toolCallId: "t1",
          content: "a\nb",
          role: "tool",
          metadata: { agentstream: { isError: false, exitCode: 0 } },
        });
      },
    },
    {
      name: "streamed arguments end when the tool completes",
      input: [
        { type: "tool.started", toolCallId: "t1", name: "Edit" },
        { type: "tool.input.delta", toolCallId: "t1", text: '{"a":' },
        { type: "tool.input.delta", toolCallId: "t1", text: "1}" },
        { type: "tool.completed", toolCallId: "t1", result: { ok: true }, isError: true },
      ],
      types: ["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT", "RUN_FINISHED"],
      check: (out) => expect(out[5]).toMatchObject({ content: '{"ok":true}', metadata: { agentstream: { isError: true } } }),
    },
    {
      name: "a tool.completed with no tool.started",
      input: [{ type: "tool.completed", toolCallId: "t9", name: "Read", output: "x", isError: false }],
      types: ["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_END", "TOOL_CALL_RESULT", "RUN_FINISHED"],
      check: (out) => expect(out[1]).toMatchObject({ toolCallId: "t9", toolCallName: "Read" }),
    },
    {
      name: "interleaved tool calls and progress",
      input: [
        { type: "tool.started", toolCallId: "a", name: "A" },
        { type: "tool.started", toolCallId: "b", name: "B" },
        { type: "tool.input.delta", toolCallId: "b", text: "{}" },
        { type: "tool.input.delta", toolCallId: "a", text: "{}" },
        { type: "tool.progress", toolCallId: "a", status: "running" },
        { type: "tool.completed", toolCallId: "b", isError: false },
        { type: "tool.input.delta", toolCallId: "a", text: "late" },
        { type: "tool.completed", toolCallId: "a", isError: false },
      ],
      types: [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "CUSTOM",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "CUSTOM",
        "TOOL_CALL_RESULT",
        "RUN_FINISHED",
      ],
      check: (out) => expect(out[9]).toMatchObject({ name: "agentstream.tool.input.delta", value: { toolCallId: "a", text: "late" } }),
    },
    {
      name: "turns are steps; a turn's end closes its tool arguments",
      input: [
        { type: "turn.started", turnId: "u1" },
        { type: "tool.started", toolCallId: "t", name: "X" },
        {
          type: "turn.completed",
          turnId: "u1",
          usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
        },
        { type: "turn.completed", turnId: "u2" },
        { type: "tool.completed", toolCallId: "t", isError: false },
      ],
      types: [
        "RUN_STARTED",
        "STEP_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_END",
        "STEP_FINISHED",
        "CUSTOM",
        "TOOL_CALL_RESULT",
        "RUN_FINISHED",
      ],
      check: (out) => expect(out[4]).toMatchObject({ stepName: "u1", metadata: { agentstream: { usage: { inputTokens: 1 } } } }),
    },
    {
      name: "a subagent is a SUBAGENT_STARTED..FINISHED lane",
      input: [
        { type: "session.started", sessionId: S },
        { type: "tool.started", sessionId: S, toolCallId: "task", name: "Task", kind: "subagent", input: {} },
        { type: "session.started", sessionId: "sub", parentSessionId: S, parentToolCallId: "task", agent: "explorer" },
        { type: "turn.started", sessionId: "sub", turnId: "u" },
        { type: "message.completed", sessionId: "sub", messageId: "sm", role: "assistant", kind: "text", text: "found it" },
        { type: "session.completed", sessionId: "sub", status: "success", finalText: "found it" },
        { type: "tool.completed", sessionId: S, toolCallId: "task", output: "found it", isError: false },
        { type: "session.completed", sessionId: S, status: "success" },
      ],
      types: [
        "RUN_STARTED",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "SUBAGENT_STARTED",
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "SUBAGENT_FINISHED",
        "TOOL_CALL_RESULT",
        "RUN_FINISHED",
      ],
      check(out) {
        expect(out[4]).toMatchObject({ subagentRunId: "sub", name: "explorer", parentToolCallId: "task" });
        expect(out[6]).toMatchObject({ subagentRunId: "sub", messageId: "sm" });
        expect(out[10]).toEqual({ type: "SUBAGENT_FINISHED", subagentRunId: "sub", result: "found it", outcome: { type: "success" } });
      },
    },
    {
      name: "a session that ends with the subagent still open closes it",
      input: [
        { type: "session.started", sessionId: S },
        { type: "session.started", sessionId: "sub", parentSessionId: S },
        { type: "message.started", sessionId: "sub", messageId: "x", role: "assistant", kind: "text" },
        { type: "session.completed", sessionId: S, status: "success" },
      ],
      types: ["RUN_STARTED", "SUBAGENT_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_END", "SUBAGENT_FINISHED", "RUN_FINISHED"],
    },
    {
      name: "quiet events after session.completed fold into the run; new content starts the next run",
      input: [
        { type: "session.started", sessionId: S },
        { type: "session.completed", sessionId: S, status: "success" },
        {
          type: "usage",
          sessionId: S,
          scope: "delta",
          usage: { inputTokens: 1, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
        },
        { type: "message.completed", sessionId: S, messageId: "m", role: "assistant", kind: "text", text: "again" },
        { type: "session.completed", sessionId: S, status: "success" },
      ],
      types: [
        "RUN_STARTED",
        "CUSTOM",
        "RUN_FINISHED",
        "RUN_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
      ],
      check(out) {
        expect(out[1]).toMatchObject({ name: "agentstream.usage", value: { scope: "delta" } });
        expect(out[3]).toEqual({ type: "RUN_STARTED", threadId: S, runId: "run-2" });
      },
    },
    {
      name: "a new root session after a completed one is a new run",
      input: [
        { type: "session.started", sessionId: "a" },
        { type: "session.completed", sessionId: "a", status: "success" },
        { type: "session.started", sessionId: "b" },
      ],
      types: ["RUN_STARTED", "RUN_FINISHED", "RUN_STARTED", "RUN_FINISHED"],
      check: (out) => expect(out[2]).toMatchObject({ threadId: "b", runId: "run-2" }),
    },
    {
      name: "a failed session is RUN_ERROR; an interrupted one is cancelled",
      input: [
        { type: "session.started", sessionId: "a" },
        { type: "session.completed", sessionId: "a", status: "error", error: "boom", finalText: "partial" },
        { type: "session.started", sessionId: "b" },
        { type: "session.completed", sessionId: "b", status: "interrupted" },
      ],
      types: ["RUN_STARTED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "RUN_ERROR", "RUN_STARTED", "RUN_FINISHED"],
      check(out) {
        expect(out[4]).toEqual({ type: "RUN_ERROR", message: "boom", metadata: { agentstream: { finalText: "partial" } } });
        expect(out[6]).toMatchObject({ outcome: { type: "cancelled" } });
      },
    },
    {
      name: "an input with no session end closes what is open but claims no outcome",
      input: [
        { type: "turn.started", turnId: "u" },
        { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
        { type: "tool.started", toolCallId: "t", name: "X" },
      ],
      types: [
        "RUN_STARTED",
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TOOL_CALL_START",
        "TEXT_MESSAGE_END",
        "TOOL_CALL_END",
        "STEP_FINISHED",
        "RUN_FINISHED",
      ],
    },
    {
      name: "notices before session.started wait, so RUN_STARTED carries the session id",
      input: [
        { type: "notice", sessionId: S, kind: "hook", level: "info", text: "hook ran" },
        { type: "text", text: "banner", position: "preamble" },
        { type: "session.started", sessionId: S },
      ],
      types: ["RUN_STARTED", "CUSTOM", "CUSTOM", "RUN_FINISHED"],
      check(out) {
        expect(out[0]).toMatchObject({ threadId: S });
        expect(out[1]).toEqual({ type: "CUSTOM", name: "agentstream.notice", value: { kind: "hook", level: "info", text: "hook ran" } });
      },
    },
    {
      name: "unknown records are RAW; plans are state; the rest is CUSTOM",
      input: [
        { type: "unknown", raw: { weird: 1 }, reason: "unknown record type", source: { dialect: "codex" } } as AgentEventDraft,
        { type: "plan.updated", items: [{ text: "do it", status: "pending" }] },
        { type: "metric", name: "flame", values: { level: 2 } },
        { type: "file.changed", changes: [{ path: "a.ts", kind: "update" }] },
      ],
      types: ["RUN_STARTED", "RAW", "STATE_SNAPSHOT", "CUSTOM", "CUSTOM", "RUN_FINISHED"],
      check(out) {
        expect(out[1]).toEqual({
          type: "RAW",
          event: { weird: 1 },
          source: "codex",
          metadata: { agentstream: { reason: "unknown record type" } },
        });
        expect(out[2]).toEqual({ type: "STATE_SNAPSHOT", snapshot: { plan: [{ text: "do it", status: "pending" }] } });
      },
    },
    {
      name: "timestamps come from the event time",
      input: [{ type: "heartbeat", time: "2025-01-02T03:04:05.678Z" }],
      types: ["RUN_STARTED", "CUSTOM", "RUN_FINISHED"],
      check: (out) => expect(out[1]?.timestamp).toBe(Date.parse("2025-01-02T03:04:05.678Z")),
    },
  ];

  it.each(cases)("$name", async ({ input, types: expected, check }) => {
    const out = write(stream(...input));
    expect(types(out)).toEqual(expected);
    check?.(out);
    await expectValid(out);
  });

  it("writes nothing for an empty input", () => {
    expect(writeText([])).toBe("");
  });

  test.prop([oddEvents], { numRuns: 300 })(
    "any sequence of events gives valid AG-UI (EventSchemas, verifyEvents, our validator)",
    async (events) => {
      await expectValid(write(events));
    },
  );

  it("frames SSE as one data field per event, and no value can split a field", () => {
    const events = stream({
      type: "message.completed",
      messageId: "a\nb\r\nc",
      role: "assistant",
      kind: "text",
      text: "line1\nline2\r\u2028",
    });
    const text = writeText(events, true);
    const blocks = text.split("\n\n").filter((b) => b !== "");
    expect(blocks.length).toBe(5); // RUN_STARTED, START, CONTENT, END, RUN_FINISHED (the input ends the run)
    for (const block of blocks) {
      expect(block.startsWith("data: ")).toBe(true);
      expect(block.slice(6)).not.toMatch(/[\r\n]/);
    }
    expect(JSON.parse(blocks[2]!.slice(6))).toMatchObject({ messageId: "a\nb\r\nc", delta: "line1\nline2\r\u2028" });
  });
});

/** What a consumer can rebuild from an AG-UI stream: the final text and every tool call. */
interface Rebuilt {
  finalText: string | null;
  /** The root assistant text messages the client holds. */
  shownTexts: string[];
  toolCalls: Map<string, { name: string; args: string; results: string[] }>;
}

/**
 * Runs `body` with the client as it runs in production. Under a test runner (NODE_ENV=test or VITEST_WORKER_ID set),
 * @ag-ui/client clones and freezes every message for every event, to catch a subscriber that mutates them: work
 * that grows with the square of a capture's size (most of this file's time) and checks only our subscribers
 * below, which mutate nothing, not the stream we wrote.
 */
async function asInProduction<T>(body: () => Promise<T>): Promise<T> {
  vi.stubEnv("NODE_ENV", "production");
  vi.stubEnv("VITEST_WORKER_ID", undefined);
  try {
    return await body();
  } finally {
    vi.unstubAllEnvs();
  }
}

/** Runs our SSE output through HttpAgent (SSE parser → zod → transformChunks → verifyEvents → reducer). */
async function rebuildWithHttpAgent(sseText: string): Promise<Rebuilt> {
  return asInProduction(() => rebuild(sseText));
}

async function rebuild(sseText: string): Promise<Rebuilt> {
  const agent = new HttpAgent({
    url: "http://agentstream.invalid/run",
    fetch: async () => new Response(sseText, { headers: { "content-type": "text/event-stream" } }),
  });
  let finished: { result?: unknown; finalText?: unknown } | undefined;
  const result = await agent.runAgent(undefined, {
    onRunFinishedEvent: ({ event }) => {
      finished = { result: event.result };
    },
    onRunErrorEvent: ({ event }) => {
      finished = { finalText: (event.metadata as { agentstream?: { finalText?: string } } | undefined)?.agentstream?.finalText };
    },
  });
  void result;
  const messages: Message[] = agent.messages;
  const toolCalls: Rebuilt["toolCalls"] = new Map();
  let lastText: string | null = null;
  const shownTexts: string[] = [];
  for (const message of messages) {
    if (message.role === "assistant") {
      if (message.subagentRunId === undefined && typeof message.content === "string" && message.content.trim() !== "")
        lastText = message.content;
      if (message.subagentRunId === undefined && typeof message.content === "string") shownTexts.push(message.content);
      for (const call of message.toolCalls ?? [])
        toolCalls.set(call.id, { name: call.function.name, args: call.function.arguments, results: [] });
    }
  }
  for (const message of messages) {
    if (message.role === "tool")
      toolCalls
        .get(message.toolCallId)
        ?.results.push(typeof message.content === "string" ? message.content : JSON.stringify(message.content));
  }
  const stated = finished?.result ?? finished?.finalText;
  return { finalText: typeof stated === "string" ? stated : lastText, shownTexts, toolCalls };
}

/** The same facts read straight from our events. */
function sourceToolCalls(events: readonly AgentEvent[]): Rebuilt["toolCalls"] {
  const calls: Rebuilt["toolCalls"] = new Map();
  for (const event of events) {
    if (event.type === "tool.started" && !calls.has(event.toolCallId))
      calls.set(event.toolCallId, { name: event.name, args: event.input === undefined ? "" : JSON.stringify(event.input), results: [] });
    if (event.type === "tool.input.delta") {
      const call = calls.get(event.toolCallId) ?? { name: "", args: "", results: [] };
      calls.set(event.toolCallId, call);
      call.args += event.text;
    }
    if (event.type === "tool.completed") {
      const call = calls.get(event.toolCallId) ?? { name: event.name ?? "", args: "", results: [] };
      calls.set(event.toolCallId, call);
      call.results.push(event.output ?? (event.result !== undefined ? JSON.stringify(event.result) : ""));
    }
  }
  return calls;
}

noteSharedMissing();
const sources: [string, string][] = [
  ["example/claude-code-session.ndjson", `${repoRoot}/examples/claude-code-session.ndjson`],
  ...listCaptures().map(([dialect, path]): [string, string] => [`${dialect}/${path.split("/").pop()}`, path]),
];

describe("ag-ui writer: every capture, through the peer client", () => {
  it.each(sources)("%s", async (_name, path) => {
    const { events, summary } = readFile(path);
    const out = write(events);
    await expectValid(out);
    const rebuilt = await rebuildWithHttpAgent(writeText(events, true));
    expect(rebuilt.finalText).toEqual(summary.finalText);
    // A chat UI shows messages, not RUN_FINISHED.result: the final answer must be one of them, streamed or not.
    if (summary.finalText !== null && summary.finalText.trim() !== "")
      expect(
        [...rebuilt.shownTexts, rebuilt.shownTexts.join(""), rebuilt.shownTexts.join("\n")].some((text) =>
          text.includes(summary.finalText!.trim()),
        ),
      ).toBe(true);
    const expected = sourceToolCalls(events);
    expect(new Map([...rebuilt.toolCalls].map(([id, call]) => [id, { ...call, args: call.args }]))).toEqual(expected);
    // The summary's tool calls are the same ids and names.
    expect(summary.toolCalls.map((t) => [t.id, t.name])).toEqual([...expected].map(([id, call]) => [id, call.name]));
  });
});

const fixtureDir = hasShared ? sharedPath("fixtures/protocols/ag-ui") : "";
const fixtures = hasShared ? readdirSync(fixtureDir).filter((name) => name.endsWith(".json")) : [];

describe.skipIf(!hasShared)("ag-ui validator: the AG-UI .NET golden streams (JSON arrays with a BOM)", () => {
  it.each(fixtures)("validate --format ag-ui accepts %s", async (name) => {
    const io = fakeIo();
    expect(await run(["validate", "--format", "ag-ui", `${fixtureDir}/${name}`], io)).toBe(0);
    expect(io.err()).toMatch(/^valid: \d+ records checked, 0 issues\n$/);
  });

  it.each(fixtures)("the reader frames %s as one record per array element, and the peer accepts it", async (name) => {
    const bytes = (await import("node:fs")).readFileSync(`${fixtureDir}/${name}`);
    const expected = JSON.parse(bytes.toString("utf8").replace(/^\uFEFF/, "")) as JsonObject[];
    const records: JsonObject[] = [];
    const problems: Issue[] = [];
    const parser = createNdjsonParser({
      onRecord: (r) =>
        r.kind === "json" ? records.push(r.value) : problems.push({ code: "non-json-line", severity: "error", message: r.text }),
      onIssue: (i) => void (i.severity !== "info" && problems.push(i)),
    });
    for (let i = 0; i < bytes.length; i += 997) parser.feed(bytes.subarray(i, i + 997)); // chunk boundaries anywhere
    parser.end();
    expect(problems).toEqual([]);
    expect(records).toEqual(expected);
    expect(schemaFailures(records)).toEqual([]);
    expect(await peerVerdict(records)).toBeUndefined();
  });
});

describe("ag-ui reader: JSON array framing edge cases", () => {
  const frame = (text: string): { records: JsonObject[]; issues: Issue[] } => {
    const records: JsonObject[] = [];
    const issues: Issue[] = [];
    const parser = createNdjsonParser({
      onRecord: (r) =>
        void (r.kind === "json" ? records.push(r.value) : issues.push({ code: "non-json-line", severity: "warning", message: r.text })),
      onIssue: (i) => void (i.severity !== "info" && issues.push(i)),
    });
    parser.feed(text);
    parser.end();
    return { records, issues };
  };
  it("reads `[`, `},{` and `]` as framing", () => {
    expect(frame('[\n  {"a":1},{"b":2},\n  {\n    "c": [3]\n  }\n]').records).toEqual([{ a: 1 }, { b: 2 }, { c: [3] }]);
  });
  it("reports an array that never closes", () => {
    const { records, issues } = frame('[\n  {"a":1},\n');
    expect(records).toEqual([{ a: 1 }]);
    expect(issues.map((i) => i.code)).toEqual(["truncated-tail"]);
  });
  it("still reads a pretty-printed object stream after a BOM", () => {
    expect(frame('\uFEFF{\n  "a": 1\n}\n{\n  "b": 2\n}\n').records).toEqual([{ a: 1 }, { b: 2 }]);
  });
});

// ---- validator: one failing stream per rule, and the valid cases of ag-ui-order-rules.md §7 ----

const RS = { type: "RUN_STARTED", threadId: "t", runId: "r" };
const RF = { type: "RUN_FINISHED", threadId: "t", runId: "r" };
const RE = { type: "RUN_ERROR", message: "x" };
const TS = (id: string, extra: JsonObject = {}) => ({ type: "TEXT_MESSAGE_START", messageId: id, role: "assistant", ...extra });
const TC = (id: string, extra: JsonObject = {}) => ({ type: "TEXT_MESSAGE_CONTENT", messageId: id, delta: "x", ...extra });
const TE = (id: string) => ({ type: "TEXT_MESSAGE_END", messageId: id });
const CS = (id: string) => ({ type: "TOOL_CALL_START", toolCallId: id, toolCallName: "f" });
const CA = (id: string) => ({ type: "TOOL_CALL_ARGS", toolCallId: id, delta: "{}" });
const CE = (id: string) => ({ type: "TOOL_CALL_END", toolCallId: id });
const SS = (name: string) => ({ type: "STEP_STARTED", stepName: name });
const SF = (name: string) => ({ type: "STEP_FINISHED", stepName: name });

const invalidOrders: [string, JsonObject[]][] = [
  ["first event is not RUN_STARTED (a message)", [TS("m"), TE("m")]],
  ["first event is not RUN_STARTED (a tool call)", [CS("c")]],
  ["two RUN_STARTED with no finish between", [RS, RS]],
  ["an event after RUN_FINISHED", [RS, RF, TS("m")]],
  ["an event after RUN_ERROR", [RS, RE, TS("m")]],
  ["RUN_FINISHED after RUN_ERROR", [RS, RE, RF]],
  ["CONTENT for a message never started", [RS, TC("m")]],
  ["END for a message never started", [RS, TE("m")]],
  ["CONTENT under another id than the open message", [RS, TS("a"), TC("b")]],
  ["CONTENT after END", [RS, TS("m"), TE("m"), TC("m")]],
  ["ARGS for an unknown tool call", [RS, CA("c")]],
  ["END for an unknown tool call", [RS, CE("c")]],
  ["ARGS after the call's END", [RS, CS("c"), CE("c"), CA("c")]],
  ["a duplicate START for an open message", [RS, TS("m"), TS("m")]],
  ["a duplicate START for an open tool call", [RS, CS("c"), CS("c")]],
  ["STEP_FINISHED for a step never started", [RS, SF("s")]],
  ["STEP_STARTED for a step already open", [RS, SS("s"), SS("s")]],
  ["RUN_FINISHED with a step open", [RS, SS("s"), RF]],
  ["RUN_FINISHED with a message open", [RS, TS("m"), RF]],
  ["RUN_FINISHED with a tool call open", [RS, CS("c"), RF]],
  [
    "RUN_FINISHED with a reasoning message open",
    [
      RS,
      { type: "REASONING_START", messageId: "r" },
      { type: "REASONING_MESSAGE_START", messageId: "r", role: "reasoning" },
      { type: "REASONING_END", messageId: "r" },
      RF,
    ],
  ],
  ["RUN_FINISHED with a reasoning span open", [RS, { type: "REASONING_START", messageId: "r" }, RF]],
  ["reasoning CONTENT with no reasoning message", [RS, { type: "REASONING_MESSAGE_CONTENT", messageId: "r", delta: "x" }]],
  ["REASONING_END with no span", [RS, { type: "REASONING_END", messageId: "r" }]],
  ["RUN_FINISHED with a subagent active", [RS, { type: "SUBAGENT_STARTED", subagentRunId: "s", name: "n" }, RF]],
  ["SUBAGENT_FINISHED for a subagent never started", [RS, { type: "SUBAGENT_FINISHED", subagentRunId: "s" }]],
  [
    "SUBAGENT_STARTED twice",
    [RS, { type: "SUBAGENT_STARTED", subagentRunId: "s", name: "n" }, { type: "SUBAGENT_STARTED", subagentRunId: "s", name: "n" }],
  ],
  [
    "a subagent id reused in the same run",
    [
      RS,
      { type: "SUBAGENT_STARTED", subagentRunId: "s", name: "n" },
      { type: "SUBAGENT_ERROR", subagentRunId: "s", message: "x" },
      { type: "SUBAGENT_STARTED", subagentRunId: "s", name: "n" },
    ],
  ],
  [
    "a subagent whose parent subagent never started",
    [RS, { type: "SUBAGENT_STARTED", subagentRunId: "s", name: "n", parentSubagentRunId: "p" }],
  ],
  [
    "CONTENT from another subagent than the one that opened the message",
    [RS, TS("m", { subagentRunId: "a" }), TC("m", { subagentRunId: "b" })],
  ],
  ["a STEP_FINISHED from another lane than the one that started it", [RS, { ...SS("s"), subagentRunId: "a" }, SF("s")]],
  ["the first TEXT_MESSAGE_CHUNK has no messageId", [RS, { type: "TEXT_MESSAGE_CHUNK", delta: "x" }]],
  ["an explicit START mixed with a CHUNK of the same id", [RS, TS("m"), { type: "TEXT_MESSAGE_CHUNK", messageId: "m", delta: "x" }]],
];

const validOrders: [string, JsonObject[]][] = [
  ["RUN_ERROR as the first event", [RE]],
  ["RUN_ERROR after RUN_FINISHED", [RS, RF, RE]],
  ["a new run after RUN_ERROR", [RS, RE, RS, RF]],
  ["message ids reused across runs", [RS, TS("m"), TE("m"), RF, RS, TS("m"), TE("m"), RF]],
  [
    "concurrent and overlapping messages and tool calls",
    [RS, TS("a"), CS("c"), TS("b"), TC("a"), CA("c"), TC("b"), TE("a"), CE("c"), TE("b"), RF],
  ],
  [
    "RAW, CUSTOM, STATE_* and MESSAGES_SNAPSHOT inside open messages and tool calls",
    [
      RS,
      TS("m"),
      CS("c"),
      { type: "RAW", event: null },
      { type: "CUSTOM", name: "n", value: 1 },
      { type: "STATE_SNAPSHOT", snapshot: {} },
      { type: "STATE_DELTA", delta: [{ op: "add", path: "/a", value: 1 }] },
      { type: "MESSAGES_SNAPSHOT", messages: [] },
      CE("c"),
      TE("m"),
      RF,
    ],
  ],
  ["properly nested steps, and steps closed out of order", [RS, SS("a"), SS("b"), SF("b"), SS("c"), SF("a"), SF("c"), RF]],
  ["three runs in a row", [RS, RF, RS, RF, RS, RF]],
  [
    "text chunks expand, and RUN_FINISHED closes them",
    [
      RS,
      { type: "TEXT_MESSAGE_CHUNK", messageId: "m", delta: "a" },
      { type: "TEXT_MESSAGE_CHUNK", delta: "b" },
      { type: "TOOL_CALL_CHUNK", toolCallId: "c", toolCallName: "f", delta: "{}" },
      RF,
    ],
  ],
  ["TOOL_CALL_RESULT needs no open call", [RS, { type: "TOOL_CALL_RESULT", messageId: "r", toolCallId: "never", content: "x" }, RF]],
  [
    "a subagent lane with its own steps and messages",
    [
      RS,
      { type: "SUBAGENT_STARTED", subagentRunId: "s", name: "n" },
      { ...SS("x"), subagentRunId: "s" },
      TS("m", { subagentRunId: "s" }),
      TC("m", { subagentRunId: "s" }),
      TE("m"),
      { ...SF("x"), subagentRunId: "s" },
      { type: "SUBAGENT_FINISHED", subagentRunId: "s" },
      RF,
    ],
  ],
];

const invalidShapes: [string, JsonObject][] = [
  ["an unknown type", { type: "THINKING_CONTENT", delta: "x" }],
  ["a missing required field", { type: "TEXT_MESSAGE_CONTENT", messageId: "m" }],
  ["a text message role AG-UI does not stream", { type: "TEXT_MESSAGE_START", messageId: "m", role: "tool" }],
  ["a non-integer timestamp", { type: "TEXT_MESSAGE_END", messageId: "m", timestamp: 1.5 }],
  ["null for an optional field", { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "f", parentMessageId: null }],
  ["a CUSTOM with no value", { type: "CUSTOM", name: "n" }],
  ["a negative token count", { type: "RUN_FINISHED", threadId: "t", runId: "r", usage: [{ inputTokens: -1 }] }],
  ["an unknown outcome", { type: "RUN_FINISHED", threadId: "t", runId: "r", outcome: { type: "maybe" } }],
  ["a SUBAGENT_STARTED with no subagentRunId", { type: "SUBAGENT_STARTED", name: "n" }],
];

describe("ag-ui validator: ordering rules", () => {
  it.each(invalidOrders)("rejects %s (and so does verifyEvents)", async (_name, events) => {
    expect(schemaFailures(events)).toEqual([]);
    // The rule broken, at its event; a stream that also stops inside its run gets the end-of-stream warning (no line).
    const issues = ourIssues(events).filter((i) => i.line !== undefined);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((i) => i.code === "out-of-order" && i.severity === "error")).toBe(true);
    expect(await peerVerdict(events)).toBeDefined();
  });

  it.each(validOrders)("accepts %s (and so does verifyEvents)", async (_name, events) => {
    expect(schemaFailures(events)).toEqual([]);
    expect(ourIssues(events)).toEqual([]);
    expect(await peerVerdict(events)).toBeUndefined();
  });

  it.each(invalidShapes)("rejects %s by schema (and so does EventSchemas)", (_name, event) => {
    const issues = ourIssues([RS, event]);
    expect(issues.map((i) => i.code)).toContain("schema-mismatch");
    expect(EventSchemas.safeParse(event).success).toBe(false);
  });

  it("the CLI exits 1 on an invalid stream and names the rule", async () => {
    const io = fakeIo({ stdin: `${JSON.stringify(RS)}\n${JSON.stringify(TC("m"))}\n` });
    expect(await run(["validate", "--format", "ag-ui"], io)).toBe(1);
    expect(io.err()).toMatch(/TEXT_MESSAGE_CONTENT for text message "m", which is not in progress/);
  });
});
