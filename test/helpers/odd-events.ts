/**
 * Random event sequences with colliding ids: for property tests of the writers that must turn any
 * sequence (deltas with no start, completions twice, tools completed with no start, subagents,
 * events after session.completed) into valid output.
 */
import fc from "fast-check";
import type { AgentEvent, AgentEventDraft } from "../../src/model/events.ts";

const sessionId = fc.constantFrom(undefined, "root", "sub", "sub2");
const messageId = fc.constantFrom("m1", "m2");
const toolCallId = fc.constantFrom("t1", "t2");
const turnId = fc.constantFrom("u1", "u2");
const role = fc.constantFrom("assistant", "assistant", "user", "system", "developer" as const);
const kind = fc.constantFrom("text", "text", "reasoning", "redacted_reasoning" as const);
const text = fc.oneof(fc.constant(""), fc.string({ maxLength: 6 }), fc.constantFrom("a\nb", "\r\n", "\u2028"));
const usage = fc.constant({ inputTokens: 1, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null });

/** Drops undefined fields (the model has exactOptionalPropertyTypes). */
function clean(value: { type: AgentEventDraft["type"] } & Record<string, unknown>): AgentEventDraft {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as unknown as AgentEventDraft;
}

const draft: fc.Arbitrary<AgentEventDraft> = fc.oneof(
  fc
    .record({ s: sessionId, p: fc.constantFrom(undefined, "root", "sub"), t: fc.constantFrom(undefined, "t1") })
    .map(({ s, p, t }) => clean({ type: "session.started" as const, sessionId: s, parentSessionId: p, parentToolCallId: t, agent: "x" })),
  fc
    .record({ s: sessionId, status: fc.constantFrom("success", "error", "interrupted" as const), f: fc.option(text, { nil: undefined }) })
    .map(({ s, status, f }) => clean({ type: "session.completed" as const, sessionId: s, status, finalText: f })),
  fc.record({ s: sessionId, id: turnId }).map(({ s, id }) => clean({ type: "turn.started" as const, sessionId: s, turnId: id })),
  fc
    .record({ s: sessionId, id: turnId, u: fc.option(usage, { nil: undefined }) })
    .map(({ s, id, u }) => clean({ type: "turn.completed" as const, sessionId: s, turnId: id, usage: u })),
  fc
    .record({ s: sessionId, id: messageId, role, kind })
    .map(({ s, id, role: r, kind: k }) => clean({ type: "message.started" as const, sessionId: s, messageId: id, role: r, kind: k })),
  fc
    .record({ s: sessionId, id: messageId, t: text })
    .map(({ s, id, t }) =>
      clean({ type: "message.delta" as const, role: "assistant", kind: "text", sessionId: s, messageId: id, text: t, position: 0 }),
    ),
  fc
    .record({ s: sessionId, id: messageId, role, kind, t: text, sig: fc.constantFrom(undefined, "sig") })
    .map(({ s, id, role: r, kind: k, t, sig }) =>
      clean({ type: "message.completed" as const, sessionId: s, messageId: id, role: r, kind: k, text: t, signature: sig }),
    ),
  fc
    .record({ s: sessionId, id: toolCallId, input: fc.constantFrom(undefined, { a: 1 }, "x", null) })
    .map(({ s, id, input }) => clean({ type: "tool.started" as const, sessionId: s, toolCallId: id, name: "T", input })),
  fc
    .record({ s: sessionId, id: toolCallId, t: fc.constantFrom("{", '"a":1}', "", "x") })
    .map(({ s, id, t }) => clean({ type: "tool.input.delta" as const, sessionId: s, toolCallId: id, text: t })),
  fc
    .record({ s: sessionId, id: toolCallId })
    .map(({ s, id }) => clean({ type: "tool.progress" as const, sessionId: s, toolCallId: id, status: "running" })),
  fc
    .record({
      s: sessionId,
      id: toolCallId,
      e: fc.boolean(),
      o: fc.option(text, { nil: undefined }),
      r: fc.constantFrom(undefined, { ok: 1 }),
    })
    .map(({ s, id, e, o, r }) =>
      clean({ type: "tool.completed" as const, sessionId: s, toolCallId: id, isError: e, output: o, result: r }),
    ),
  fc
    .record({ s: sessionId })
    .map(({ s }) => clean({ type: "plan.updated" as const, sessionId: s, items: [{ text: "a", status: "pending" as const }] })),
  fc
    .record({ s: sessionId, u: usage })
    .map(({ s, u }) => clean({ type: "usage" as const, sessionId: s, usage: u, scope: "delta" as const })),
  fc.constant<AgentEventDraft>({ type: "unknown", raw: { x: 1 } }),
  fc.constant<AgentEventDraft>({ type: "heartbeat" }),
  fc.constant<AgentEventDraft>({ type: "error", scope: "api", message: "e" }),
  fc.constant<AgentEventDraft>({ type: "text", text: "banner", position: "preamble" }),
);

