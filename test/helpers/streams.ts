/** Builds agentstream-format streams for repair tests, and reads back what a consumer sees. */
import type { AgentEvent } from "../../src/model/events.ts";
import { readAll } from "./read.ts";

let seq = 0;
export function line(type: string, fields: Record<string, unknown>): string {
  return JSON.stringify({ v: 1, seq: seq++, type, ...fields });
}

export function started(id: string, kind = "text"): string {
  return line("message.started", { messageId: id, role: "assistant", kind });
}
/** `position` here is what a careless producer sends; the repair stage renumbers it. */
export function delta(id: string, text: string): string {
  return line("message.delta", { messageId: id, role: "assistant", kind: "text", text, position: 0 });
}
export function completed(id: string, text: string, kind = "text"): string {
  return line("message.completed", { messageId: id, role: "assistant", kind, text });
}

export interface Seen {
  events: AgentEvent[];
  /** Per message id: the concatenated deltas a live view printed. */
  streamed: Map<string, string>;
  /** Per message id: the completed text. */
  final: Map<string, string>;
  repairs: AgentEvent[];
}

export function see(lines: string[], options: { repair?: boolean } = {}): Seen {
  const result = readAll([`${lines.join("\n")}\n`], { dialect: "agentstream", ...(options.repair === false ? { repair: false } : {}) });
  const streamed = new Map<string, string>();
  const final = new Map<string, string>();
  for (const e of result.events) {
    if (e.type === "message.delta") streamed.set(e.messageId, (streamed.get(e.messageId) ?? "") + e.text);
    if (e.type === "message.completed") final.set(e.messageId, e.text);
  }
  return { events: result.events, streamed, final, repairs: result.events.filter((e) => e.type === "repair") };
}
