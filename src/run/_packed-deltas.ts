/**
 * Message deltas handed to the log worker as columns, not objects. A flood is mostly deltas, and a
 * structured clone writes every key of every object, and the worker's side makes each object again
 * key by key. As columns (the texts, the numbers in one Float64Array, each message's ids once) both
 * sides do a fraction of that work and far fewer bytes are cloned (docs/benchmarks.md).
 *
 * Only a delta of the envelope's usual shape is packed (these keys in this order, strings and
 * numbers where the model says so, with or without the `time` that `run` gives every event the
 * agent gave none); any other event goes as it is, so the worker writes the same text either way:
 * it builds the packed ones again with their keys in the same order.
 */
import { MODEL_VERSION, type AgentEvent } from "../model/events.ts";

/** The keys of a packed delta, in the order `stamp` writes them; `time` (a string) is there or not. */
const DELTA_KEYS = ["v", "seq", "type", "messageId", "role", "kind", "text", "position", "time", "sessionId", "source"] as const;
const TIME_AT = DELTA_KEYS.indexOf("time");
const SOURCE_KEYS = ["dialect", "line"] as const;
/** Numbers per packed delta: seq, position, source line, and which context (ids) it has. */
const NUMBERS = 4;
/** Strings per context: messageId, role, kind, sessionId, source dialect, time ("" for none: a time is never empty). */
const CONTEXT = 6;

export interface PackedDeltas {
  /** One byte per event of the batch, in order: 1 for the next packed delta, 0 for the next of the other events. */
  readonly order: Uint8Array;
  readonly texts: readonly string[];
  readonly numbers: Float64Array;
  readonly contexts: readonly string[];
}

type Delta = Extract<AgentEvent, { type: "message.delta" }>;

/** Whether every key is where `stamp` puts it and holds what the model says: only then is a delta rebuilt exactly. */
function isPackable(event: AgentEvent): event is Delta & { sessionId: string; source: { dialect: string; line: number } } {
  if (event.type !== "message.delta" || event.v !== MODEL_VERSION || typeof event.sessionId !== "string") return false;
  let i = 0;
  for (const key in event) {
    if (i === TIME_AT && key !== "time") i++; // no time: the next key is sessionId
    if (key !== DELTA_KEYS[i++]) return false;
  }
  if (i !== DELTA_KEYS.length) return false;
  if (event.time !== undefined && (typeof event.time !== "string" || event.time === "")) return false;
  const source = event.source;
  if (typeof source !== "object" || source === null || typeof source.line !== "number") return false;
  let j = 0;
  for (const key in source) if (key !== SOURCE_KEYS[j++]) return false;
  return (
    j === SOURCE_KEYS.length &&
    typeof event.seq === "number" &&
    typeof event.messageId === "string" &&
    typeof event.role === "string" &&
    typeof event.kind === "string" &&
    typeof event.text === "string" &&
    typeof event.position === "number" &&
    typeof source.dialect === "string"
  );
}

/** The batch as the other events (in order) and the packed deltas; undefined when no delta can be packed. */
export function packDeltas(events: readonly AgentEvent[]): { readonly rest: AgentEvent[]; readonly packed: PackedDeltas } | undefined {
  const order = new Uint8Array(events.length);
  const rest: AgentEvent[] = [];
  const texts: string[] = [];
  const numbers: number[] = [];
  const contexts: string[] = [];
  let last: Delta | undefined;
  for (let i = 0; i < events.length; i++) {
    const event = events[i] as AgentEvent;
    if (!isPackable(event)) {
      rest.push(event);
      continue;
    }
    order[i] = 1;
    const sameContext =
      last !== undefined &&
      last.messageId === event.messageId &&
      last.role === event.role &&
      last.kind === event.kind &&
      last.sessionId === event.sessionId &&
      last.source?.dialect === event.source.dialect &&
      last.time === event.time;
    if (!sameContext) contexts.push(event.messageId, event.role, event.kind, event.sessionId, event.source.dialect, event.time ?? "");
    last = event;
    texts.push(event.text);
    numbers.push(event.seq, event.position, event.source.line, contexts.length / CONTEXT - 1);
  }
  if (texts.length === 0) return undefined;
  return { rest, packed: { order, texts, numbers: new Float64Array(numbers), contexts } };
}

/** The whole batch again: the packed deltas rebuilt (keys in `stamp`'s order) between the other events. */
export function unpackDeltas(rest: readonly AgentEvent[], packed: PackedDeltas): AgentEvent[] {
  const { order, texts, numbers, contexts } = packed;
  const events: AgentEvent[] = [];
  let other = 0;
  let delta = 0;
  for (let i = 0; i < order.length; i++) {
    if (order[i] === 0) {
      events.push(rest[other++] as AgentEvent);
      continue;
    }
    const at = delta * NUMBERS;
    const context = (numbers[at + 3] as number) * CONTEXT;
    const time = contexts[context + 5] as string;
    const seq = numbers[at] as number;
    const messageId = contexts[context] as string;
    const role = contexts[context + 1] as Delta["role"];
    const kind = contexts[context + 2] as Delta["kind"];
    const text = texts[delta] as string;
    const position = numbers[at + 1] as number;
    const sessionId = contexts[context + 3] as string;
    const source = { dialect: contexts[context + 4] as string, line: numbers[at + 2] as number };
    // One literal per shape, keys in `stamp`'s order.
    events.push(
      time === ""
        ? { v: MODEL_VERSION, seq, type: "message.delta", messageId, role, kind, text, position, sessionId, source }
        : { v: MODEL_VERSION, seq, type: "message.delta", messageId, role, kind, text, position, time, sessionId, source },
    );
    delta++;
  }
  return events;
}
