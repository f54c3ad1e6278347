/** Reading our own model back: deltas written before they carried `role` and `kind` get them from their start. */
import { describe, expect, it } from "vitest";
import { validateEvent } from "../../../src/validation/validate-event.ts";
import { readAll } from "../../helpers/read.ts";

/** A v1 stream as agentstream wrote it before `message.delta` carried `role` and `kind`. */
const OLDER_V1 = [
  { v: 1, seq: 0, type: "message.started", messageId: "r", role: "assistant", kind: "reasoning" },
  { v: 1, seq: 1, type: "message.delta", messageId: "r", text: "Thinking about the tests.", position: 0 },
  { v: 1, seq: 2, type: "message.completed", messageId: "r", role: "assistant", kind: "reasoning", text: "Thinking about the tests." },
  { v: 1, seq: 3, type: "message.started", messageId: "u", role: "user", kind: "text" },
  { v: 1, seq: 4, type: "message.delta", messageId: "u", text: "Fix the failing tests please.", position: 0 },
  { v: 1, seq: 5, type: "message.completed", messageId: "u", role: "user", kind: "text", text: "Fix the failing tests please." },
]
  .map((e) => JSON.stringify(e))
  .join("\n");

describe("agentstream dialect: message.delta role and kind", () => {
  it("an older v1 stream without them is still valid", () => {
    for (const line of OLDER_V1.split("\n")) expect(validateEvent(JSON.parse(line))).toEqual([]);
  });

  it("reading it back fills them in from message.started", () => {
    const { events, dialect } = readAll([OLDER_V1]);
    expect(dialect).toBe("agentstream");
    const deltas = events.filter((e) => e.type === "message.delta");
    expect(deltas.map((d) => [d.messageId, d.role, d.kind])).toEqual([
      ["r", "assistant", "reasoning"],
      ["u", "user", "text"],
    ]);
  });

  it("a delta whose message never started is assistant text, started by the repair stage with the same role and kind", () => {
    const orphan = JSON.stringify({ v: 1, seq: 0, type: "message.delta", messageId: "m", text: "Hello there, friend.", position: 0 });
    const { events } = readAll([orphan], { dialect: "agentstream" });
    const start = events.find((e) => e.type === "message.started");
    const delta = events.find((e) => e.type === "message.delta");
    expect(start).toMatchObject({ messageId: "m", role: "assistant", kind: "text" });
    expect(delta).toMatchObject({ messageId: "m", role: "assistant", kind: "text" });
  });

  it("role and kind given on a delta are kept as written", () => {
    const given = [
      { v: 1, seq: 0, type: "message.started", messageId: "r", role: "assistant", kind: "reasoning" },
      {
        v: 1,
        seq: 1,
        type: "message.delta",
        messageId: "r",
        role: "assistant",
        kind: "reasoning",
        text: "Let me look at the logs.",
        position: 0,
      },
    ].map((e) => JSON.stringify(e));
    const { events } = readAll([given.join("\n")]);
    expect(events.find((e) => e.type === "message.delta")).toMatchObject({
      role: "assistant",
      kind: "reasoning",
      text: "Let me look at the logs.",
    });
  });
});
