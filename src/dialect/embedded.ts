/**
 * Reading back the events our writers carry inside another format's extension field (witness
 * `debug` meta, oneshot `event` data, codex-thread `log`, AAEP `extensions.agentstream`). A body is
 * taken only when it is a valid agentstream event once the envelope is added; anything else stays
 * the format's own record, so a foreign producer's look-alike can never inject a malformed event.
 */
import { EVENT_TYPES, MODEL_VERSION, type AgentEventDraft, type JsonValue } from "../model/events.ts";
import { validateEvent } from "../validation/validate-event.ts";
import { isJsonObject } from "../model/lossless-integer.ts";
import { compact } from "./json.ts";
import type { StreamState } from "./messages.ts";

const KNOWN = new Set<string>(EVENT_TYPES);
// Text streamed piecewise is never carried this way; a stray one could not be placed in a message.
const NOT_EMBEDDED = new Set<string>(["message.started", "message.delta", "tool.input.delta"]);

/** The event carried in `value`, or undefined when `value` is not one. */
export function embeddedEvent(value: JsonValue | undefined): AgentEventDraft | undefined {
  if (!isJsonObject(value)) return undefined;
  const type = value.type;
  if (typeof type !== "string" || !KNOWN.has(type) || NOT_EMBEDDED.has(type)) return undefined;
  if (Object.hasOwn(value, "v") || Object.hasOwn(value, "seq") || Object.hasOwn(value, "source")) return undefined;
  if (validateEvent({ v: MODEL_VERSION, seq: 0, ...value }).length > 0) return undefined;
  return value as unknown as AgentEventDraft;
}

/**
 * Passes on an event carried whole by another format; a completed message goes through the stream
 * state, so it gets its start when the producer sent none and is closed once.
 */
export function replayEmbedded(state: StreamState, event: AgentEventDraft): AgentEventDraft[] {
  if (event.type !== "message.completed") return [event];
  const { sessionId, time, channel, contentType, language } = event;
  return state.complete(event.messageId, event.text, event.role, event.kind, compact({ sessionId, time, channel, contentType, language }));
}
