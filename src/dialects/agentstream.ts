// Source: docs/events.md and schema/agentstream.schema.json (this project's own model, version 1).
// Reading our own output back: events pass through unchanged except `seq`, which the pipeline
// renumbers for the new stream, and records that are not valid events, which become `unknown`.
import { EVENT_TYPES, MODEL_VERSION, type AgentEventDraft, type AgentEventType } from "../model/events.ts";
import type { Dialect } from "./dialect.ts";
import { unknownRecord } from "./dialect.ts";

const KNOWN = new Set<string>(EVENT_TYPES);

export const agentstream: Dialect = {
  name: "agentstream",
  description: "agentstream's own event model (v1), as written by `convert --to agentstream`",
  detect: (record) => record.kind === "json" && record.value.v === MODEL_VERSION && typeof record.value.seq === "number" && KNOWN.has(String(record.value.type)),
  createDecoder() {
    return {
      decode(record, context) {
        if (record.kind !== "json") return [];
        const { v, seq, ...rest } = record.value;
        if (v !== MODEL_VERSION || !KNOWN.has(String(rest.type))) {
          context.report({ code: "unknown-record", message: `not an agentstream v${MODEL_VERSION} event (type ${JSON.stringify(rest.type)}, v ${JSON.stringify(v)})` });
          return [unknownRecord(record.value, "not an agentstream v1 event")];
        }
        void seq;
        return [rest as unknown as AgentEventDraft & { type: AgentEventType }];
      },
      end: () => [],
    };
  },
};
