/**
 * `--to text`: the layout of each event, the golden transcript of the example, streaming, odd sequences, and hostile
 * text: no control character but newline and tab survives into the output.
 */
import { fc, test } from "../../helpers/property.ts";
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentEventDraft, Usage } from "../../../src/model/events.ts";
import { createTextWriter } from "../../../src/views/transcript/text.ts";
import { convertEvents, sources } from "../../helpers/convert.ts";
import { readFile } from "../../helpers/read.ts";
import { FORBIDDEN, hostileEvents, hostilePayloads, stream } from "../../helpers/hostile.ts";
import { noteSharedMissing, repoRoot } from "../../helpers/shared.ts";

const toText = (...drafts: AgentEventDraft[]): string => convertEvents(stream(...drafts), "text");
/** The transcript without its footer (everything before the rule). */
const body = (...drafts: AgentEventDraft[]): string => toText(...drafts).split(`\n${"-".repeat(40)}\n`)[0] ?? "";
const usage: Usage = { inputTokens: 10, outputTokens: 20, cacheReadTokens: 5, cacheWriteTokens: null, reasoningTokens: null };
const START: AgentEventDraft = {
  type: "session.started",
  agent: "claude-code",
  agentVersion: "2.1.0",
  model: "sonnet",
  cwd: "/w",
  sessionId: "s1",
};

