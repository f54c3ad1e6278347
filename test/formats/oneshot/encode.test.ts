/**
 * `--to oneshot`: packets, executors, timestamps, heartbeats, the validator's rules, and round trips
 * through our oneshot reader over the example and every real capture.
 */
import { fc, test } from "../../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { oneshot } from "../../../src/formats/oneshot/decode.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { oneshotExecutor } from "../../../src/formats/oneshot/encode.ts";
import { convertEvents, readBack, records, sources, validateFormat, validateRecords, expectSameFacts } from "../../helpers/convert.ts";
import { build, oddEventDrafts, roundTripPair } from "../../helpers/events.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { hasShared, noteSharedMissing, sharedPath } from "../../helpers/shared.ts";

const write = (events: AgentEvent[]) => records(convertEvents(events, "oneshot"));
const T = "2026-01-21T00:00:51.123Z";
const MS = Date.parse(T);
const start = { type: "session.started", agent: "cline", sessionId: "task-1", time: T, source: { dialect: "cline" } };
/** The packets after the session's own `event` packet, reduced to type and data. */
const body = (events: object[]) =>
  write(build([start, ...events]))
    .slice(1)
    .map((p) => ({ type: p.type, data: p.data }));

describe("oneshot writer: packets", () => {
  it("every packet has the seven fields; time from the event in seconds and ms", () => {
    const [first] = write(build([start]));
    expect(first).toEqual({
      timestamp: MS / 1000,
      ts_ms: MS,
      executor: "cline",
      oneshot_id: "task-1",
      type: "event",
      data: { type: "session.started", agent: "cline", sessionId: "task-1", time: T },
      is_heartbeat: false,
    });
  });

  it.each([
    [
      "preamble text → preamble (raw string)",
      [{ type: "text", text: "banner", position: "preamble" }],
      [{ type: "preamble", data: "banner" }],
    ],
    [
      "reasoning → thought",
      [{ type: "message.completed", messageId: "m", role: "assistant", kind: "reasoning", text: "hmm" }],
      [{ type: "thought", data: { text: "hmm" } }],
    ],
    [
      "redacted reasoning → thought marked redacted",
      [{ type: "message.completed", messageId: "m", role: "assistant", kind: "redacted_reasoning", text: "", signature: "s" }],
      [{ type: "thought", data: { text: "", redacted: true, signature: "s" } }],
    ],
    [
      "text → message {role, content}",
      [{ type: "message.completed", messageId: "m", role: "user", kind: "text", text: "go" }],
      [{ type: "message", data: { role: "user", content: "go" } }],
    ],
    [
      "command tool → tool_use {tool: bash, command, reason}",
      [{ type: "tool.started", toolCallId: "t", name: "Bash", kind: "command", input: { command: "ls -l" }, description: "list" }],
      [
        {
          type: "tool_use",
          data: { tool: "bash", command: "ls -l", reason: "list", id: "t", name: "Bash", kind: "command", input: { command: "ls -l" } },
        },
      ],
    ],
    [
      "argv command → joined command line",
      [{ type: "tool.started", toolCallId: "t", name: "shell", kind: "command", input: { command: ["git", "status"] } }],
      [
        {
          type: "tool_use",
          data: { tool: "bash", command: "git status", id: "t", name: "shell", kind: "command", input: { command: ["git", "status"] } },
        },
      ],
    ],
    [
      "edit tool → tool_use edit; its output → tool_output with the same tool; no exit code → null",
      [
        { type: "tool.started", toolCallId: "t", name: "Edit", kind: "file_edit", input: { path: "a" } },
        { type: "tool.completed", toolCallId: "t", name: "Edit", output: "ok", isError: false },
      ],
      [
        { type: "tool_use", data: { tool: "edit", id: "t", name: "Edit", kind: "file_edit", input: { path: "a" } } },
        { type: "tool_output", data: { tool: "edit", content: "ok", exit_code: null, id: "t", name: "Edit", is_error: false } },
      ],
    ],
    [
      "an MCP tool keeps its own name as tool",
      [{ type: "tool.started", toolCallId: "t", name: "search_docs", kind: "mcp" }],
      [{ type: "tool_use", data: { tool: "search_docs", id: "t", name: "search_docs", kind: "mcp" } }],
    ],
    [
      "session.completed → completion {status, result, stats}",
      [
        {
          type: "session.completed",
          status: "success",
          finalText: "done",
          usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
          costUsd: 0.1,
          durationMs: 5,
          turns: 1,
        },
      ],
      [
        {
          type: "completion",
          data: {
            status: "success",
            result: "done",
            stats: {
              usage: { input_tokens: 1, output_tokens: 2, cache_read_tokens: null, cache_write_tokens: null, reasoning_tokens: null },
              cost_usd: 0.1,
              duration_ms: 5,
              turns: 1,
            },
          },
        },
      ],
    ],
    [
      "an interrupted session → failure marked interrupted; no final text → result null",
      [{ type: "session.completed", status: "interrupted", error: "stopped" }],
      [{ type: "completion", data: { status: "failure", interrupted: true, result: null, error: "stopped", stats: {} } }],
    ],
    ["heartbeat → is_heartbeat packet", [{ type: "heartbeat", idleMs: 30000 }], [{ type: "heartbeat", data: { idle_ms: 30000 } }]],
    ["what the six types cannot say → event", [{ type: "retry", attempt: 2 }], [{ type: "event", data: { type: "retry", attempt: 2 } }]],
    [
      "text between records → event (it is not a preamble)",
      [{ type: "text", text: "warn", position: "interleaved" }],
      [{ type: "event", data: { type: "text", text: "warn", position: "interleaved" } }],
    ],
  ])("%s", (_name, events, expected) => {
    expect(body(events)).toEqual(expected);
  });

  it("only heartbeats have is_heartbeat true", () => {
    const packets = write(build([start, { type: "heartbeat" }, { type: "retry", attempt: 1 }]));
    expect(packets.map((p) => p.is_heartbeat)).toEqual([false, true, false]);
  });
});

