/**
 * `--to ai-sdk` and `--format ai-sdk`.
 *
 * Peer client: the `ai` package. Every chunk we write passes its `uiMessageChunkSchema`;
 * `readUIMessageStream` rebuilds, from our chunks (NDJSON) and from our `--sse` output read by
 * `DefaultChatTransport` (its SSE parser and schema check), one assistant message with the final
 * text and the tool calls (ids, names, inputs, outputs, error state) of the source. Our validator
 * rejects one synthetic stream per rule, and the reader agrees on every rule it enforces.
 */
import { DefaultChatTransport, readUIMessageStream, uiMessageChunkSchema, type UIMessage, type UIMessageChunk } from "ai";
import { test } from "../../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { run } from "../../../src/cli/run.ts";
import type { Issue } from "../../../src/errors.ts";
import type { AgentEvent, AgentEventDraft, JsonObject, JsonValue } from "../../../src/model/events.ts";
import { aiSdkSpec as aiSdkFormat } from "../../../src/formats/ai-sdk/spec.ts";
import { compileOnce, convertEvents, records } from "../../helpers/convert.ts";
import { build } from "../../helpers/events.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { oddEvents } from "../../helpers/odd-events.ts";
import { readFile } from "../../helpers/read.ts";
import { listCaptures, noteSharedMissing, repoRoot } from "../../helpers/shared.ts";

type Wire = JsonObject & { type: string };

/** Our events with the envelope filled in. */
const stream = (...drafts: AgentEventDraft[]): AgentEvent[] => build(drafts);
const writeText = (events: readonly AgentEvent[], sse = false): string => convertEvents(events, "ai-sdk", { sse });
const write = (events: readonly AgentEvent[]): Wire[] => records(writeText(events)) as Wire[];

const chunkSchema = uiMessageChunkSchema();

async function schemaFailures(chunks: readonly JsonObject[]): Promise<string[]> {
  const failures: string[] = [];
  for (const chunk of chunks) {
    const result = await chunkSchema.validate!(chunk);
    if (!result.success) failures.push(`${JSON.stringify(chunk).slice(0, 120)}: ${String(result.error).slice(0, 200)}`);
  }
  return failures;
}

function ourIssues(chunks: readonly JsonObject[]): Issue[] {
  const validator = aiSdkFormat!.createValidator(compileOnce);
  return [...chunks.flatMap((chunk, i) => validator.check(chunk, i + 1)), ...validator.end()];
}

function readableOf<T>(items: readonly T[]): ReadableStream<T> {
  return new ReadableStream<T>({
    start(controller) {
      for (const item of items) controller.enqueue(item);
      controller.close();
    },
  });
}

/** The peer reader: the last state of the message, and what it reported to onError. */
async function readMessage(source: ReadableStream<UIMessageChunk>): Promise<{ message: UIMessage | undefined; errors: string[] }> {
  const errors: string[] = [];
  let message: UIMessage | undefined;
  for await (const state of readUIMessageStream<UIMessage>({ stream: source, onError: (error) => errors.push(String(error)) }))
    message = state;
  return { message, errors };
}

const readChunks = (chunks: readonly JsonObject[]) => readMessage(readableOf(chunks as unknown as UIMessageChunk[]));

/** Reads our SSE text the way useChat does: DefaultChatTransport parses the SSE and checks each chunk. */
async function readSse(sseText: string): Promise<{ message: UIMessage | undefined; errors: string[] }> {
  const transport = new DefaultChatTransport({
    api: "http://agentstream.invalid/chat",
    fetch: async () => new Response(sseText, { headers: { "content-type": "text/event-stream" } }),
  });
  const chunks = await transport.sendMessages({
    chatId: "c",
    messages: [],
    abortSignal: undefined,
    trigger: "submit-message",
    messageId: undefined,
  });
  return readMessage(chunks);
}

async function expectValid(chunks: readonly Wire[], readerErrors: string[] = []): Promise<UIMessage> {
  expect(await schemaFailures(chunks)).toEqual([]);
  expect(ourIssues(chunks)).toEqual([]);
  const { message, errors } = await readChunks(chunks);
  expect(errors).toEqual(readerErrors);
  return message as UIMessage;
}

