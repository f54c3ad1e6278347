/** Builders and views of events for writer tests. */
import type { AgentEvent, AgentEventType, EventOf } from "../../src/model/events.ts";
import { createToolInputJoiner } from "../../src/encoding/tool-input.ts";

/** The events of one type, typed as that type. */
export function ofType<T extends AgentEventType>(events: readonly AgentEvent[], type: T): EventOf<T>[] {
  return events.filter((event): event is EventOf<T> => event.type === type);
}

/** Events from loose drafts: `v` and `seq` are stamped in order. */
export function build(drafts: readonly object[]): AgentEvent[] {
  return drafts.map((draft, seq) => ({ v: 1, seq, ...draft }) as AgentEvent);
}

/** What a round trip compares; each `false` is a loss the format's doc lists. */
export interface RoundTripView {
  /**
   * Compare `time` as an instant (so `Z` and `.000Z` are equal): `true` everywhere, `"source"` only
   * where the source event had one (formats that must write a time on every record carry the last
   * one forward), `false` never.
   */
  time: boolean | "source";
  /** Compare message ids. */
  messageIds: boolean;
  /** Compare a metric's `name` and `text` (Witness keeps one label). */
  metricNames: boolean;
  /** Treat a tool output of "" as absent (formats whose output field is required). */
  emptyOutputIsAbsent: boolean;
  /**
   * The session's start comes first (formats that open with it, codex-thread's `thread.started`):
   * text and notices the agent printed before its first session.started move after it.
   */
  sessionFirst?: boolean;
  /**
   * Sessions' completions are compared as a set, after everything else (AAEP holds each session's
   * terminal event to the end of the stream, because nothing may follow it).
   */
  terminalsLast?: boolean;
}

const STREAM_ONLY = new Set(["message.started", "message.delta", "tool.input.delta"]);

/**
 * The events as a whole-message format sees them: streamed tool input joined into its call, the
 * started/delta split dropped, the envelope (`v`, `seq`, `source`, `raw`) dropped.
 */
export function roundTripView(events: readonly AgentEvent[], view: RoundTripView): Record<string, unknown>[] {
  const joiner = createToolInputJoiner();
  const joined = [...events.flatMap((e) => joiner.push(e)), ...joiner.end()];
  return joined
    .filter((e) => !STREAM_ONLY.has(e.type))
    .map((event) => {
      const { v, seq, source, raw, time, ...rest } = event as AgentEvent & Record<string, unknown>;
      const out: Record<string, unknown> = { ...rest };
      if (event.type === "unknown") out.raw = raw;
      if (view.time !== false && time !== undefined) out.time = Date.parse(time as string);
      if (!view.messageIds) delete out.messageId;
      if (!view.metricNames && event.type === "metric") {
        delete out.name;
        delete out.text;
      }
      if (view.emptyOutputIsAbsent && event.type === "tool.completed" && out.output === "") delete out.output;
      return out;
    });
}

/** The two views a round trip compares: `expected` from the source, `actual` from what was read back. */
export function roundTripPair(
  source: readonly AgentEvent[],
  back: readonly AgentEvent[],
  view: RoundTripView,
): { expected: Record<string, unknown>[]; actual: Record<string, unknown>[] } {
  let expected = roundTripView(view.sessionFirst === true ? sessionFirst(source) : source, view);
  let actual = roundTripView(back, view);
  if (view.terminalsLast === true) {
    expected = terminalsAtEnd(expected);
    actual = terminalsAtEnd(actual);
  }
  if (view.time === "source") {
    expected.forEach((event, i) => {
      const other = actual[i];
      if (event.time === undefined && other !== undefined) delete other.time;
    });
  }
  return { expected, actual };
}

