import { fc, test } from "../helpers/property.ts";
import { describe, expect, it } from "vitest";
import { makeEvent, validateLine } from "../../src/emitter.ts";
import { EVENT_TYPES, type AgentEvent } from "../../src/model/events.ts";
import { emptyUsage } from "../../src/model/usage.ts";
import { agentstreamSchema } from "../../src/validation/agent-event-schema.ts";
import { validateEvent } from "../../src/validation/validate-event.ts";
import { checkSequence } from "../../src/formats/agentstream/rules.ts";
import { toLine, toLines } from "../../src/formats/agentstream/encode.ts";

const usage = { ...emptyUsage(), inputTokens: 10, outputTokens: 5 };
/** One valid example of every event type. */
const examples: AgentEvent[] = [
  makeEvent("session.started", {
    seq: 0,
    sessionId: "s1",
    agent: "claude-code",
    agentVersion: "2.1.220",
    model: "m",
    cwd: "/w",
    tools: ["Bash"],
    details: { a: 1 },
  }),
  makeEvent("turn.started", { seq: 1, turnId: "t1" }),
  makeEvent("message.started", {
    seq: 2,
    messageId: "m1",
    role: "assistant",
    kind: "text",
    contentType: "text/markdown",
    language: "vi",
    channel: "path2",
  }),
  makeEvent("message.delta", { seq: 3, messageId: "m1", role: "assistant", kind: "text", text: "Xin chào", position: 0 }),
  makeEvent("message.completed", { seq: 4, messageId: "m1", role: "assistant", kind: "text", text: "Xin chào" }),
  makeEvent("tool.started", { seq: 5, toolCallId: "c1", name: "Bash", kind: "command" }),
  makeEvent("tool.input.delta", { seq: 6, toolCallId: "c1", text: '{"command":"ls"}' }),
  makeEvent("tool.progress", { seq: 7, toolCallId: "c1", output: "a\n", elapsedMs: 12 }),
  makeEvent("tool.completed", { seq: 8, toolCallId: "c1", name: "Bash", output: "a\nb\n", exitCode: 0, isError: false, durationMs: 30 }),
  makeEvent("file.changed", { seq: 9, changes: [{ path: "a.ts", kind: "update", diff: "@@" }], toolCallId: "c1" }),
  makeEvent("plan.updated", { seq: 10, items: [{ text: "write tests", status: "in_progress" }] }),
  makeEvent("usage", { seq: 11, usage, scope: "delta", costUsd: 0.01 }),
  makeEvent("metric", { seq: 12, name: "flame", text: "Flame state", values: { k: 0.013, state: "sync", temperature: 0.65 } }),
  makeEvent("rate_limit", { seq: 13, status: "allowed_warning", resetsAt: "2026-01-01T00:00:00Z", limit: "five_hour" }),
  makeEvent("retry", { seq: 14, attempt: 1, maxAttempts: 10, delayMs: 500, error: "overloaded" }),
  makeEvent("heartbeat", { seq: 15, idleMs: 30000 }),
  makeEvent("error", { seq: 16, scope: "api", message: "boom", code: "rate_limit_error", fatal: false }),
  makeEvent("notice", { seq: 17, kind: "hook", level: "info", text: "SessionStart hook ran" }),
  makeEvent("text", { seq: 18, text: "npm WARN deprecated", position: "interleaved" }),
  makeEvent("repair", { seq: 19, kind: "snapshot-as-delta", messageId: "m1", removedChars: 8, message: "snapshot sent as a delta" }),
  makeEvent("unknown", { seq: 20, raw: { type: "future" }, reason: "unknown record type" }),
  makeEvent("turn.completed", { seq: 21, turnId: "t1", status: "success", usage }),
  makeEvent("session.completed", {
    seq: 22,
    sessionId: "s1",
    status: "success",
    finalText: "Xin chào",
    usage,
    costUsd: 0.01,
    durationMs: 1000,
    turns: 1,
  }),
];

describe("the agentstream schema and the TypeScript model agree", () => {
  it("has one example per event type", () => {
    expect(new Set(examples.map((e) => e.type))).toEqual(new Set(EVENT_TYPES));
  });

  it.each(examples.map((e) => [e.type, e] as const))("%s validates", (_type, event) => {
    expect(validateEvent(event)).toEqual([]);
  });

  it("the examples form a valid sequence", () => {
    expect(checkSequence(examples)).toEqual([]);
  });

  const defs = agentstreamSchema.$defs as Record<string, { required: string[] }>;
  const cases = examples.flatMap((event) => (defs[event.type]?.required ?? []).map((field) => [event.type, field, event] as const));
  it.each(cases)("%s without %s gives schema-mismatch", (_type, field, event) => {
    const broken = { ...event } as Record<string, unknown>;
    delete broken[field];
    const issues = validateEvent(broken);
    expect(issues.length).toBeGreaterThan(0);
    expect(issues.every((i) => i.code === "schema-mismatch")).toBe(true);
  });

  it("rejects a property the model does not have, and a wrong version", () => {
    expect(validateEvent({ ...examples[0], surprise: 1 })[0]?.message).toMatch(/"surprise"/);
    expect(validateEvent({ ...examples[0], v: 2 }).length).toBeGreaterThan(0);
  });
});

describe("emitter API (Witness make_event / to_line / validate_line, generalised)", () => {
  it("toLine writes one line, UTF-8, no ASCII escaping", () => {
    const line = toLine(examples[3] as AgentEvent);
    expect(line).toContain("Xin chào");
    expect(line).not.toContain("\n");
    expect(toLines(examples)).toHaveLength(examples.length);
  });

  it("validateLine accepts a valid line and explains an invalid one", () => {
    expect(validateLine(toLine(examples[4] as AgentEvent))).toEqual([]);
    expect(validateLine("not json")[0]?.code).toBe("invalid-json");
    expect(validateLine('{"v":1,"seq":0,"type":"message.delta"}').map((i) => i.code)).toContain("schema-mismatch");
    expect(validateLine('{"__proto__":{"x":1},"v":1}').map((i) => i.code)).toContain("forbidden-key");
  });

  test.prop([fc.string({ unit: "binary" }), fc.string({ unit: "grapheme" })])(
    "toLine then JSON.parse is the identity, lone surrogates and U+2028 included",
    (a, b) => {
      const event = makeEvent("message.completed", { seq: 0, messageId: b, role: "assistant", kind: "text", text: `${a}\u2028${b}` });
      const line = toLine(event);
      expect(line.includes("\n")).toBe(false);
      expect(JSON.parse(line)).toEqual(event);
      expect(validateLine(line)).toEqual([]);
    },
  );
});