type Part = UIMessage["parts"][number];
const partTypes = (message: UIMessage): string[] => message.parts.map((p) => p.type);
const types = (chunks: readonly Wire[]): string[] => chunks.map((c) => c.type);
const S = "sess-1";
const usage = { inputTokens: 3, outputTokens: 2, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null };

describe("ai-sdk writer: mapping", () => {
  const cases: {
    name: string;
    input: AgentEventDraft[];
    types: string[];
    readerErrors?: string[];
    check?: (out: Wire[], message: UIMessage) => void;
  }[] = [
    {
      name: "a streamed message in a session",
      input: [
        { type: "session.started", sessionId: S, agent: "codex", model: "m1" },
        { type: "message.started", sessionId: S, messageId: "m", role: "assistant", kind: "text" },
        { type: "message.delta", role: "assistant", kind: "text", sessionId: S, messageId: "m", text: "Hel", position: 0 },
        { type: "message.delta", role: "assistant", kind: "text", sessionId: S, messageId: "m", text: "lo", position: 3 },
        { type: "message.completed", sessionId: S, messageId: "m", role: "assistant", kind: "text", text: "Hello" },
        { type: "session.completed", sessionId: S, status: "success", finalText: "Hello", usage, costUsd: 0.5 },
      ],
      types: ["start", "text-start", "text-delta", "text-delta", "text-end", "message-metadata", "finish"],
      check(out, message) {
        expect(out[0]).toEqual({ type: "start", messageId: S, messageMetadata: { sessionId: S, agent: "codex", model: "m1" } });
        expect(message.id).toBe(S);
        expect(message.parts).toEqual([{ type: "text", text: "Hello", state: "done" }]);
        expect(message.metadata).toEqual({
          sessionId: S,
          agent: "codex",
          model: "m1",
          status: "success",
          finalText: "Hello",
          usage,
          costUsd: 0.5,
        });
      },
    },
    {
      name: "a message.completed with no deltas",
      input: [{ type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "whole" }],
      types: ["start", "text-start", "text-delta", "text-end", "finish"],
    },
    {
      name: "a final answer only the completion carries becomes a text part (a chat UI shows parts)",
      input: [
        { type: "session.started", sessionId: S },
        { type: "tool.started", sessionId: S, toolCallId: "t", name: "Bash", input: { command: "ls" } },
        { type: "tool.completed", sessionId: S, toolCallId: "t", isError: false, output: "a.txt" },
        { type: "session.completed", sessionId: S, status: "success", finalText: "There is one file." },
      ],
      types: [
        "start",
        "tool-input-start",
        "tool-input-available",
        "tool-output-available",
        "text-start",
        "text-delta",
        "text-end",
        "message-metadata",
        "finish",
      ],
      check: (_out, message) =>
        expect(message.parts.filter((p) => p.type === "text")).toEqual([{ type: "text", text: "There is one file.", state: "done" }]),
    },
    {
      name: "a final answer already shown as text (whole or as the joined messages) is not repeated",
      input: [
        { type: "message.completed", messageId: "a", role: "assistant", kind: "text", text: "One." },
        { type: "message.completed", messageId: "b", role: "assistant", kind: "text", text: "Two." },
        { type: "session.completed", status: "success", finalText: "One.Two." },
      ],
      types: ["start", "text-start", "text-delta", "text-end", "text-start", "text-delta", "text-end", "message-metadata", "finish"],
    },
    {
      name: "empty text writes no empty delta",
      input: [
        { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "" },
      ],
      types: ["start", "text-start", "text-end", "finish"],
    },
    {
      name: "a completion longer than the deltas sends the rest",
      input: [
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "Hel", position: 0 },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "Hello" },
      ],
      types: ["start", "text-start", "text-delta", "text-delta", "text-end", "finish"],
      check: (_out, message) => expect(message.parts).toEqual([{ type: "text", text: "Hello", state: "done" }]),
    },
    {
      name: "a revised completion follows as a new text part",
      input: [
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "Helo", position: 0 },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "Hello" },
      ],
      types: ["start", "text-start", "text-delta", "text-end", "text-start", "text-delta", "text-end", "finish"],
      check: (_out, message) => expect(message.parts.map((p) => (p as { text: string }).text)).toEqual(["Helo", "Hello"]),
    },
    {
      name: "reasoning with a signature, and redacted reasoning",
      input: [
        { type: "message.started", messageId: "r", role: "assistant", kind: "reasoning" },
        { type: "message.delta", role: "assistant", kind: "reasoning", messageId: "r", text: "think", position: 0 },
        { type: "message.completed", messageId: "r", role: "assistant", kind: "reasoning", text: "think", signature: "sig" },
        { type: "message.completed", messageId: "x", role: "assistant", kind: "redacted_reasoning", text: "", signature: "cipher" },
      ],
      types: ["start", "reasoning-start", "reasoning-delta", "reasoning-end", "reasoning-start", "reasoning-end", "finish"],
      check(out, message) {
        expect(out[3]).toEqual({ type: "reasoning-end", id: "r", providerMetadata: { agentstream: { signature: "sig" } } });
        expect(message.parts[1]).toMatchObject({
          type: "reasoning",
          text: "",
          providerMetadata: { agentstream: { signature: "cipher", redacted: true } },
        });
      },
    },
    {
      name: "a tool call with its input and output",
      input: [
        { type: "tool.started", toolCallId: "t1", name: "Bash", input: { command: "ls" } },
        { type: "tool.completed", toolCallId: "t1", output: "a\nb", isError: false, exitCode: 0 },
      ],
      types: ["start", "tool-input-start", "tool-input-available", "tool-output-available", "data-tool-completed", "finish"],
      check(out, message) {
        expect(out[4]).toEqual({ type: "data-tool-completed", data: { toolCallId: "t1", exitCode: 0 }, transient: true });
        expect(message.parts).toEqual([
          {
            type: "dynamic-tool",
            toolName: "Bash",
            toolCallId: "t1",
            state: "output-available",
            input: { command: "ls" },
            output: "a\nb",
            providerExecuted: true,
          },
        ]);
      },
    },
    {
      name: "streamed input is parsed when it is complete; a failed call is output-error",
      input: [
        { type: "tool.started", toolCallId: "t1", name: "Edit" },
        { type: "tool.input.delta", toolCallId: "t1", text: '{"a":' },
        { type: "tool.input.delta", toolCallId: "t1", text: "1}" },
        { type: "tool.completed", toolCallId: "t1", output: "denied", isError: true },
      ],
      types: ["start", "tool-input-start", "tool-input-delta", "tool-input-delta", "tool-input-available", "tool-output-error", "finish"],
      check: (_out, message) => expect(message.parts[0]).toMatchObject({ state: "output-error", input: { a: 1 }, errorText: "denied" }),
    },
    {
      name: "input that is not JSON stays text",
      input: [
        { type: "tool.started", toolCallId: "t1", name: "apply_patch" },
        { type: "tool.input.delta", toolCallId: "t1", text: "*** Begin Patch" },
        { type: "tool.completed", toolCallId: "t1", result: { ok: true }, isError: false },
      ],
      types: ["start", "tool-input-start", "tool-input-delta", "tool-input-available", "tool-output-available", "finish"],
      check: (_out, message) => expect(message.parts[0]).toMatchObject({ input: "*** Begin Patch", output: { ok: true } }),
    },
    {
      name: "a tool.completed with no tool.started creates the part",
      input: [{ type: "tool.completed", toolCallId: "t9", name: "Read", output: "x", isError: false }],
      types: ["start", "tool-input-available", "tool-output-available", "finish"],
      check: (_out, message) => expect(message.parts[0]).toMatchObject({ toolCallId: "t9", toolName: "Read", input: null, output: "x" }),
    },
    {
      name: "turns are steps; finish-step closes open parts, and a later delta opens a new one",
      input: [
        { type: "turn.started", turnId: "u1" },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "a", position: 0 },
        { type: "tool.started", toolCallId: "t", name: "X" },
        { type: "turn.completed", turnId: "u1", usage },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "b", position: 1 },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "ab" },
        { type: "tool.completed", toolCallId: "t", isError: false },
      ],
      types: [
        "start",
        "start-step",
        "text-start",
        "text-delta",
        "tool-input-start",
        "text-end",
        "tool-input-available",
        "finish-step",
        "data-turn-completed",
        "text-start",
        "text-delta",
        "text-end",
        "tool-output-available",
        "finish",
      ],
      check: (_out, message) => expect(partTypes(message)).toEqual(["step-start", "text", "dynamic-tool", "data-turn-completed", "text"]),
    },
    {
      name: "messages of other roles and of subagents are data parts; subagent tool calls are tool parts",
      input: [
        { type: "session.started", sessionId: S },
        { type: "message.completed", sessionId: S, messageId: "u", role: "user", kind: "text", text: "do it" },
        { type: "tool.started", sessionId: S, toolCallId: "task", name: "Task", input: {} },
        { type: "session.started", sessionId: "sub", parentSessionId: S, parentToolCallId: "task" },
        { type: "turn.started", sessionId: "sub", turnId: "su" },
        { type: "message.delta", role: "assistant", kind: "text", sessionId: "sub", messageId: "sm", text: "found", position: 0 },
        { type: "tool.started", sessionId: "sub", toolCallId: "st", name: "Grep", input: { q: 1 } },
        { type: "tool.completed", sessionId: "sub", toolCallId: "st", output: "hit", isError: false },
        { type: "session.completed", sessionId: "sub", status: "success" },
        { type: "tool.completed", sessionId: S, toolCallId: "task", output: "found", isError: false },
      ],
      types: [
        "start",
        "data-message-completed",
        "tool-input-start",
        "tool-input-available",
        "data-session-started",
        "data-turn-started",
        "tool-input-start",
        "tool-input-available",
        "tool-output-available",
        "data-session-completed",
        "tool-output-available",
        "data-message-completed",
        "finish",
      ],
      check(out, message) {
        expect(out[1]).toEqual({ type: "data-message-completed", data: { messageId: "u", role: "user", kind: "text", text: "do it" } });
        expect(out[11]).toMatchObject({ data: { sessionId: "sub", messageId: "sm", text: "found" } });
        expect(message.parts.filter((p) => p.type === "dynamic-tool").map((p) => (p as { toolCallId: string }).toolCallId)).toEqual([
          "task",
          "st",
        ]);
      },
    },
    {
      name: "a plan is one data part, replaced by each update",
      input: [
        { type: "plan.updated", items: [{ text: "a", status: "pending" }] },
        { type: "plan.updated", items: [{ text: "a", status: "completed" }] },
      ],
      types: ["start", "data-plan-updated", "data-plan-updated", "finish"],
      check: (_out, message) =>
        expect(message.parts).toEqual([{ type: "data-plan-updated", id: "plan::", data: { items: [{ text: "a", status: "completed" }] } }]),
    },
    {
      name: "a failed session ends with an error chunk; an interrupted one with abort",
      input: [
        { type: "session.started", sessionId: S },
        { type: "session.completed", sessionId: S, status: "error", error: "boom" },
      ],
      types: ["start", "message-metadata", "error", "finish"],
      readerErrors: ["Error: boom"],
    },
    {
      name: "an interrupted session ends with abort",
      input: [{ type: "session.completed", status: "interrupted" }],
      types: ["start", "message-metadata", "abort", "finish"],
    },
    {
      name: "heartbeats are transient; other extras are stored data parts",
      input: [
        { type: "heartbeat", idleMs: 5 },
        { type: "usage", scope: "delta", usage },
        { type: "unknown", raw: { weird: 1 } },
      ],
      types: ["start", "data-heartbeat", "data-usage", "data-unknown", "finish"],
      check(out, message) {
        expect(out[1]).toEqual({ type: "data-heartbeat", data: { idleMs: 5 }, transient: true });
        expect(partTypes(message)).toEqual(["data-usage", "data-unknown"]);
      },
    },
  ];

  it.each(cases)("$name", async ({ input, types: expected, readerErrors, check }) => {
    const out = write(stream(...input));
    expect(types(out)).toEqual(expected);
    const message = await expectValid(out, readerErrors);
    check?.(out, message);
  });

  test.prop([oddEvents], { numRuns: 300 })("any sequence of events gives a valid stream that readUIMessageStream reads", async (events) => {
    const chunks = write(events);
    const errorChunks = chunks.filter((c) => c.type === "error").length;
    await expectValid(
      chunks,
      Array.from({ length: errorChunks }, () => expect.any(String)),
    );
  });

  it("writes nothing for an empty input", () => {
    expect(writeText([])).toBe("");
    expect(writeText([], true)).toBe("");
  });

  it("SSE: the header as a comment, one data field per chunk, [DONE] last, and no value can split a field", async () => {
    const events = stream({ type: "message.completed", messageId: "a\nb", role: "assistant", kind: "text", text: "x\r\ny\u2028" });
    const text = writeText(events, true);
    expect(text.startsWith(": x-vercel-ai-ui-message-stream: v1\n")).toBe(true);
    expect(text.endsWith("data: [DONE]\n\n")).toBe(true);
    const blocks = text
      .slice(text.indexOf("\n") + 1)
      .split("\n\n")
      .filter((b) => b !== "");
    for (const block of blocks) expect(block).toMatch(/^data: [^\r\n]+$/);
    const { message, errors } = await readSse(text);
    expect(errors).toEqual([]);
    expect(message?.parts).toEqual([{ type: "text", text: "x\r\ny\u2028", state: "done" }]);
  });
});