describe("text layout", () => {
  it.each<[string, AgentEventDraft[], string]>([
    ["session header", [START], "Session s1: claude-code 2.1.0, model sonnet, in /w\n"],
    [
      "a message: label, continuation lines indented, blank lines kept empty",
      [{ type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "one\n\ntwo\nthree\n" }],
      "Assistant: one\n\n  two\n  three\n",
    ],
    [
      "reasoning is marked",
      [{ type: "message.completed", messageId: "r", role: "assistant", kind: "reasoning", text: "hmm" }],
      "Thinking: hmm\n",
    ],
    ["a user prompt", [{ type: "message.completed", messageId: "u", role: "user", kind: "text", text: "fix it" }], "User: fix it\n"],
    [
      "deltas are written as they come; the completed message only ends the line",
      [
        { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "Hel", position: 0 },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "lo\nworld", position: 3 },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "Hello\nworld" },
      ],
      "Assistant: Hello\n  world\n",
    ],
    [
      "a completed text that differs from its deltas is written again as the final text",
      [
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "draft", position: 0 },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "final" },
      ],
      "Assistant: draft\n\nAssistant (final text): final\n",
    ],
    [
      "a tool call with its key argument, then its result with output right under it",
      [
        { type: "tool.started", toolCallId: "t", name: "Bash", kind: "command", input: { command: "ls", description: "list" } },
        { type: "tool.completed", toolCallId: "t", output: "a\nb\n", exitCode: 2, durationMs: 1500, isError: true },
      ],
      "Tool Bash: ls\nResult Bash: failed, exit 2, 1.5s\n    a\n    b\n",
    ],
    [
      "streamed arguments: the call is written once they have arrived",
      [
        { type: "tool.started", toolCallId: "t", name: "Read", kind: "file_read" },
        { type: "tool.input.delta", toolCallId: "t", text: '{"file_path":' },
        { type: "tool.input.delta", toolCallId: "t", text: '"/a.ts"}' },
        { type: "tool.completed", toolCallId: "t", output: "x", isError: false },
      ],
      "Tool Read: /a.ts\nResult Read: ok\n    x\n",
    ],
    [
      "arguments without a key one: compact JSON; progress output stands in for a missing output",
      [
        { type: "tool.started", toolCallId: "t", name: "lookup", kind: "mcp", input: { id: 7 } },
        { type: "tool.progress", toolCallId: "t", output: "part 1, " },
        { type: "tool.progress", toolCallId: "t", output: "part 2" },
        { type: "tool.completed", toolCallId: "t", isError: false },
      ],
      'Tool lookup: {"id":7}\nResult lookup: ok\n    part 1, part 2\n',
    ],
    [
      "file changes sit under the result of their tool, with the diff",
      [
        { type: "tool.started", toolCallId: "e", name: "Edit", kind: "file_edit", input: { file_path: "/a" } },
        { type: "tool.completed", toolCallId: "e", isError: false },
        {
          type: "file.changed",
          toolCallId: "e",
          changes: [
            { path: "/a", kind: "update", diff: "-x\n+y" },
            { path: "/b", kind: "rename", newPath: "/c" },
          ],
        },
      ],
      "Tool Edit: /a\nResult Edit: ok\nChanged: update /a\n    -x\n    +y\nChanged: rename /b -> /c\n",
    ],
    [
      "a plan",
      [
        {
          type: "plan.updated",
          items: [
            { text: "a", status: "completed" },
            { text: "b", status: "in_progress" },
            { text: "c", status: "pending" },
          ],
        },
      ],
      "Plan:\n  [x] a\n  [>] b\n  [ ] c\n",
    ],
    [
      "errors, warnings, retries, rate limits and failed turns; info notices and allowed limits are left out",
      [
        { type: "error", scope: "api", code: "overloaded", message: "try later" },
        { type: "notice", kind: "warning", level: "warning", text: "slow" },
        { type: "notice", kind: "hook", level: "info", text: "hook ran" },
        { type: "retry", attempt: 1, maxAttempts: 3, delayMs: 2000, error: "503" },
        { type: "rate_limit", status: "allowed" },
        { type: "rate_limit", status: "rejected", limit: "five_hour", resetsAt: "2026-01-01T00:00:00Z" },
        { type: "turn.completed", turnId: "t", status: "error", error: "boom" },
      ],
      "Error (api, overloaded): try later\n\nWarning: slow\n\nRetry 1/3 in 2.0s: 503\n\nRate limit rejected (five_hour), resets at 2026-01-01T00:00:00Z\n\nTurn failed: boom\n",
    ],
    [
      "a subagent's start, messages, tools and end are marked",
      [
        START,
        { type: "session.started", sessionId: "sub", parentSessionId: "s1", parentToolCallId: "task" },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "hi", sessionId: "sub" },
        { type: "tool.started", toolCallId: "t", name: "Grep", kind: "search", input: { pattern: "x" }, sessionId: "sub" },
        { type: "session.completed", status: "success", sessionId: "sub" },
      ],
      "Session s1: claude-code 2.1.0, model sonnet, in /w\n\nSubagent sub started (tool call task)\n\nAssistant (subagent): hi\n\nTool Grep (subagent): x\n\nSubagent sub finished: success\n",
    ],
    [
      "metrics are never dropped; text lines are kept",
      [
        { type: "metric", name: "flame", text: "Flame", values: { level: 0.5 } },
        { type: "text", text: "Reading additional input from stdin...", position: "preamble" },
      ],
      "Metric: flame: Flame (level=0.500)\n\nText: Reading additional input from stdin...\n",
    ],
  ])("%s", (_name, drafts, expected) => {
    expect(body(...drafts)).toBe(expected);
  });

  it("footer: status, error, agent, model, tokens, cost, duration, turns, tools", () => {
    const text = toText(
      START,
      { type: "tool.started", toolCallId: "t", name: "Bash", kind: "command", input: { command: "x" } },
      { type: "session.completed", status: "error", error: "max turns", usage, costUsd: 0.5, durationMs: 61000, turns: 3 },
    );
    expect(text.slice(text.indexOf("-".repeat(40)))).toBe(
      `${"-".repeat(40)}\nStatus: error\nError: max turns\nAgent: claude-code 2.1.0\nModel: sonnet\nTokens: 10 input, 20 output, 5 cache read\nCost: $0.5000\nDuration: 1m 01s\nTurns: 3\nTool calls: 1 (1 unfinished)\n`,
    );
  });

  it("the final answer is written before the footer when no assistant text was", () => {
    expect(toText({ type: "session.completed", status: "success", finalText: "42" })).toBe(
      `Final answer: 42\n\n${"-".repeat(40)}\nStatus: success\nTool calls: 0\n`,
    );
  });

  it("no events, no output", () => {
    expect(convertEvents([], "text")).toBe("");
  });

  it("streams: each delta's text comes out of write() at once", () => {
    const writer = createTextWriter();
    const [started, first, second] = stream(
      { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
      { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "Hel", position: 0 },
      { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "lo", position: 3 },
    );
    expect(writer.write(started as AgentEvent)).toBe("");
    expect(writer.write(first as AgentEvent)).toBe("Assistant: Hel");
    expect(writer.write(second as AgentEvent)).toBe("lo");
  });
});