/** Up to 40 events of any kind, in any order. */
export const oddEvents: fc.Arbitrary<AgentEvent[]> = fc
  .array(draft, { maxLength: 40 })
  .map((drafts) => drafts.map((d, seq) => ({ v: 1, seq, ...d }) as AgentEvent));

/** A well-formed session: start, turns with a message (streamed) and a tool call each, end. */
function wellFormed(turns: number): AgentEventDraft[] {
  const drafts: AgentEventDraft[] = [{ type: "session.started", sessionId: "root", agent: "x" }];
  for (let i = 1; i <= turns; i++) {
    drafts.push(
      { type: "turn.started", sessionId: "root", turnId: `u${i}` },
      { type: "message.started", sessionId: "root", messageId: `m${i}`, role: "assistant", kind: "text" },
      { type: "message.delta", sessionId: "root", messageId: `m${i}`, role: "assistant", kind: "text", text: "he", position: 0 },
      { type: "message.delta", sessionId: "root", messageId: `m${i}`, role: "assistant", kind: "text", text: "llo", position: 2 },
      { type: "message.completed", sessionId: "root", messageId: `m${i}`, role: "assistant", kind: "text", text: "hello" },
      { type: "tool.started", sessionId: "root", toolCallId: `t${i}`, name: "Bash", input: { command: "ls" } },
      { type: "tool.progress", sessionId: "root", toolCallId: `t${i}`, output: "a\n" },
      { type: "tool.completed", sessionId: "root", toolCallId: `t${i}`, isError: false, output: "a\n" },
      { type: "turn.completed", sessionId: "root", turnId: `u${i}` },
    );
  }
  drafts.push({ type: "session.completed", sessionId: "root", status: "success", finalText: "hello" });
  return drafts;
}

/** What the fuzzer did to real captures: drop, repeat and move events. */
const mutation = fc.oneof(
  fc.record({ op: fc.constant("drop" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("repeat" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("move" as const), at: fc.nat(), to: fc.nat() }),
);

/**
 * A well-formed session with events dropped, repeated and moved: orphan tool results, turn ends
 * without a start, messages completed without a start or twice, session.completed twice, events
 * after session.completed, tools never completed.
 */
export const mutatedEvents: fc.Arbitrary<AgentEvent[]> = fc
  .record({ turns: fc.integer({ min: 1, max: 3 }), mutations: fc.array(mutation, { minLength: 1, maxLength: 6 }) })
  .map(({ turns, mutations }) => {
    const drafts = wellFormed(turns);
    for (const m of mutations) {
      if (drafts.length === 0) break;
      const at = m.at % drafts.length;
      const [picked] = m.op === "repeat" ? [drafts[at] as AgentEventDraft] : drafts.splice(at, 1);
      if (m.op === "repeat") drafts.splice(at + 1, 0, picked as AgentEventDraft);
      else if (m.op === "move") drafts.splice(m.to % (drafts.length + 1), 0, picked as AgentEventDraft);
    }
    return drafts.map((d, seq) => ({ v: 1, seq, ...d }) as AgentEvent);
  });