/** The first session.started moved before the text and notices that preceded it (which then belong to it). */
function sessionFirst(events: readonly AgentEvent[]): AgentEvent[] {
  const at = events.findIndex((e) => e.type !== "text" && e.type !== "notice");
  const start = events[at];
  if (at <= 0 || start?.type !== "session.started") return [...events];
  const sessionId = start.parentSessionId === undefined ? start.sessionId : undefined;
  const moved = events.slice(0, at).map((e) => (e.sessionId === undefined && sessionId !== undefined ? { ...e, sessionId } : e));
  return [start, ...moved, ...events.slice(at + 1)];
}

/** Session completions moved after everything else, in a stable order of their own. */
function terminalsAtEnd(events: Record<string, unknown>[]): Record<string, unknown>[] {
  const terminals = events.filter((e) => e.type === "session.completed");
  const rest = events.filter((e) => e.type !== "session.completed");
  const key = (e: Record<string, unknown>): string => JSON.stringify({ ...e, time: undefined });
  return [...rest, ...terminals.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))];
}

/**
 * Streams of valid events in any order (odd ones included: deltas with no start, results with no
 * call, events after the session ended, ids reused, several sessions), for "never throws, still
 * valid" properties. Built from fast-check by the caller: `fc.array(fc.constantFrom(...oddEventDrafts()))`.
 */
export function oddEventDrafts(): object[] {
  const ids = ["a", "b"];
  const sessions = [{}, { sessionId: "s1" }, { sessionId: "s2" }];
  const times = [{}, { time: "2026-01-01T00:00:00Z" }, { time: "2026-01-01T00:00:01.5+02:00" }];
  const usage = { inputTokens: 1, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null };
  const drafts: object[] = [];
  for (const s of sessions) {
    const t = times[drafts.length % times.length] ?? {};
    drafts.push(
      { type: "session.started", agent: "codex", ...s, ...t },
      { type: "session.started", parentSessionId: "s1", sessionId: "sub", ...t },
    );
    drafts.push(
      { type: "session.completed", status: "success", finalText: "done", ...s },
      { type: "session.completed", status: "error", error: "password wrong", ...s },
      { type: "session.completed", status: "interrupted", ...s },
    );
    for (const id of ids) {
      drafts.push(
        { type: "message.started", messageId: id, role: "assistant", kind: "text", ...s },
        { type: "message.delta", role: "assistant", kind: "text", messageId: id, text: "Hi. 😀 ", position: 0, ...s },
        { type: "message.completed", messageId: id, role: "assistant", kind: "text", text: "Hi. 😀 there", ...s },
        { type: "message.completed", messageId: id, role: "assistant", kind: "reasoning", text: "hmm", ...s },
        { type: "message.completed", messageId: id, role: "user", kind: "text", text: "go", ...s, ...t },
        { type: "tool.started", toolCallId: id, name: "Bash", input: { command: "ls", token: "x" }, ...s },
        { type: "tool.started", toolCallId: id, name: "9 bad name" },
        { type: "tool.input.delta", toolCallId: id, text: '{"a":' },
        { type: "tool.progress", toolCallId: id, output: "..." },
        { type: "tool.completed", toolCallId: id, isError: true, output: "sk-abcdefghijklmnopqrstu failed", exitCode: 2, ...s },
        { type: "turn.started", turnId: id, ...s },
        { type: "turn.completed", turnId: id, usage, ...s },
      );
    }
  }
  drafts.push(
    { type: "usage", usage, scope: "delta" },
    { type: "metric", name: "flame", values: { k: 1 } },
    { type: "heartbeat" },
    { type: "error", scope: "api", message: "rate limit", fatal: true },
    { type: "notice", kind: "exec_approval_request", level: "warning", text: "Run it?" },
    { type: "notice", kind: "request_user_input", level: "warning", text: "" },
    { type: "notice", kind: "hook", level: "info", text: "hook" },
    { type: "text", text: "banner", position: "preamble" },
    { type: "text", text: "", position: "interleaved" },
    { type: "unknown", raw: { odd: true }, reason: "x" },
    { type: "repair", kind: "duplicate-delta", removedChars: 1, message: "m" },
  );
  return drafts;
}
