/** Helpers the UI protocol writers (ag-ui, ai-sdk) share: an event's own fields, without the envelope. */
import type { AgentEvent, JsonObject, JsonValue } from "../model/events.ts";

/** An event's own fields: everything but the envelope (`v`, `seq`, `type`, `time`, `source`, `raw`). */
export function payloadOf(event: AgentEvent): JsonObject {
  const value: JsonObject = {};
  for (const [key, field] of Object.entries(event)) {
    if (key === "v" || key === "seq" || key === "type" || key === "time" || key === "source" || key === "raw" || field === undefined)
      continue;
    value[key] = field as JsonValue;
  }
  return value;
}

/** The object without its undefined fields (JSON has no undefined; writers never write null for "absent"). */
export function compact(fields: { readonly [key: string]: JsonValue | undefined }): JsonObject {
  const value: JsonObject = {};
  for (const [key, field] of Object.entries(fields)) if (field !== undefined) value[key] = field;
  return value;
}