describe("oneshot writer: executors", () => {
  it.each([
    ["claude-code", "claude"],
    ["claude-session", "claude"],
    ["gemini-cli", "gemini"],
    ["cline", "cline"],
    ["aider", "aider"],
    ["harmony", "direct"],
    ["codex", "codex"],
    ["codex-session", "codex"],
    ["opencode", "opencode"],
    ["cursor-agent", "cursor"],
    ["amp", "amp"],
    ["qwen-code", "qwen"],
    ["some-new-agent", "some-new-agent"],
  ])("%s → %s", (agent, executor) => {
    expect(oneshotExecutor(agent)).toBe(executor);
  });

  it("without a session.started, the event's dialect names the executor; with nothing, unknown", () => {
    expect(write(build([{ type: "retry", attempt: 1, source: { dialect: "harmony" } }]))[0]).toMatchObject({
      executor: "direct",
      oneshot_id: "unknown",
    });
    expect(write(build([{ type: "retry", attempt: 1 }]))[0]).toMatchObject({ executor: "unknown" });
  });
});

describe("oneshot writer: timestamps", () => {
  it("an event without time gets the last time seen; before any time, when it was read (never 0)", () => {
    const before = Date.now();
    const packets = write(
      build([
        { type: "text", text: "banner", position: "preamble" },
        { ...start, time: undefined },
        { type: "retry", attempt: 1, time: T },
        { type: "retry", attempt: 2 },
      ]),
    );
    const read = packets.slice(0, 2).map((p) => p.ts_ms);
    for (const ms of read) expect(ms).toBeGreaterThanOrEqual(before);
    for (const ms of read) expect(ms).toBeLessThanOrEqual(Date.now());
    expect(packets.slice(2).map((p) => p.ts_ms)).toEqual([MS, MS]);
    expect(packets.map((p) => p.timestamp)).toEqual(packets.map((p) => (p.ts_ms as number) / 1000));
  });

  it("preamble text waits for the first other event, so it carries the session's id and executor", () => {
    const packets = write(
      build([
        { type: "text", text: "banner", position: "preamble", source: { dialect: "gemini" } },
        { ...start, agent: "gemini-cli" },
      ]),
    );
    expect(packets.map((p) => [p.type, p.oneshot_id, p.executor])).toEqual([
      ["preamble", "task-1", "gemini"],
      ["event", "task-1", "gemini"],
    ]);
  });
});

describe("oneshot writer: odd sequences never throw", () => {
  it("a subagent, a second root session, a tool result with no call, a message that never completes", () => {
    const text = convertEvents(
      build([
        start,
        { type: "session.started", sessionId: "child", parentSessionId: "task-1" },
        { type: "message.completed", messageId: "c", role: "assistant", kind: "text", text: "from child", sessionId: "child" },
        { type: "tool.completed", toolCallId: "orphan", isError: true },
        { type: "session.completed", status: "success", sessionId: "task-1" },
        { type: "session.started", sessionId: "task-2" },
        { type: "message.started", messageId: "m", role: "assistant", kind: "text", sessionId: "task-2" },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "cut", position: 0, sessionId: "task-2" },
      ]),
      "oneshot",
    );
    const packets = records(text);
    expect(new Set(packets.map((p) => p.oneshot_id))).toEqual(new Set(["task-1"]));
    expect(packets.find((p) => p.type === "message" && (p.data as { content: string }).content === "from child")?.data).toMatchObject({
      session_id: "child",
    });
    expect(packets.at(-1)).toMatchObject({ type: "message", data: { role: "assistant", content: "cut", incomplete: true } });
    // The orphan result gets its tool_use first, so the output is valid.
    expect(packets.filter((p) => (p.data as { id?: string }).id === "orphan").map((p) => p.type)).toEqual(["tool_use", "tool_output"]);
    expect(validateFormat("oneshot", text)).toEqual([]);
  });
});