/** One tool call as the rebuilt message shows it. */
interface ToolFacts {
  name: string;
  input: unknown;
  state: string;
  output?: unknown;
  errorText?: string;
}

function toolFacts(message: UIMessage): Map<string, ToolFacts> {
  const facts = new Map<string, ToolFacts>();
  for (const part of message.parts as Part[]) {
    if (part.type !== "dynamic-tool") continue;
    const fact: ToolFacts = { name: part.toolName, input: part.input, state: part.state };
    if (part.state === "output-available") fact.output = part.output;
    if (part.state === "output-error") fact.errorText = part.errorText;
    facts.set(part.toolCallId, fact);
  }
  return facts;
}

/** The same facts read straight from our events. */
function sourceToolFacts(events: readonly AgentEvent[]): Map<string, ToolFacts> {
  const facts = new Map<string, ToolFacts & { text: string }>();
  for (const event of events) {
    if (event.type === "tool.started" && !facts.has(event.toolCallId))
      facts.set(event.toolCallId, { name: event.name, input: event.input, state: "input-available", text: "" });
    if (event.type === "tool.input.delta") {
      const fact = facts.get(event.toolCallId) ?? { name: "", input: undefined, state: "input-available", text: "" };
      facts.set(event.toolCallId, fact);
      if (fact.input === undefined) fact.text += event.text;
    }
    if (event.type === "tool.completed") {
      const fact = facts.get(event.toolCallId) ?? { name: event.name ?? "", input: null, state: "input-available", text: "" };
      facts.set(event.toolCallId, fact);
      delete fact.output;
      delete fact.errorText;
      if (event.isError) {
        fact.state = "output-error";
        fact.errorText =
          event.output ??
          (event.result !== undefined
            ? JSON.stringify(event.result)
            : event.exitCode !== undefined
              ? `exit code ${event.exitCode}`
              : "the tool failed");
      } else {
        fact.state = "output-available";
        fact.output = event.output ?? event.result ?? null;
      }
    }
  }
  return new Map(
    [...facts].map(([id, { text, ...fact }]) => {
      if (fact.input === undefined) fact.input = text === "" ? null : parseOrText(text);
      return [id, fact];
    }),
  );
}

