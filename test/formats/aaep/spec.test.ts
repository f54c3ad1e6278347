/**
 * The AAEP stream rules' memory (src/formats/aaep/spec.ts): event ids are remembered to report a repeat, the latest
 * `AAEP_RECENT_IDS` of them, so `validate --format aaep` does not grow with the stream (issue #28).
 */
import { describe, expect, test } from "vitest";
import { AAEP_RECENT_IDS } from "../../../src/formats/aaep/spec.ts";
import { convertEvents, records, validateRecords } from "../../helpers/convert.ts";
import { build } from "../../helpers/events.ts";

/** An AAEP stream of one session with `n` answers, as records. */
function answers(n: number): Record<string, unknown>[] {
  const drafts: object[] = [{ type: "session.started", sessionId: "s", agent: "claude-code" }];
  for (let i = 0; i < n; i++)
    drafts.push({ type: "message.completed", sessionId: "s", messageId: `m${i}`, role: "assistant", kind: "text", text: "ok" });
  return records(convertEvents(build(drafts), "aaep"));
}

/** The records with the second one's event id used again by the last one. */
function repeatingSecondId(list: Record<string, unknown>[]): Record<string, unknown>[] {
  const last = list.at(-1) as Record<string, unknown>;
  return [...list.slice(0, -1), { ...last, event_id: list[1]?.event_id }];
}

const repeats = (list: Record<string, unknown>[]) => validateRecords("aaep", list).filter((i) => i.message.includes("was used before"));

describe("AAEP event ids", () => {
  test("a repeat among the latest AAEP_RECENT_IDS is reported", () => {
    expect(repeats(repeatingSecondId(answers(10)))).toHaveLength(1);
  });

  test("ids older than the latest AAEP_RECENT_IDS are forgotten: the validator's memory does not grow with the stream", () => {
    const list = answers(AAEP_RECENT_IDS + 10);
    expect(list.length).toBeGreaterThan(AAEP_RECENT_IDS + 2);
    expect(repeats(repeatingSecondId(list))).toEqual([]);
  });
});