describe("oneshot validator: each rule rejects a hand-made violation", () => {
  const ok = {
    timestamp: 1.5,
    ts_ms: 1500,
    executor: "cline",
    oneshot_id: "x",
    type: "message",
    data: { role: "assistant", content: "a" },
    is_heartbeat: false,
  };
  it("accepts a valid packet", () => {
    expect(validateRecords("oneshot", [ok])).toEqual([]);
  });
  it.each([
    ["a missing field", { ...ok, is_heartbeat: undefined }],
    ["an unknown type", { ...ok, type: "log" }],
    ["ts_ms not an integer", { ...ok, ts_ms: 1.5 }],
    ["preamble data not a string", { ...ok, type: "preamble", data: { text: "x" } }],
    ["thought without text", { ...ok, type: "thought", data: {} }],
    ["message without content", { ...ok, data: { role: "assistant" } }],
    ["tool_use without tool", { ...ok, type: "tool_use", data: { command: "ls" } }],
    ["tool_output with a string exit code", { ...ok, type: "tool_output", data: { tool: "bash", content: "", exit_code: "0" } }],
    ["completion with another status", { ...ok, type: "completion", data: { status: "done" } }],
    ["a heartbeat packet with is_heartbeat false", { ...ok, type: "heartbeat", data: {} }],
  ])("schema: %s", (_name, record) => {
    expect(validateRecords("oneshot", [record]).map((i) => i.code)).toContain("schema-mismatch");
  });
  it.each([
    ["two oneshot ids in one log", [ok, { ...ok, oneshot_id: "y" }]],
    ["two executors in one log", [ok, { ...ok, executor: "claude" }]],
    ["timestamp and ts_ms disagree", [{ ...ok, timestamp: 2 }]],
  ])("sequence: %s", (_name, list) => {
    expect(validateRecords("oneshot", list).map((i) => i.code)).toContain("out-of-order");
  });
  it("sequence: a tool_output whose id no tool_use started is a warning", () => {
    expect(
      validateRecords("oneshot", [{ ...ok, type: "tool_output", data: { tool: "bash", content: "", id: "t9" } }]).map((i) => i.severity),
    ).toEqual(["warning"]);
  });
});

noteSharedMissing();
describe("oneshot: every capture round-trips through our reader", () => {
  it.each(sources())("%s", (_name, path) => {
    const source = readFile(path);
    const text = convertEvents(source.events, "oneshot");
    expect(validateFormat("oneshot", text)).toEqual([]);
    const back = readBack(text, oneshot);
    expect(back.dialect).toBe("oneshot");
    // What oneshot cannot carry (docs/formats/oneshot.md): message ids, the started/delta split,
    // times finer than a millisecond, "no time" on an event after one that had a time (carried
    // forward), absent vs empty tool output.
    const { expected, actual } = roundTripPair(source.events, back.events, {
      time: "source",
      messageIds: false,
      metricNames: true,
      emptyOutputIsAbsent: true,
    });
    expect(actual).toEqual(expected);
    expectSameFacts(back.summary, source.summary);
  });
});

describe("oneshot writer: any order of events", () => {
  test.prop([fc.array(fc.constantFrom(...oddEventDrafts()), { maxLength: 40 })])(
    "never throws; the validator finds no error (a result with no call is a warning)",
    (drafts) => {
      const text = convertEvents(build(drafts), "oneshot");
      expect(validateFormat("oneshot", text).filter((i) => i.severity === "error")).toEqual([]);
      expect(() => readBack(text, oneshot)).not.toThrow();
    },
  );
});