function parseOrText(text: string): JsonValue {
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** The text a consumer shows as the answer: the session's stated final text, else the last text part. */
function finalTextOf(message: UIMessage): string | null {
  const stated = (message.metadata as { finalText?: string } | undefined)?.finalText;
  const texts = message.parts.filter((p): p is Extract<Part, { type: "text" }> => p.type === "text" && p.text.trim() !== "");
  return stated ?? texts.at(-1)?.text ?? null;
}

/** The root assistant's text messages: each must be a text part of the rebuilt message. */
function rootTexts(events: readonly AgentEvent[]): string[] {
  const subagents = new Set<string>();
  let root: string | undefined;
  const texts: string[] = [];
  for (const event of events) {
    if (event.type === "session.started" && event.sessionId !== undefined) {
      if (root !== undefined && (event.parentSessionId !== undefined || event.parentToolCallId !== undefined))
        subagents.add(event.sessionId);
      root ??= event.sessionId;
    }
    if (
      event.type === "message.completed" &&
      event.role === "assistant" &&
      event.kind === "text" &&
      event.text !== "" &&
      !(event.sessionId !== undefined && subagents.has(event.sessionId))
    )
      texts.push(event.text);
  }
  return texts;
}

const STATUS: Record<string, string> = { success: "output-available", error: "output-error", incomplete: "input-available" };

noteSharedMissing();
const sources: [string, string][] = [
  ["example/claude-code-session.ndjson", `${repoRoot}/examples/claude-code-session.ndjson`],
  ...listCaptures().map(([dialect, path]): [string, string] => [`${dialect}/${path.split("/").pop()}`, path]),
];

describe("ai-sdk writer: every capture, through readUIMessageStream", () => {
  it.each(sources)("%s", async (_name, path) => {
    const { events, summary } = readFile(path);
    const chunks = write(events);
    expect(await schemaFailures(chunks)).toEqual([]);
    expect(ourIssues(chunks)).toEqual([]);
    const failed = summary.status === "error";
    for (const { message, errors } of [await readChunks(chunks), await readSse(writeText(events, true))]) {
      // An `error` chunk (a failed session) is reported to onError; nothing else may be.
      expect(errors.length).toBe(failed ? 1 : 0);
      expect(message).toBeDefined();
      const rebuilt = message as UIMessage;
      expect(finalTextOf(rebuilt)).toEqual(summary.finalText);
      const texts = rebuilt.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text);
      // A chat UI shows text parts, not metadata: the final answer must be one of them, streamed or not.
      if (summary.finalText !== null && summary.finalText.trim() !== "")
        expect([...texts, texts.join(""), texts.join("\n")].some((text) => text.includes(summary.finalText!.trim()))).toBe(true);
      for (const text of rootTexts(events)) expect(texts).toContain(text);
      const facts = toolFacts(rebuilt);
      expect(facts).toEqual(sourceToolFacts(events));
      expect(summary.toolCalls.map((t) => [t.id, t.name, STATUS[t.status]])).toEqual([...facts].map(([id, f]) => [id, f.name, f.state]));
    }
  });
});

