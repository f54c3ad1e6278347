/**
 * `--to witness`: the mapping, the spec's validator rules, odd sequences, and round trips through
 * our witness reader over the example and every real capture.
 */
import { fc, test } from "../../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { witness } from "../../../src/formats/witness/decode.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import { createWitnessEncoder } from "../../../src/formats/witness/encode.ts";
import { convertEvents, readBack, records, sources, validateFormat, validateRecords, expectSameFacts } from "../../helpers/convert.ts";
import { build, oddEventDrafts, roundTripView } from "../../helpers/events.ts";
import { readFile } from "../../helpers/read.ts";
import { hasShared, noteSharedMissing, sharedPath } from "../../helpers/shared.ts";
import { run } from "../../../src/cli/run.ts";
import { fakeIo } from "../../helpers/fake-io.ts";

const write = (events: AgentEvent[]) => records(convertEvents(events, "witness"));

describe("witness writer: mapping", () => {
  it.each([
    [
      "reasoning → analysis",
      [{ type: "message.completed", messageId: "m", role: "assistant", kind: "reasoning", text: "think" }],
      [{ type: "analysis", content: "think" }],
    ],
    [
      "text → final",
      [{ type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "answer" }],
      [{ type: "final", content: "answer" }],
    ],
    [
      "channel → brain",
      [{ type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "a", channel: "path2" }],
      [{ type: "final", content: "a", brain: "path2" }],
    ],
    [
      "redacted reasoning → empty analysis marked redacted, signature kept",
      [{ type: "message.completed", messageId: "m", role: "assistant", kind: "redacted_reasoning", text: "", signature: "sig" }],
      [{ type: "analysis", content: "", meta: { redacted: true, signature: "sig" } }],
    ],
    [
      "metric → metric, meta = the values",
      [{ type: "metric", name: "flame", text: "Flame state", values: { k: 0.1 } }],
      [{ type: "metric", content: "Flame state", meta: { k: 0.1 } }],
    ],
    [
      "metric without text → its name as content",
      [{ type: "metric", name: "flame", values: {} }],
      [{ type: "metric", content: "flame", meta: {} }],
    ],
    [
      "usage → metric usage",
      [
        {
          type: "usage",
          scope: "delta",
          usage: { inputTokens: 1, outputTokens: 2, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
        },
      ],
      [
        {
          type: "metric",
          content: "usage",
          meta: {
            input_tokens: 1,
            output_tokens: 2,
            cache_read_tokens: null,
            cache_write_tokens: null,
            reasoning_tokens: null,
            scope: "delta",
          },
        },
      ],
    ],
    [
      "tool call and result → tool_call, tool_result with ids, input, exit code",
      [
        { type: "tool.started", toolCallId: "t1", name: "Bash", kind: "command", input: { command: "ls" } },
        { type: "tool.completed", toolCallId: "t1", name: "Bash", output: "a\nb", exitCode: 0, isError: false },
      ],
      [
        { type: "tool_call", content: "Bash", meta: { tool_call_id: "t1", name: "Bash", kind: "command", input: { command: "ls" } } },
        { type: "tool_result", content: "a\nb", meta: { tool_call_id: "t1", name: "Bash", is_error: false, exit_code: 0 } },
      ],
    ],
    [
      "streamed tool input is joined into the tool_call",
      [
        { type: "tool.started", toolCallId: "t1", name: "Bash" },
        { type: "tool.input.delta", toolCallId: "t1", text: '{"comm' },
        { type: "tool.input.delta", toolCallId: "t1", text: 'and":"ls"}' },
        { type: "tool.completed", toolCallId: "t1", isError: false },
      ],
      [
        { type: "tool_call", content: "Bash", meta: { tool_call_id: "t1", name: "Bash", input: { command: "ls" } } },
        { type: "tool_result", content: "", meta: { tool_call_id: "t1", is_error: false } },
      ],
    ],
    [
      "error → error",
      [{ type: "error", scope: "api", message: "overloaded", code: "529", fatal: false }],
      [{ type: "error", content: "overloaded", meta: { scope: "api", code: "529", fatal: false } }],
    ],
    [
      "a user message → debug carrying the event",
      [{ type: "message.completed", messageId: "u", role: "user", kind: "text", text: "fix it" }],
      [
        {
          type: "debug",
          content: "fix it",
          meta: { event: { type: "message.completed", messageId: "u", role: "user", kind: "text", text: "fix it" } },
        },
      ],
    ],
    [
      "session lifecycle → debug carrying the event",
      [{ type: "session.started", agent: "codex", sessionId: "s" }],
      [{ type: "debug", content: "session started: codex", meta: { event: { type: "session.started", agent: "codex", sessionId: "s" } } }],
    ],
  ])("%s", (_name, events, expected) => {
    expect(write(build(events))).toEqual(expected);
  });
});

describe("witness writer: odd sequences never throw", () => {
  it("a message that never completes is written at the end, marked incomplete", () => {
    const out = write(
      build([
        { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
        { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "half", position: 0 },
      ]),
    );
    expect(out).toEqual([{ type: "final", content: "half", meta: { incomplete: true } }]);
  });

  it("a tool result without its call, events after the session ended, and a subagent", () => {
    const out = write(
      build([
        { type: "session.started", sessionId: "root" },
        { type: "tool.completed", toolCallId: "x", isError: true, sessionId: "root" },
        { type: "session.completed", status: "success", sessionId: "root" },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "late", sessionId: "child" },
      ]),
    );
    expect(out.map((r) => r.type)).toEqual(["debug", "tool_result", "debug", "final"]);
    expect(out[3]).toEqual({ type: "final", content: "late", meta: { session_id: "child" } });
  });

  it("content is never truncated and stays UTF-8 (no ASCII escapes); a newline never splits a line", () => {
    const text = "Đây là câu trả lời 🎉\nline two\u2028".repeat(2000);
    const output = convertEvents(build([{ type: "message.completed", messageId: "m", role: "assistant", kind: "text", text }]), "witness");
    expect(output.split("\n").filter((l) => l !== "")).toHaveLength(1);
    expect(output).toContain("Đây là câu trả lời 🎉");
    expect(output).not.toMatch(/\\u[0-9a-f]{4}/i);
    expect(records(output)[0]?.content).toBe(text);
  });

  it("started and delta events write nothing: the completed message is the Witness event", () => {
    const encoder = createWitnessEncoder();
    const [started, delta, completed] = build([
      { type: "message.started", messageId: "m", role: "assistant", kind: "text" },
      { type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "Hi", position: 0 },
      { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "Hi there" },
    ]) as [AgentEvent, AgentEvent, AgentEvent];
    expect([encoder.encode(started), encoder.encode(delta)]).toEqual([[], []]);
    expect([...encoder.encode(completed), ...encoder.end()]).toEqual([{ type: "final", content: "Hi there" }]);
  });

  it("an encoder is independent of others and end() can be called with nothing encoded", () => {
    expect(createWitnessEncoder().end()).toEqual([]);
  });
});

describe("witness validator: the spec's rules", () => {
  it.each([
    ["type missing", { content: "x" }],
    ["content missing", { type: "final" }],
    ["content not a string", { type: "final", content: 42 }],
    ["type not a string", { type: 1, content: "x" }],
    ["brain not a string or null", { type: "final", content: "x", brain: 2 }],
    ["meta not an object or null", { type: "final", content: "x", meta: "m" }],
  ])("rejects %s", (_name, record) => {
    expect(validateRecords("witness", [record]).map((i) => i.code)).toContain("schema-mismatch");
  });

  it("accepts the spec's edge cases: empty content, no brain, null meta, a new type (info only)", () => {
    expect(
      validateRecords("witness", [
        { type: "final", content: "" },
        { type: "final", content: "x", brain: null, meta: null },
        { type: "plan", content: "p" },
      ]),
    ).toEqual([]);
  });
});

noteSharedMissing();
describe("witness: every capture round-trips through our reader", () => {
  it.each(sources())("%s", (_name, path) => {
    const source = readFile(path);
    const text = convertEvents(source.events, "witness");
    expect(validateFormat("witness", text)).toEqual([]);
    const back = readBack(text, witness);
    expect(back.dialect).toBe("witness");
    // What Witness cannot carry (docs/formats/witness.md): times on its own types, message ids,
    // the started/delta split, a metric's name beside its label, absent vs empty tool output.
    const view = { time: false, messageIds: false, metricNames: false, emptyOutputIsAbsent: true };
    expect(roundTripView(back.events, view)).toEqual(roundTripView(source.events, view));
    expectSameFacts(back.summary, source.summary);
  });
});

describe("witness writer: any order of events", () => {
  test.prop([fc.array(fc.constantFrom(...oddEventDrafts()), { maxLength: 40 })])("never throws and always validates", (drafts) => {
    const text = convertEvents(build(drafts), "witness");
    expect(validateFormat("witness", text)).toEqual([]);
    expect(() => readBack(text, witness)).not.toThrow();
  });
});

describe("witness → witness (convert --to witness of a Witness stream)", () => {
  // The spec's examples, with meta and brain on every type, a type it does not list, and a reserved one.
  const lines = [
    { type: "analysis", content: "Let me think...", brain: "path1", meta: { decode: { temperature: 0.4 } } },
    { type: "final", content: "Here is the answer.", brain: "path2", meta: { decode: { temperature: 0.7 }, scores: [0.9] } },
    { type: "metric", content: "Flame diagnostics", brain: "path1", meta: { k: 0.013, state: "sync", temperature: 0.65 } },
    { type: "plan", content: "1. read 2. answer", brain: "path1", meta: { score: 1 } },
    { type: "tool_call", content: "shell", brain: "path2", meta: { tool_call_id: "c1", input: { cmd: "ls" }, latency_ms: 3 } },
    { type: "tool_result", content: "ok", brain: "path2", meta: { tool_call_id: "c1", exit_code: 0, decode: { top_p: 1 } } },
    { type: "error", content: "boom", brain: null, meta: { scope: "turn", retry: true } },
    { type: "debug", content: "dbg", brain: "path1", meta: { foo: 1 } },
  ];
  const input = lines.map((l) => `${JSON.stringify(l)}\n`).join("");

  async function convert(args: string[], stdin: string): Promise<string> {
    const io = fakeIo({ stdin });
    expect(await run(["convert", "--to", "witness", ...args], io)).toBe(0);
    return io.out();
  }

  it("keeps every line as it was: meta (decode parameters, scores) and brain on every type", async () => {
    expect(await convert([], input)).toBe(input);
  });

  it("--dual-brain relabels analysis path1 and final path2, and leaves the rest", async () => {
    const swapped = lines.map((l) => (l.type === "analysis" ? { ...l, brain: "path2" } : l.type === "final" ? { ...l, brain: null } : l));
    const out = (await convert(["--dual-brain"], swapped.map((l) => `${JSON.stringify(l)}\n`).join("")))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(out.map((l) => l.brain)).toEqual(["path1", "path2", ...lines.slice(2).map((l) => l.brain)]);
    expect(out[0]?.meta).toEqual({ decode: { temperature: 0.4 } });
  });

  it.skipIf(!hasShared)(
    "--dual-brain is the spec's Harmony migration: analysis → path1, final → path2 (a real Harmony capture)",
    async () => {
      const capture = sharedPath("fixtures/harmony/test_keep_analysis_between_finals.txt");
      const plain = fakeIo();
      expect(await run(["convert", "--from", "harmony", "--to", "witness", capture], plain)).toBe(0);
      const brains = (text: string) =>
        text
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { type: string; brain?: string })
          .filter((l) => l.type === "analysis" || l.type === "final")
          .map((l) => `${l.type}:${l.brain}`);
      // Without the option, brain is the Harmony channel the message came from.
      expect(brains(plain.out())).toEqual(["final:final", "analysis:analysis", "final:final"]);
      const migrated = fakeIo();
      expect(await run(["convert", "--from", "harmony", "--to", "witness", "--dual-brain", capture], migrated)).toBe(0);
      expect(brains(migrated.out())).toEqual(["final:path2", "analysis:path1", "final:path2"]);
    },
  );
});
