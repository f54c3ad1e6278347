/**
 * One dispatch for encoders: a table of handlers keyed by event type, each typed to its event,
 * instead of a switch over every type repeated in each encoder. A type without a handler goes to
 * the fallback (most formats write what they cannot map as a debug or extension record).
 */
import type { AgentEvent, AgentEventType, EventOf } from "../model/events.ts";

/** Handlers by event type; each receives its own event type, so a misspelt field does not compile. */
export type EventHandlers<R> = { readonly [T in AgentEventType]?: (event: EventOf<T>) => R };

/**
 * A function that calls the handler for the event's type, or `fallback`.
 * @example
 * const encode = createDispatch<Rec[]>({ "message.delta": (e) => [{ text: e.text }] }, () => []);
 */
export function createDispatch<R>(handlers: EventHandlers<R>, fallback: (event: AgentEvent) => R): (event: AgentEvent) => R {
  return (event) => {
    // The table's key and the event's type are the same string, so the handler takes this event.
    const handler = handlers[event.type] as ((event: AgentEvent) => R) | undefined;
    return handler === undefined ? fallback(event) : handler(event);
  };
}