// ---- validator: one failing stream per rule ----

const start = { type: "start" };
const ts = (id: string) => ({ type: "text-start", id });
const td = (id: string) => ({ type: "text-delta", id, delta: "x" });
const te = (id: string) => ({ type: "text-end", id });

/** Rules the reader enforces: it throws, and so do we (errors). */
const readerRules: [string, JsonObject[]][] = [
  ["text-delta before text-start", [start, td("a")]],
  ["text-end before text-start", [start, te("a")]],
  ["text-delta under another id than the open part", [start, ts("a"), td("b")]],
  ["text-delta after text-end", [start, ts("a"), te("a"), td("a")]],
  ["a delta for a part opened before finish-step", [start, { type: "start-step" }, ts("a"), { type: "finish-step" }, td("a")]],
  ["reasoning-delta before reasoning-start", [start, { type: "reasoning-delta", id: "r", delta: "x" }]],
  ["reasoning-end before reasoning-start", [start, { type: "reasoning-end", id: "r" }]],
  ["tool-input-delta before tool-input-start", [start, { type: "tool-input-delta", toolCallId: "c", inputTextDelta: "{" }]],
  ["tool-output-available for an unknown call", [start, { type: "tool-output-available", toolCallId: "c", output: 1 }]],
  ["tool-output-error for an unknown call", [start, { type: "tool-output-error", toolCallId: "c", errorText: "x" }]],
  ["tool-output-denied for an unknown call", [start, { type: "tool-output-denied", toolCallId: "c" }]],
  ["tool-approval-request for an unknown call", [start, { type: "tool-approval-request", approvalId: "a", toolCallId: "c" }]],
];

