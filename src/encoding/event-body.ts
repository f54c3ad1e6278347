/**
 * Our event without its stream envelope, for formats that carry events they have no record type for
 * inside an extension field (witness `debug` meta, oneshot `event` data, codex-thread `log`, AAEP
 * `extensions.agentstream`). `v` and `seq` belong to the stream, `source` and `raw` to the input (except for `unknown`,
 * whose `raw` is its content).
 */
import type { AgentEvent, JsonObject } from "../model/events.ts";

/** The event's own fields (type, time, sessionId and its payload) as JSON. */
export function eventBody(event: AgentEvent): JsonObject {
  const { v, seq, source, raw, ...body } = event;
  void v;
  void seq;
  void source;
  const kept = event.type === "unknown" ? { ...body, raw } : body;
  return kept as unknown as JsonObject;
}
