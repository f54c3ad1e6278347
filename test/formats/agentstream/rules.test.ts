/**
 * The agentstream sequence rules (src/formats/agentstream/rules.ts): open ids are all kept, completed ones only the
 * latest `CHECKED_RECENT_IDS` of each kind, so the checker's memory does not grow with the stream (issue #28).
 */
import { describe, expect, test } from "vitest";
import { CHECKED_RECENT_IDS, checkSequence } from "../../../src/formats/agentstream/rules.ts";
import { build } from "../../helpers/events.ts";

/** `n` messages and tool calls, each completed before the next starts. */
function completedDrafts(n: number): object[] {
  const drafts: object[] = [];
  for (let i = 0; i < n; i++) {
    drafts.push(
      { type: "message.started", messageId: `m${i}`, role: "assistant", kind: "text" },
      { type: "message.delta", messageId: `m${i}`, position: 0, text: "hi" },
      { type: "message.completed", messageId: `m${i}`, role: "assistant", kind: "text", text: "hi" },
      { type: "tool.started", toolCallId: `t${i}`, name: "Bash" },
      { type: "tool.completed", toolCallId: `t${i}`, name: "Bash", isError: false },
    );
  }
  return drafts;
}

const messages = (issues: { message: string }[]): string[] => issues.map((i) => i.message);

describe("the sequence checker", () => {
  test("a repeat of a recently completed message or tool call is reported as a repeat", () => {
    const issues = checkSequence(
      build([
        ...completedDrafts(3),
        { type: "message.delta", messageId: "m1", position: 2, text: "!" },
        { type: "message.completed", messageId: "m2", role: "assistant", kind: "text", text: "hi" },
        { type: "tool.progress", toolCallId: "t0", output: "x" },
        { type: "tool.completed", toolCallId: "t1", name: "Bash", isError: false },
      ]),
    );
    expect(messages(issues)).toEqual([
      'message.delta for message "m1" after its message.completed',
      'message "m2" completed twice',
      'tool.progress for tool call "t0" after it completed',
      'tool call "t1" completed twice',
    ]);
  });

  test("completed ids are forgotten past the latest CHECKED_RECENT_IDS: the state does not grow with the stream", () => {
    const n = CHECKED_RECENT_IDS + 10;
    const issues = checkSequence(
      build([
        ...completedDrafts(n),
        { type: "message.delta", messageId: "m0", position: 2, text: "!" },
        { type: "tool.progress", toolCallId: "t0", output: "x" },
        { type: "message.delta", messageId: `m${n - 1}`, position: 2, text: "!" },
      ]),
    );
    expect(messages(issues)).toEqual([
      'message.delta for message "m0", which never started: emit message.started first',
      'tool.progress for tool call "t0", which never started',
      `message.delta for message "m${n - 1}" after its message.completed`,
      // m0 forgotten, then opened again by its delta: never completed.
      'message "m0" never completed',
    ]);
  });

  test("what is still open at the end is reported, however long ago it started", () => {
    const issues = checkSequence(
      build([
        { type: "message.started", messageId: "open", role: "assistant", kind: "text" },
        { type: "tool.started", toolCallId: "tool", name: "Bash" },
        ...completedDrafts(CHECKED_RECENT_IDS + 10),
      ]),
    );
    expect(messages(issues)).toEqual(['message "open" never completed', 'tool call "tool" never completed']);
  });
});