/** The order a well-behaved writer keeps (ai-sdk-ui-stream.md §5): the reader copes, we warn. */
const writerRules: [string, JsonObject[]][] = [
  ["a text part left open at finish-step", [start, { type: "start-step" }, ts("a"), { type: "finish-step" }, { type: "finish" }]],
  ["a reasoning part left open at finish", [start, { type: "reasoning-start", id: "r" }, { type: "finish" }]],
  ["a part left open at the end of the stream", [start, ts("a")]],
  ["a chunk after finish", [start, { type: "finish" }, ts("a"), te("a")]],
  ["start-step while a step is open", [start, { type: "start-step" }, { type: "start-step" }, { type: "finish-step" }, { type: "finish" }]],
  ["finish-step with no step open", [start, { type: "finish-step" }, { type: "finish" }]],
  ["finish while a step is open", [start, { type: "start-step" }, { type: "finish" }]],
  ["text-start for a part already open", [start, ts("a"), ts("a"), te("a"), { type: "finish" }]],
];

const invalidShapes: [string, JsonObject][] = [
  ["a 7.x-only chunk type", { type: "reset-step" }],
  ["an unknown chunk type", { type: "text" }],
  ["a data part without its data key", { type: "data-usage" }],
  ["tool-input-available without input", { type: "tool-input-available", toolCallId: "c", toolName: "n" }],
  ["tool-output-available without output", { type: "tool-output-available", toolCallId: "c" }],
  ["message-metadata without messageMetadata", { type: "message-metadata" }],
  ["a finishReason clients reject", { type: "finish", finishReason: "unknown" }],
  ["a text-delta with no delta", { type: "text-delta", id: "a" }],
  ["providerMetadata that is not an object of objects", { type: "text-start", id: "a", providerMetadata: { p: 1 } }],
];

