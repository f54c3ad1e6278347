/**
 * What the terminal renderer keeps per session (src/views/terminal/sessions.ts, state.ts): a long session's answers
 * and tool calls leave no state behind once shown, so `render` and `run`'s view hold flat memory (issue #28).
 */
import { describe, expect, test } from "vitest";
import type { AgentEvent, EventOf } from "../../../src/model/events.ts";
import { onMessageCompleted, onMessageDelta, onMessageStarted } from "../../../src/views/terminal/on-message.ts";
import { onToolCompleted, onToolStarted } from "../../../src/views/terminal/on-tool.ts";
import { ANSWERS_KEPT, createRenderState } from "../../../src/views/terminal/state.ts";

const answer = "word ".repeat(200);
const NO_STATS = { lines: 0, records: 0, events: 0, invalid: 0, unknown: 0, skipped: 0 } as never;

function at<T extends AgentEvent["type"]>(seq: number, draft: Omit<EventOf<T>, "v" | "seq" | "sessionId">): EventOf<T> {
  return { v: 1, seq, sessionId: "s", ...draft } as unknown as EventOf<T>;
}

describe("the renderer's state over a long session", () => {
  test("answers kept to compare the final one with stay between ANSWERS_KEPT characters and twice that; messages and tools are dropped when they complete", () => {
    const r = createRenderState({ write: () => {}, mode: "none", verbosity: "normal", width: 80, links: false, keepColors: false });
    const n = Math.ceil((5 * ANSWERS_KEPT) / answer.length);
    let seq = 0;
    for (let i = 0; i < n; i++) {
      const messageId = `m${i}`;
      onMessageStarted(r, at<"message.started">(seq++, { type: "message.started", messageId, role: "assistant", kind: "text" }));
      onMessageDelta(
        r,
        at<"message.delta">(seq++, { type: "message.delta", messageId, role: "assistant", kind: "text", position: 0, text: answer }),
      );
      onMessageCompleted(
        r,
        at<"message.completed">(seq++, { type: "message.completed", messageId, role: "assistant", kind: "text", text: answer }),
      );
      const started = at<"tool.started">(seq++, { type: "tool.started", toolCallId: `t${i}`, name: "Bash", input: { command: "ls" } });
      const completed = at<"tool.completed">(seq++, {
        type: "tool.completed",
        toolCallId: `t${i}`,
        name: "Bash",
        isError: false,
        output: "x",
      });
      onToolStarted(r, started);
      onToolCompleted(r, completed);
      r.totals.add(started);
      r.totals.add(completed);
    }
    const session = r.sessions.get("s");
    const kept = session?.answers.reduce((sum, text) => sum + text.length, 0) ?? 0;
    expect(kept).toBeGreaterThanOrEqual(ANSWERS_KEPT);
    expect(kept).toBeLessThanOrEqual(2 * ANSWERS_KEPT);
    expect(session?.answers.at(-1)).toBe(answer);
    expect(r.messages.size).toBe(0);
    expect(r.tools.size).toBe(0);
    // The footer's totals list no tool calls (it shows only totals): nothing per call is kept.
    expect(r.totals.result(NO_STATS, undefined).toolCalls).toEqual([]);
  });
});