it("golden: the example session", async () => {
  const { events } = readFile(`${repoRoot}/examples/claude-code-session.ndjson`);
  await expect(convertEvents(events, "text")).toMatchFileSnapshot("../../golden/formats/claude-code-session.txt");
});

noteSharedMissing();

describe("hostile text: no control character but newline and tab reaches the output", () => {
  it.each(hostilePayloads())("%s", (_id, payload) => {
    const text = convertEvents(hostileEvents(payload), "text");
    expect(text).not.toMatch(FORBIDDEN);
  });
});

it("names, ids and statuses stay on one line", () => {
  const text = convertEvents(hostileEvents("a\nb"), "text");
  expect(text.split("\n")[0]).toBe("Session a b: a b, model a b, in a b");
  expect(text).toContain("Tool a b: a\n  b\n");
  expect(text).toContain("Changed: rename a b -> a b\n");
});

describe("odd sequences", () => {
  const anyEvent = fc.constantFrom<AgentEventDraft>(
    START,
    { type: "session.started", sessionId: "sub", parentSessionId: "s1" },
    { type: "session.completed", status: "success" },
    { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
    { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "a\nb", position: 0 },
    { type: "message.delta", role: "assistant", kind: "text", messageId: "n", text: "c", position: 0, sessionId: "sub" },
    { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "a\nb" },
    { type: "message.completed", messageId: "n", role: "assistant", kind: "reasoning", text: "x" },
    { type: "tool.started", toolCallId: "t", name: "Bash", kind: "command" },
    { type: "tool.input.delta", toolCallId: "t", text: '{"command":"ls"}' },
    { type: "tool.progress", toolCallId: "t", output: "o" },
    { type: "tool.completed", toolCallId: "t", isError: false },
    { type: "file.changed", toolCallId: "t", changes: [{ path: "/f", kind: "update" }] },
    { type: "plan.updated", items: [] },
    { type: "error", scope: "session", message: "e" },
  );
  test.prop([fc.array(anyEvent, { maxLength: 30 })], { numRuns: 200 })("never throws; output ends with a line break", (drafts) => {
    const text = convertEvents(stream(...drafts), "text");
    if (drafts.length > 0) expect(text.endsWith("\n")).toBe(true);
    expect(text).not.toMatch(FORBIDDEN);
  });
});

describe("every source converts to text", () => {
  it.each(sources())("%s", (_name, path) => {
    const { events, summary } = readFile(path);
    const text = convertEvents(events, "text");
    expect(text).not.toMatch(FORBIDDEN);
    if (events.length > 0) expect(text).toContain(`Status: ${summary.status}`);
  });
});

describe("text transcript: unknown records", () => {
  it("one whose format shows it as plain text (a Witness type the spec does not list) reads as a text line; others stay out", () => {
    const out = convertEvents(
      stream(
        { type: "unknown", raw: { type: "plan", content: "the plan" }, reason: 'unknown witness event type "plan"', text: "the plan" },
        { type: "unknown", raw: { type: "x" }, reason: "unknown record type" },
      ),
      "text",
    );
    expect(out).toContain("the plan");
    expect(out).not.toContain('"x"');
    expect(out).toContain("Records not understood: 2");
  });
});