describe("ai-sdk validator: sequence rules", () => {
  it.each(readerRules)("rejects %s (and readUIMessageStream fails on it)", async (_name, chunks) => {
    expect(await schemaFailures(chunks)).toEqual([]);
    const issues = ourIssues(chunks);
    expect(issues.some((i) => i.severity === "error" && i.code === "out-of-order")).toBe(true);
    const { errors } = await readChunks(chunks);
    expect(errors.length).toBe(1);
  });

  it.each(writerRules)("warns on %s (readUIMessageStream copes)", async (_name, chunks) => {
    expect(await schemaFailures(chunks)).toEqual([]);
    const issues = ourIssues(chunks);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((i) => i.severity === "warning" && i.code === "out-of-order")).toBe(true);
    expect((await readChunks(chunks)).errors).toEqual([]);
  });

  it.each(invalidShapes)("rejects %s by schema (and so does uiMessageChunkSchema)", async (_name, chunk) => {
    expect(ourIssues([chunk]).map((i) => i.code)).toContain("schema-mismatch");
    expect((await chunkSchema.validate!(chunk)).success).toBe(false);
  });

  it("accepts the order streamText writes", async () => {
    const chunks = [
      { type: "start", messageId: "m" },
      { type: "start-step" },
      { type: "reasoning-start", id: "r" },
      { type: "reasoning-delta", id: "r", delta: "hm" },
      { type: "reasoning-end", id: "r" },
      ts("t"),
      td("t"),
      te("t"),
      { type: "tool-input-start", toolCallId: "c", toolName: "f" },
      { type: "tool-input-delta", toolCallId: "c", inputTextDelta: "{}" },
      { type: "tool-input-available", toolCallId: "c", toolName: "f", input: {} },
      { type: "finish-step" },
      { type: "start-step" },
      { type: "tool-output-available", toolCallId: "c", output: null },
      { type: "data-weather", id: "w", data: null, transient: false },
      { type: "finish-step" },
      { type: "finish", finishReason: "stop" },
    ];
    expect(ourIssues(chunks)).toEqual([]);
    expect(await schemaFailures(chunks)).toEqual([]);
    expect((await readChunks(chunks)).errors).toEqual([]);
  });

  it("the CLI exits 1 on an invalid stream and names the rule", async () => {
    const io = fakeIo({ stdin: `${JSON.stringify(start)}\n${JSON.stringify(td("a"))}\n` });
    expect(await run(["validate", "--format", "ai-sdk"], io)).toBe(1);
    expect(io.err()).toMatch(/text-delta for text part "a", which is not open/);
  });
});
