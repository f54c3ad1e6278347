/**
 * Hostile text for the transcript writers (`text`, `markdown`): the terminal escape payloads of ../shared (read in
 * place), a few of our own, and every slot of the event model a transcript shows.
 */
import { readFileSync } from "node:fs";
import type { AgentEvent, AgentEventDraft } from "../../src/model/events.ts";
import { hasShared, sharedPath } from "./shared.ts";

/** Control characters that must never reach a transcript: C0 but LF and TAB, DEL, C1, bidi overrides and isolates. */
export const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** Stamps drafts with the envelope, as the pipeline does. */
export const stream = (...drafts: AgentEventDraft[]): AgentEvent[] => drafts.map((d, seq) => ({ ...d, v: 1, seq }) as AgentEvent);

/** The terminal escape payloads, plus the C0/C1/bidi characters one by one, as [id, text]. */
export function hostilePayloads(): [string, string][] {
  const own: [string, string][] = [
    ["every C0, DEL and C1", Array.from({ length: 0xa0 }, (_, i) => String.fromCharCode(i)).join("")],
    ["bidi overrides and isolates", "a\u202ab\u202bc\u202cd\u202de\u202ef\u2066g\u2067h\u2068i\u2069j"],
    ["CR rewrites", "progress 10%\rprogress 100%\r\n"],
  ];
  if (!hasShared) return own;
  const corpus = JSON.parse(readFileSync(sharedPath("corpus/terminal/escape-payloads.json"), "utf8")) as {
    payloads: { id: string; payload: string }[];
  };
  return [...own, ...corpus.payloads.map((p): [string, string] => [p.id, p.payload])];
}

/** The web payloads (HTML, Markdown links and images, `javascript:` URLs), as [id, text]; empty without ../shared. */
export function webPayloads(): [string, string][] {
  if (!hasShared) return [];
  const corpus = JSON.parse(readFileSync(sharedPath("corpus/web/xss-payloads.json"), "utf8")) as {
    payloads: { id: string; text?: string }[];
  };
  return corpus.payloads.filter((p): p is { id: string; text: string } => typeof p.text === "string").map((p) => [p.id, p.text]);
}

/** One hostile string in every slot a transcript shows. */
export function hostileEvents(payload: string): AgentEvent[] {
  return stream(
    { type: "session.started", sessionId: payload, agent: payload, model: payload, cwd: payload },
    { type: "session.started", sessionId: `${payload}-sub`, parentSessionId: payload, parentToolCallId: payload },
    { type: "message.delta", role: "assistant", kind: "text", messageId: "d", text: payload, position: 0 },
    { type: "message.completed", messageId: "m", role: "assistant", kind: "text", text: payload },
    { type: "message.completed", messageId: "r", role: "assistant", kind: "reasoning", text: payload, channel: payload },
    { type: "tool.started", toolCallId: "t", name: payload, kind: "command", input: { command: payload } },
    { type: "tool.completed", toolCallId: "t", name: payload, output: payload, isError: true },
    { type: "tool.started", toolCallId: "u", name: payload, kind: "mcp", input: { [payload]: payload } },
    { type: "tool.completed", toolCallId: "u", result: { [payload]: payload }, isError: false },
    { type: "file.changed", changes: [{ path: payload, kind: "rename", newPath: payload, diff: payload }] },
    { type: "plan.updated", items: [{ text: payload, status: "pending" }] },
    { type: "error", scope: "tool", message: payload, code: payload },
    { type: "notice", kind: "warning", level: "warning", text: payload },
    { type: "retry", attempt: 1, error: payload },
    { type: "rate_limit", status: payload, limit: payload, resetsAt: payload },
    { type: "metric", name: payload, text: payload, values: { [payload]: payload } },
    { type: "text", text: payload, position: "interleaved" },
    { type: "turn.completed", turnId: "x", status: "error", error: payload },
    { type: "session.completed", status: "error", error: payload, finalText: payload, sessionId: `${payload}-sub` },
    { type: "session.completed", status: "error", error: payload, finalText: payload, sessionId: payload },
  );
}
