/**
 * Long tool outputs, escaped and encoded once for both logs. A tool's output is most of the bytes
 * of a flood, and each one is written up to four times: the events log has `output` and often the
 * same text again in `result` (Claude's `stdout`), and the oneshot packet has both once more. Each
 * long string becomes a stand-in (a short string) in a shallow copy of the event; the copy is
 * serialized as usual, and the writer splices the string's JSON bytes in where the stand-in is.
 * `JSON.stringify` escapes a string the same wherever it stands, so the text is the same as before.
 */
import type { AgentEvent, JsonObject } from "../model/events.ts";
import { isJsonObject } from "../model/lossless-integer.ts";

/** A string this long (UTF-16 units) is shared; shorter ones cost less to serialize again than to look up. */
const SHARED_STRING_CHARS = 8192;

// A NUL starts the stand-in: JSON.stringify writes it as `\u0000`, which no input string can be
// confused with unless it guesses this process's random nonce (as in framing/stringify.ts).
const nonce = Math.random().toString(36).slice(2, 12);
const standInPrefix = `\u0000agentstream-shared-${nonce}:`;
/** How a stand-in starts in JSON text (with its opening quote). */
export const STAND_IN_IN_JSON = `"\\u0000agentstream-shared-${nonce}:`;

export interface SharedStrings {
  /**
   * The event with its long tool output strings replaced by stand-ins (the event itself when it has
   * none). The stand-ins of the previous event are forgotten: write each event's lines before the next.
   */
  standIn(event: AgentEvent): AgentEvent;
  /** Forgets the last event's stand-ins. */
  forget(): void;
  /** Whether the last event got any stand-in. */
  readonly used: boolean;
  /** The JSON text (quotes included) of stand-in `index` as UTF-8, or undefined for an unknown index. */
  bytes(index: number): Buffer | undefined;
}

export function createSharedStrings(): SharedStrings {
  const indexOf = new Map<string, number>();
  const encoded: Buffer[] = [];
  const share = (text: string): string => {
    let index = indexOf.get(text);
    if (index === undefined) {
      index = encoded.push(Buffer.from(JSON.stringify(text))) - 1;
      indexOf.set(text, index);
    }
    return `${standInPrefix}${index}`;
  };
  const isLong = (value: unknown): value is string => typeof value === "string" && value.length >= SHARED_STRING_CHARS;
  /** The object with its long string fields (one level deep) replaced; the object itself when it has none. */
  const standInFields = (object: JsonObject): JsonObject => {
    let copy: JsonObject | undefined;
    for (const key of Object.keys(object)) {
      const value = object[key];
      if (!isLong(value)) continue;
      copy ??= { ...object };
      copy[key] = share(value); // an existing key keeps its place
    }
    return copy ?? object;
  };
  const forget = (): void => {
    indexOf.clear();
    encoded.length = 0;
  };
  return {
    standIn(event) {
      forget();
      if (event.type !== "tool.completed") return event;
      const output = isLong(event.output) ? share(event.output) : event.output;
      const result = isJsonObject(event.result) ? standInFields(event.result) : event.result;
      if (output === event.output && result === event.result) return event;
      // Existing keys keep their place in a spread, so the text keeps its key order.
      return { ...event, ...(output === event.output ? {} : { output }), ...(result === event.result ? {} : { result }) };
    },
    forget,
    get used() {
      return encoded.length > 0;
    },
    bytes: (index) => encoded[index],
  };
}

/**
 * The keys of a `tool.completed` result whose value is the event's long output again (Claude's
 * `tool_use_result.stdout` repeats the tool_result's text). Handing the event to the log worker
 * copies each string, and the long outputs are most of what is copied: a repeat is sent as a key
 * instead (about a third less to copy on a Claude flood).
 */
export function findRepeatedOutput(event: AgentEvent): readonly string[] {
  if (event.type !== "tool.completed" || event.output === undefined || event.output.length < SHARED_STRING_CHARS) return [];
  if (!isJsonObject(event.result)) return [];
  const keys: string[] = [];
  for (const key of Object.keys(event.result)) if (event.result[key] === event.output) keys.push(key);
  return keys;
}

/** A copy of the event with each repeat (`keys` of its result) emptied; `restoreRepeatedOutput` fills them again. */
export function withoutRepeatedOutput(event: AgentEvent, keys: readonly string[]): AgentEvent {
  if (event.type !== "tool.completed" || !isJsonObject(event.result)) return event;
  const result: JsonObject = { ...event.result };
  for (const key of keys) result[key] = "";
  return { ...event, result };
}

export function restoreRepeatedOutput(event: AgentEvent, keys: readonly string[]): void {
  if (event.type !== "tool.completed" || !isJsonObject(event.result) || event.output === undefined) return;
  for (const key of keys) event.result[key] = event.output;
}
