// Source: docs/events.md and schema/agentstream.schema.json (this project's own model, version 1).
// Reading our own output back: events pass through unchanged except `seq`, which the pipeline
// renumbers for the new stream, records that are not valid events, which become `unknown`, and a
// `message.delta` written before deltas carried `role` and `kind`, which gets them from its `message.started`.
import {
  EVENT_TYPES,
  MODEL_VERSION,
  type AgentEventDraft,
  type AgentEventType,
  type MessageKind,
  type MessageRole,
} from "../../model/events.ts";
import type { Dialect } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";

const KNOWN = new Set<string>(EVENT_TYPES);

export const agentstream: Dialect = {
  name: "agentstream",
  description: "agentstream's own event model (v1), as written by `convert --to agentstream`",
  detect: (record) =>
    record.kind === "json" &&
    record.value.v === MODEL_VERSION &&
    typeof record.value.seq === "number" &&
    KNOWN.has(String(record.value.type)),
  createDecoder() {
    const starts = new Map<string, { role: MessageRole; kind: MessageKind }>();
    return {
      decode(record, context) {
        if (record.kind !== "json") return [];
        const { v, seq, ...rest } = record.value;
        if (v !== MODEL_VERSION || !KNOWN.has(String(rest.type))) {
          context.report({
            code: "unknown-record",
            message: `not an agentstream v${MODEL_VERSION} event (type ${JSON.stringify(rest.type)}, v ${JSON.stringify(v)})`,
          });
          return [unknownRecord(record.value, "not an agentstream v1 event")];
        }
        void seq;
        const event = rest as unknown as AgentEventDraft & { type: AgentEventType };
        if (event.type === "message.started") starts.set(event.messageId, { role: event.role, kind: event.kind });
        // Only an open message's deltas need it: kept for every message, it would grow with the stream.
        else if (event.type === "message.completed") starts.delete(event.messageId);
        return [event.type === "message.delta" ? withRoleAndKind(event, starts) : event];
      },
      end: () => [],
    };
  },
};

type DeltaDraft = Extract<AgentEventDraft, { type: "message.delta" }>;

/**
 * `message.delta.role` and `.kind` came after the first v1 streams were written; a delta without
 * them takes those of its `message.started` (assistant text when none was seen), so readers can
 * always rely on them.
 */
function withRoleAndKind(delta: DeltaDraft, starts: ReadonlyMap<string, { role: MessageRole; kind: MessageKind }>): DeltaDraft {
  const given = delta as Partial<DeltaDraft>;
  if (given.role !== undefined && given.kind !== undefined) return delta;
  const started = starts.get(delta.messageId);
  return { ...delta, role: given.role ?? started?.role ?? "assistant", kind: given.kind ?? started?.kind ?? "text" };
}
