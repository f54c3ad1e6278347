/** The writers' sequence guard: repairs what checkSequence would reject, and holds only open state. */
import { describe, expect, it } from "vitest";
import type { AgentEvent, AgentEventDraft } from "../../../src/model/events.ts";
import { checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { REMEMBERED_IDS, createSequenceGuard } from "../../../src/formats/agentstream/sequence-guard.ts";
import { build } from "../../helpers/events.ts";

function guarded(...drafts: AgentEventDraft[]): AgentEvent[] {
  const guard = createSequenceGuard();
  return [...build(drafts).flatMap((event) => guard.push(event)), ...guard.end()];
}

describe("createSequenceGuard", () => {
  it.each<[string, AgentEventDraft[], string[]]>([
    [
      "an orphan tool result gets a start",
      [{ type: "tool.completed", toolCallId: "t", isError: false }],
      ["repair:orphan-tool-event", "tool.started", "tool.completed"],
    ],
    [
      "a turn end without a start gets one",
      [{ type: "turn.completed", turnId: "u" }],
      ["repair:orphan-turn-end", "turn.started", "turn.completed"],
    ],
    [
      "a message completed twice keeps the first",
      [
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "a" },
        { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: "a" },
      ],
      ["message.completed", "repair:duplicate-completion"],
    ],
    [
      "a message left open is closed with its text",
      [{ type: "message.delta", role: "assistant", kind: "text", messageId: "m", text: "hi", position: 5 }],
      ["repair:orphan-delta", "message.started", "repair:delta-position", "message.delta", "repair:unclosed-message", "message.completed"],
    ],
    [
      "a tool left open is closed as an error",
      [{ type: "tool.started", toolCallId: "t", name: "Bash" }],
      ["tool.started", "repair:unclosed-tool", "tool.completed"],
    ],
  ])("%s", (_name, drafts, expected) => {
    const events = guarded(...drafts);
    expect(events.map((e) => (e.type === "repair" ? `repair:${e.kind}` : e.type))).toEqual(expected);
    expect(events.map((e) => e.seq)).toEqual(events.map((_e, i) => i));
    expect(checkSequence(events)).toEqual([]);
  });

  it("closes an open message with the text its deltas carried", () => {
    const completed = guarded(
      { type: "message.started", messageId: "m", role: "user", kind: "text" },
      { type: "message.delta", role: "user", kind: "text", messageId: "m", text: "ab", position: 0 },
    ).at(-1);
    expect(completed).toMatchObject({ type: "message.completed", role: "user", text: "ab" });
  });

  it("releases a message, tool call and turn when it completes, and remembers a bounded number of ids", () => {
    const guard = createSequenceGuard();
    const events = build(
      Array.from({ length: REMEMBERED_IDS + 10 }, (_v, i): AgentEventDraft[] => [
        { type: "turn.started", turnId: `u${i}` },
        { type: "message.started", messageId: `m${i}`, role: "assistant", kind: "text" },
        { type: "message.delta", role: "assistant", kind: "text", messageId: `m${i}`, text: "x".repeat(1000), position: 0 },
        { type: "message.completed", messageId: `m${i}`, role: "assistant", kind: "text", text: "x".repeat(1000) },
        { type: "tool.started", toolCallId: `t${i}`, name: "Bash" },
        { type: "tool.completed", toolCallId: `t${i}`, isError: false },
        { type: "turn.completed", turnId: `u${i}` },
      ]).flat(),
    );
    for (const event of events) {
      guard.push(event);
      if (event.type === "turn.completed") expect(guard.size.open).toBe(0);
    }
    expect(guard.size.remembered).toBe(3 * REMEMBERED_IDS);
  });
});
