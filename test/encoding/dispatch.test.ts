import { describe, expect, it } from "vitest";
import { createDispatch } from "../../src/encoding/dispatch.ts";
import type { AgentEvent } from "../../src/model/events.ts";

const delta = {
  v: 1,
  seq: 1,
  type: "message.delta",
  messageId: "m",
  role: "assistant",
  kind: "text",
  text: "Hi",
  position: 0,
} as AgentEvent;
const started = { v: 1, seq: 0, type: "message.started", messageId: "m", role: "assistant", kind: "text" } as AgentEvent;

describe("createDispatch", () => {
  it("calls the handler of the event's type with that event, and the fallback for the rest", () => {
    const dispatch = createDispatch<string>({ "message.delta": (event) => `delta ${event.text}` }, (event) => `other ${event.type}`);
    expect(dispatch(delta)).toBe("delta Hi");
    expect(dispatch(started)).toBe("other message.started");
  });
});