describe("oneshot writer: under run (what the run knows beyond the stream)", () => {
  const run = { runId: "run-7" };
  const underRun = (events: AgentEvent[]) => records(convertEvents(events, "oneshot", { run }));
  const exit = (code: number | null, signal: string | null = null) => ({
    type: "notice",
    kind: "exit",
    level: "info",
    text: "the agent exited",
    details: { exitCode: code, signal },
    source: { dialect: "aider" },
  });
  const aiderRun = (exitNotice: object) =>
    build([
      { type: "session.started", agent: "aider", sessionId: "a-1", source: { dialect: "aider" } },
      {
        type: "message.completed",
        messageId: "m",
        role: "assistant",
        kind: "text",
        text: "Done: added app.py",
        source: { dialect: "aider", line: 3 },
      },
      exitNotice,
    ]);

  it("a stream with no end record still ends with a completion, from the exit code (0: success)", () => {
    const packets = underRun(aiderRun(exit(0)));
    expect(packets.at(-1)).toMatchObject({
      type: "completion",
      oneshot_id: "a-1",
      data: { status: "success", result: "Done: added app.py", exit_code: 0, synthesized: true },
    });
    expect(packets.filter((p) => p.type === "completion")).toHaveLength(1);
    expect(validateRecords("oneshot", packets)).toEqual([]);
  });

  it("a non-zero exit or a signal is a failure that says why", () => {
    expect(underRun(aiderRun(exit(3))).at(-1)?.data).toMatchObject({
      status: "failure",
      exit_code: 3,
      error: "the agent exited with code 3",
    });
    expect(underRun(aiderRun(exit(null, "SIGTERM"))).at(-1)?.data).toMatchObject({ status: "failure", signal: "SIGTERM" });
  });

  it("the agent's own completion is the only one; convert (no run) writes none for a stream without one", () => {
    const done = build([
      { type: "session.started", agent: "claude-code", sessionId: "c-1" },
      { type: "session.completed", status: "success", finalText: "ok" },
      exit(0),
    ]);
    expect(underRun(done).filter((p) => p.type === "completion")).toHaveLength(1);
    expect(write(aiderRun(exit(0))).filter((p) => p.type === "completion")).toEqual([]);
  });

  it.skipIf(!hasShared)("a stream that names no session (Cline's) takes the run's id as oneshot_id", () => {
    const { events } = readFile(sharedPath("fixtures/cline/oneshot_sample-cline-activity_cli-1.0.9.jsonl"), { dialect: "cline" });
    expect(new Set(write(events).map((p) => p.oneshot_id))).toEqual(new Set(["unknown"]));
    expect(new Set(underRun(events).map((p) => p.oneshot_id))).toEqual(new Set(["run-7"]));
  });
});

describe("oneshot writer: the seed's Aider mapping", () => {
  it.skipIf(!hasShared)("Aider's prose is a thought, its file edits and commits tool_output; our reader gives the same events back", () => {
    const source = readFile(sharedPath("fixtures/aider/aider-website_hello-world-flask.md.txt"), { dialect: "aider" });
    const text = convertEvents(source.events, "oneshot");
    const packets = records(text);
    expect(packets.filter((p) => p.type === "message" && (p.data as { role?: string }).role === "assistant")).toEqual([]);
    expect(packets.filter((p) => p.type === "thought").length).toBeGreaterThan(0);
    const edits = packets.filter((p) => p.type === "tool_output");
    const changes = source.events.filter((e) => e.type === "file.changed").length;
    const commits = source.events.filter((e) => e.type === "notice" && e.kind === "commit").length;
    expect(changes).toBeGreaterThan(0);
    expect(commits).toBeGreaterThan(0);
    expect(edits.map((p) => (p.data as { tool: string }).tool).sort()).toEqual([
      ...Array<string>(changes).fill("edit"),
      ...Array<string>(commits).fill("git"),
    ]);
    expect(validateFormat("oneshot", text)).toEqual([]);
    const back = readBack(text, oneshot);
    const { expected, actual } = roundTripPair(source.events, back.events, {
      time: "source",
      messageIds: false,
      metricNames: true,
      emptyOutputIsAbsent: true,
    });
    expect(actual).toEqual(expected);
  });

  it("a commit is a git tool_output", () => {
    const packets = write(
      build([
        { type: "session.started", agent: "aider", sessionId: "a-1" },
        { type: "notice", kind: "commit", level: "info", text: "Commit 1a2b3c4 add app", details: { hash: "1a2b3c4", message: "add app" } },
      ]),
    );
    expect(packets.at(-1)).toMatchObject({ type: "tool_output", data: { tool: "git", content: "Commit 1a2b3c4 add app", exit_code: 0 } });
  });
});

describe("oneshot writer: --include-raw", () => {
  it("each packet carries the record its event came from, a 64-bit integer in it exact", () => {
    const line =
      '{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"},"history_log_id":1104763548210798038}\n';
    const { events } = readAll([`{"type":"thread.started","thread_id":"t-1"}\n`, line], { dialect: "codex", includeRaw: true });
    const text = convertEvents(events, "oneshot");
    const message = text.split("\n").find((l) => l.includes('"type":"message"'));
    expect(message).toContain('"raw":{"type":"item.completed"');
    expect(message).toContain('"history_log_id":1104763548210798038');
    expect(validateFormat("oneshot", text)).toEqual([]);
    // Without --include-raw, no raw.
    expect(convertEvents(readAll([line], { dialect: "codex" }).events, "oneshot")).not.toContain('"raw"');
  });
});
