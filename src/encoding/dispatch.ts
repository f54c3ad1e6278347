/**
 * One dispatch for encoders: a table of handlers keyed by event type, each typed to its event,
 * instead of a switch over every type repeated in each encoder. A type without a handler goes to
 * the fallback (most formats write what they cannot map as a debug or extension record).
 */
import type { AgentEvent, AgentEventType, EventOf } from "../model/events.ts";

/**
 * Handlers by event type; each receives its own event type, so a misspelt field does not compile.
 * `A` is what every handler gets after the event (e.g. the event's time in milliseconds).
 */
export type EventHandlers<R, A extends unknown[] = []> = { readonly [T in AgentEventType]?: (event: EventOf<T>, ...args: A) => R };

/**
 * A function that calls the handler for the event's type, or `fallback`.
 * @example
 * const encode = createDispatch<Rec[]>({ "message.delta": (e) => [{ text: e.text }] }, () => []);
 */
export function createDispatch<R, A extends unknown[] = []>(
  handlers: EventHandlers<R, A>,
  fallback: (event: AgentEvent, ...args: A) => R,
): (event: AgentEvent, ...args: A) => R {
  return (event, ...args) => {
    // The table's key and the event's type are the same string, so the handler takes this event.
    const handler = handlers[event.type] as ((event: AgentEvent, ...args: A) => R) | undefined;
    return handler === undefined ? fallback(event, ...args) : handler(event, ...args);
  };
}

/**
 * Events that carry no conversation content. The UI protocols (AG-UI, AI SDK) let them wait for the
 * run to start, at most `MAX_PREAMBLE` of them, and fold them into a finishing run.
 */
export const QUIET_EVENT_TYPES: ReadonlySet<AgentEventType> = new Set<AgentEventType>([
  "text",
  "notice",
  "unknown",
  "metric",
  "usage",
  "rate_limit",
  "retry",
  "heartbeat",
  "repair",
  "error",
]);

/** Quiet events held before the first session.started, at most: a stream without one must not buffer forever. */
export const MAX_PREAMBLE = 64;
