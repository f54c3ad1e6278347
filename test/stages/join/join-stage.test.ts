/**
 * Delta joining (src/stages/join): a run of one message's deltas within one chunk becomes one
 * event; nothing is lost, reordered or held past the chunk; on every real capture a view shows
 * the same text from the joined stream as from the one with every delta.
 */
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentEventDraft } from "../../../src/model/events.ts";
import { createEventReaderFor } from "../../../src/pipeline/create-event-reader.ts";
import { createJoinStage } from "../../../src/stages/join/create-join-stage.ts";
import { createTerminalRenderer } from "../../../src/views/terminal/create-terminal-renderer.ts";
import { readAll, readFile } from "../../helpers/read.ts";
import { listCaptures, noteSharedMissing, repoRoot } from "../../helpers/shared.ts";

const delta = (text: string, position: number, messageId = "m1"): AgentEventDraft => ({
  type: "message.delta",
  messageId,
  role: "assistant",
  kind: "text",
  text,
  position,
});

function run(steps: ("settle" | AgentEventDraft)[], currentSource?: () => { dialect: string; line: number }): AgentEventDraft[] {
  const out: AgentEventDraft[] = [];
  const emit = (draft: AgentEventDraft) => out.push(draft);
  const stage = createJoinStage(currentSource === undefined ? {} : { currentSource });
  for (const step of steps) {
    if (step === "settle") stage.settle?.(emit);
    else stage.push(step, emit);
  }
  stage.end(emit);
  return out;
}

describe("createJoinStage", () => {
  it("joins one message's deltas until the chunk is read, and starts again after it", () => {
    const out = run([delta("Hel", 0), delta("lo, ", 3), delta("wor", 7), "settle", delta("ld", 10)]);
    expect(out).toEqual([delta("Hello, wor", 0), delta("ld", 10)]);
  });

  it("lets a run go before any other event, so the order is kept", () => {
    const done: AgentEventDraft = { type: "message.completed", messageId: "m1", role: "assistant", kind: "text", text: "ab" };
    expect(run([delta("a", 0), delta("b", 1), done])).toEqual([delta("ab", 0), done]);
  });

  it("does not join across messages, kinds, sessions, or a gap or overlap in positions", () => {
    const apart = (second: AgentEventDraft) => expect(run([delta("ab", 0), second])).toHaveLength(2);
    apart(delta("c", 2, "m2"));
    apart({ ...delta("c", 2), kind: "reasoning" } as AgentEventDraft);
    apart({ ...delta("c", 2), sessionId: "s2" } as AgentEventDraft);
    apart(delta("c", 3));
    apart(delta("b", 1));
    expect(run([delta("ab", 0), delta("c", 2)])).toHaveLength(1);
  });

  it("joins a tool call's input deltas, not two tool calls'", () => {
    const input = (toolCallId: string, text: string): AgentEventDraft => ({ type: "tool.input.delta", toolCallId, text });
    expect(run([input("t1", '{"a"'), input("t1", ":1}"), input("t2", "{}")])).toEqual([input("t1", '{"a":1}'), input("t2", "{}")]);
  });

  it("hands a lone delta on as it came, and gives a joined one its first record's source", () => {
    const lone = delta("solo", 0);
    expect(run([lone])[0]).toBe(lone);
    let line = 7;
    const source = () => ({ dialect: "claude", line: line++ });
    expect(run([delta("a", 0), delta("b", 1)], source)).toEqual([{ ...delta("ab", 0), source: { dialect: "claude", line: 7 } }]);
  });
});

noteSharedMissing();
const sources: [string, string][] = [
  ["example/claude-code-session.ndjson", `${repoRoot}/examples/claude-code-session.ndjson`],
  ...listCaptures().map(([dialect, path]): [string, string] => [`${dialect}/${path.split("/").pop()}`, path]),
];

/** Everything but the deltas, without the envelope's numbering (joining changes `seq`). */
const others = (events: readonly AgentEvent[]) =>
  events.filter((e) => e.type !== "message.delta" && e.type !== "tool.input.delta").map(({ seq: _seq, ...rest }) => rest);

