/**
 * The deltas handed to the log worker as columns: the worker must get back events that serialize
 * to exactly the same text, in the same order, and any delta whose shape the columns cannot carry
 * (another key order, a time, no session, no line) must go as the object it is.
 */
import { describe, expect, it } from "vitest";
import { toLine } from "../../src/formats/agentstream/encode.ts";
import type { AgentEvent } from "../../src/model/events.ts";
import { packDeltas, unpackDeltas } from "../../src/run/_packed-deltas.ts";
import { readFile } from "../helpers/read.ts";
import { hasShared, sharedPath } from "../helpers/shared.ts";

/** Packs and unpacks through a structured clone, as the worker receives them. */
function roundTrip(events: readonly AgentEvent[]): { back: AgentEvent[]; packedCount: number } {
  const packing = packDeltas(events);
  if (packing === undefined) return { back: [...events], packedCount: 0 };
  const { rest, packed } = structuredClone(packing);
  return { back: unpackDeltas(rest, packed), packedCount: packed.texts.length };
}

const lines = (events: readonly AgentEvent[]): string[] => events.map((event) => toLine(event));

const delta = (seq: number, text: string, extra: Record<string, unknown> = {}): AgentEvent =>
  ({
    v: 1,
    seq,
    type: "message.delta",
    messageId: "m1",
    role: "assistant",
    kind: "text",
    text,
    position: seq * 10,
    sessionId: "s1",
    source: { dialect: "claude", line: seq + 1 },
    ...extra,
  }) as AgentEvent;

describe("packed deltas", () => {
  it.skipIf(!hasShared)("a real Claude capture comes back line for line, its deltas packed", () => {
    const { events } = readFile(sharedPath("fixtures/claude/ralph_partial_bash_success_2.1.218.jsonl"), { dialect: "claude" });
    const deltas = events.filter((event) => event.type === "message.delta").length;
    expect(deltas).toBeGreaterThan(10);
    const { back, packedCount } = roundTrip(events);
    expect(packedCount).toBe(deltas);
    expect(lines(back)).toEqual(lines(events));
  });

  it("keeps the order of deltas of several messages between other events, and each message's ids", () => {
    const events: AgentEvent[] = [
      { v: 1, seq: 0, type: "message.started", messageId: "m1", role: "assistant", kind: "text", sessionId: "s1" } as AgentEvent,
      delta(1, "Hel"),
      delta(2, 'lo "quoted" \u2028 é 👩‍💻'),
      delta(3, "thinking", { messageId: "m2", kind: "reasoning", sessionId: "s2" }),
      { v: 1, seq: 4, type: "heartbeat" } as AgentEvent,
      delta(5, "again"),
    ];
    const { back, packedCount } = roundTrip(events);
    expect(packedCount).toBe(4);
    expect(lines(back)).toEqual(lines(events));
  });

  it("packs the deltas `run` stamped with their receipt time (time before sessionId), and gives each its time back", () => {
    const timed = (seq: number, text: string, time: string): AgentEvent => {
      const { sessionId, source, ...head } = delta(seq, text) as AgentEvent & { sessionId: string; source: object };
      return { ...head, time, sessionId, source } as AgentEvent;
    };
    const events = [
      timed(0, "a", "2026-11-25T17:00:00.000Z"),
      timed(1, "b", "2026-11-25T17:00:00.000Z"),
      timed(2, "c", "2026-11-25T17:00:00.250Z"),
      delta(3, "untimed"),
    ];
    const { back, packedCount } = roundTrip(events);
    expect(packedCount).toBe(4);
    expect(lines(back)).toEqual(lines(events));
    expect(back.map((event) => event.time)).toEqual([
      "2026-11-25T17:00:00.000Z",
      "2026-11-25T17:00:00.000Z",
      "2026-11-25T17:00:00.250Z",
      undefined,
    ]);
  });

  it("sends a delta of any other shape as the object it is", () => {
    const reordered = {
      v: 1,
      seq: 2,
      type: "message.delta",
      messageId: "m1",
      text: "x",
      role: "assistant",
      kind: "text",
      position: 1,
      sessionId: "s1",
      source: { dialect: "claude", line: 3 },
    };
    const odd: AgentEvent[] = [
      delta(0, "a", { time: "2026-11-25T17:00:00Z" }),
      delta(1, "b", { source: { dialect: "claude" } }),
      reordered as AgentEvent,
      delta(3, "c", { sessionId: undefined }),
      delta(4, "d", { source: { line: 5, dialect: "claude" } }),
      delta(5, "e", { raw: { type: "stream_event" } }),
    ];
    const { back } = roundTrip(odd);
    expect(packDeltas(odd)).toBeUndefined();
    expect(lines(back)).toEqual(lines(odd));
    const mixed = [delta(0, "plain"), ...odd, delta(9, "plain again")];
    const again = roundTrip(mixed);
    expect(again.packedCount).toBe(2);
    expect(lines(again.back)).toEqual(lines(mixed));
  });
});