const streamed = (events: readonly AgentEvent[]) => {
  const text = new Map<string, string>();
  for (const e of events) {
    if (e.type === "message.delta") text.set(e.messageId, (text.get(e.messageId) ?? "") + e.text);
    if (e.type === "tool.input.delta") text.set(e.toolCallId, (text.get(e.toolCallId) ?? "") + e.text);
  }
  return text;
};

/** What the renderer shows, as text: styles removed, and white space too (a joined run may wrap a word elsewhere). */
function shown(events: readonly AgentEvent[]): string {
  let out = "";
  const renderer = createTerminalRenderer({ write: (t) => (out += t), mode: "full", width: 80 });
  for (const e of events) renderer.render(e);
  renderer.end();
  return out.replace(/\x1b\[[0-9;:]*m/g, "").replace(/\s+/g, "");
}

describe("joinDeltas on the example and every real capture", () => {
  it.each(sources)("%s: the same text and the same other events", (_name, path) => {
    const each = readFile(path, { redact: true });
    const joined = readFile(path, { redact: true }, { joinDeltas: true });
    expect(others(joined.events)).toEqual(others(each.events));
    expect(streamed(joined.events)).toEqual(streamed(each.events));
    expect(joined.issues).toEqual(each.issues);
    expect(shown(joined.events)).toBe(shown(each.events));
    if (path.includes("/examples/")) expect(joined.events.length).toBeLessThan(each.events.length);
  });

  it.each(sources)("%s: the same summary facts from joined deltas", (_name, path) => {
    for (const redact of [true, false]) {
      const each = readFile(path, { redact, fields: "summary" });
      const joined = readFile(path, { redact, fields: "summary" }, { joinDeltas: true });
      expect(joined.summary).toEqual(each.summary);
    }
  });
});

describe("joinDeltas in the reader", () => {
  const lines = [
    '{"type":"stream_event","event":{"type":"message_start","message":{"id":"msg_1","model":"m","role":"assistant"}},"session_id":"s"}',
    '{"type":"stream_event","event":{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}},"session_id":"s"}',
    '{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"The quick brown fox jumps over "}},"session_id":"s"}',
    '{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"the lazy dog, and then "}},"session_id":"s"}',
    '{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"it naps in the afternoon sun."}},"session_id":"s"}',
  ];
  const texts = (events: readonly AgentEvent[]) => events.flatMap((e) => (e.type === "message.delta" ? [[e.text, e.source?.line]] : []));

  it("joins what one chunk brings, with the first record's line, and holds nothing past the chunk", () => {
    const oneChunk = readAll([`${lines.join("\n")}\n`], { dialect: "claude" }, { joinDeltas: true });
    expect(texts(oneChunk.events)).toEqual([["The quick brown fox jumps over the lazy dog, and then it naps in the afternoon sun.", 3]]);
    const perLine = readAll(
      lines.map((l) => `${l}\n`),
      { dialect: "claude" },
      { joinDeltas: true },
    );
    expect(texts(perLine.events)).toEqual([
      ["The quick brown fox jumps over ", 3],
      ["the lazy dog, and then ", 4],
      ["it naps in the afternoon sun.", 5],
    ]);
    // A live consumer sees the text of a chunk as soon as that chunk is fed.
    const seen: string[] = [];
    const reader = createEventReaderFor(
      { onEvent: (e) => e.type === "message.delta" && seen.push(e.text) },
      { dialect: "claude" },
      { joinDeltas: true },
    );
    reader.feed(`${lines.slice(0, 4).join("\n")}\n`);
    expect(seen).toEqual(["The quick brown fox jumps over the lazy dog, and then "]);
  });

  it("is ignored with includeRaw: every event keeps its record", () => {
    const raw = readAll([`${lines.join("\n")}\n`], { dialect: "claude", includeRaw: true }, { joinDeltas: true });
    expect(texts(raw.events)).toHaveLength(3);
  });
});
