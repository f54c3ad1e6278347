/**
 * Long tool outputs as their JSON bytes, held once and spliced into the text that is written. A tool's
 * output is most of the bytes of an agent's stream, and a writer of our own format only copies it:
 * decoding it, parsing it, escaping it again and encoding it again are the most of the work.
 *
 * A string is replaced by a stand-in (a short string: NUL, this process's nonce, a key) and its JSON
 * text (quotes included, UTF-8) is kept in the registry under that key. Two kinds of entries:
 * - **input strings** (`holdInputString`): the framer's rawStrings mode (framing/ndjson/_raw-strings.ts)
 *   keeps a tool output's bytes as the input wrote them, when they are exactly what `JSON.stringify`
 *   writes for its value, so the value is never decoded at all; they live until the consumer that
 *   splices them releases them (`releaseStandIns`), or until the pipeline finds no event kept them;
 * - **shared strings** (`createSharedStrings`): a writer escapes a long string once though an event
 *   holds it twice (Claude's `tool_use_result.stdout` repeats the tool_result's text); they live for
 *   one event.
 * The event is serialized with the stand-ins in place, and `splice` cuts the text at each stand-in and
 * puts the bytes there. `JSON.stringify` escapes a string the same wherever it stands, so the text is
 * what a writer given the real strings writes. JSON.stringify writes the NUL as `\u0000`, which no
 * input string can be confused with unless it guesses the nonce (as in framing/stringify.ts).
 */
import type { AgentEvent, JsonObject, JsonValue } from "../model/events.ts";
import { isJsonObject } from "../model/lossless-integer.ts";

/** A string this long (UTF-16 units) is shared; shorter ones cost less to serialize again than to look up. */
export const SHARED_STRING_CHARS = 8192;

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });

/**
 * The stand-ins and their bytes in one thread. The log worker makes one with the main thread's nonce
 * and adopts the input strings it is sent, so the stand-ins of the events it gets splice there too.
 */
export class StringRegistry {
  readonly nonce: string;
  /** How a stand-in starts as a string. */
  readonly prefix: string;
  /** How a stand-in starts in JSON text (with its opening quote). */
  readonly prefixInJson: string;
  private readonly entries = new Map<string, Uint8Array>();
  private nextInput = 0;
  private nextShared = 0;
  /** Bytes of input strings held now. */
  heldInputBytes = 0;

  /** What every stand-in holds, in any form (raw or serialized). */
  private readonly marker: string;
  private readonly inJsonPattern: RegExp;
  private readonly rawPattern: RegExp;

  constructor(nonce: string = Math.random().toString(36).slice(2, 12)) {
    this.nonce = nonce;
    this.prefix = `\u0000agentstream-shared-${nonce}:`;
    this.prefixInJson = `"\\u0000agentstream-shared-${nonce}:`;
    this.marker = `agentstream-shared-${nonce}:`;
    this.inJsonPattern = new RegExp(`"\\\\u0000agentstream-shared-${nonce}:(\\d+)"`, "g");
    this.rawPattern = new RegExp(`\u0000agentstream-shared-${nonce}:(\\d+)`, "g");
  }

  /** Holds an input string's JSON text (quotes included; the registry keeps this array) and returns its stand-in. */
  holdInputString(json: Uint8Array): string {
    const key = String(this.nextInput++);
    this.entries.set(key, json);
    this.heldInputBytes += json.length;
    return this.prefix + key;
  }

  /** Holds an input string under the key another thread gave it (the log worker's copy). */
  adopt(key: string, json: Uint8Array): void {
    if (!this.entries.has(key)) this.heldInputBytes += json.length;
    this.entries.set(key, json);
  }

  /** Holds `JSON.stringify(text)` as UTF-8 and returns its stand-in (a shared string, released with `releaseKey`). */
  share(text: string): string {
    const key = `s${this.nextShared++}`;
    this.entries.set(key, encoder.encode(JSON.stringify(text)));
    return this.prefix + key;
  }

  /** The key of a stand-in, or undefined when `value` is not one of this registry's. */
  keyOf(value: unknown): string | undefined {
    if (typeof value !== "string" || value.length > this.prefix.length + 24 || !value.startsWith(this.prefix)) return undefined;
    return value.slice(this.prefix.length);
  }

  isStandIn(value: unknown): value is string {
    return this.keyOf(value) !== undefined;
  }

  /** The JSON bytes of the entry under `key`, or undefined when it was released (or never held). */
  bytes(key: string): Uint8Array | undefined {
    return this.entries.get(key);
  }

  /** The real text of `value` when it is a stand-in whose bytes are held; `value` itself otherwise. */
  resolve<T>(value: T): T | string {
    const key = this.keyOf(value);
    const json = key === undefined ? undefined : this.entries.get(key);
    return json === undefined ? value : (JSON.parse(decoder.decode(json)) as string);
  }

  /** Whether `text` holds any of this registry's stand-ins, whole or inside it. */
  mentions(text: string): boolean {
    return text.includes(this.marker);
  }

  /**
   * `text` with each stand-in inside it replaced by what was meant: a stand-in serialized within it (a
   * decoder wrote a JSON text holding one) by its string's JSON text, one joined into it by its string's text.
   */
  resolveWithin(text: string): string {
    const bytesOf = (key: string): Uint8Array | undefined => this.entries.get(key);
    return text
      .replace(this.inJsonPattern, (found, key: string) => {
        const json = bytesOf(key);
        return json === undefined ? found : decoder.decode(json);
      })
      .replace(this.rawPattern, (found, key: string) => {
        const json = bytesOf(key);
        return json === undefined ? found : (JSON.parse(decoder.decode(json)) as string);
      });
  }

  releaseKey(key: string): void {
    const json = this.entries.get(key);
    if (json === undefined) return;
    this.entries.delete(key);
    if (key.charCodeAt(0) !== 0x73 /* s */) this.heldInputBytes -= json.length;
  }

  /** Entries held now (tests check that nothing is left behind). */
  get size(): number {
    return this.entries.size;
  }
}

/** The registry of this thread. */
export const strings = new StringRegistry();

/**
 * Calls `visit` with the key of each stand-in `event` holds: where they travel (a `tool.completed`'s
 * `output` and the strings of its `result`, Claude's `tool_use_result`), or anywhere in any other event (a
 * notice quoting a record). Nothing to do while the registry holds nothing.
 */
export function forEachStandIn(event: AgentEvent, registry: StringRegistry, visit: (key: string) => void): void {
  if (registry.size === 0) return;
  if (event.type !== "tool.completed") return visitStrings(event as unknown as JsonObject, registry, visit);
  const key = registry.keyOf(event.output);
  if (key !== undefined) visit(key);
  if (typeof event.result === "object" && event.result !== null) visitStrings(event.result, registry, visit);
}

function visitStrings(value: JsonValue, registry: StringRegistry, visit: (key: string) => void): void {
  if (typeof value === "string") {
    const key = registry.keyOf(value);
    if (key !== undefined) visit(key);
  } else if (Array.isArray(value)) {
    for (const item of value) visitStrings(item, registry, visit);
  } else if (isJsonObject(value)) {
    for (const field in value) visitStrings(value[field] as JsonValue, registry, visit);
  }
}

/** Releases the input strings `event` holds (its consumer has written it, or dropped it). */
export function releaseStandIns(event: AgentEvent, registry: StringRegistry = strings): void {
  forEachStandIn(event, registry, (key) => registry.releaseKey(key));
}

/** The event with every stand-in replaced by its real text (for a consumer that does not splice). */
export function resolveStandIns(event: AgentEvent, registry: StringRegistry = strings): AgentEvent {
  let found = false;
  forEachStandIn(event, registry, () => {
    found = true;
  });
  return found ? (resolveValue(event as unknown as JsonValue, registry) as unknown as AgentEvent) : event;
}

/** A copy of `value` with its stand-ins resolved (the value itself when it holds none). */
export function resolveValue(value: JsonValue, registry: StringRegistry = strings): JsonValue {
  if (typeof value === "string") return registry.resolve(value);
  if (Array.isArray(value)) {
    let copy: JsonValue[] | undefined;
    value.forEach((item, i) => {
      const real = resolveValue(item, registry);
      if (real === item) return;
      copy ??= value.slice();
      copy[i] = real;
    });
    return copy ?? value;
  }
  if (!isJsonObject(value)) return value;
  let copy: JsonObject | undefined;
  for (const field in value) {
    const inner = value[field] as JsonValue;
    const real = resolveValue(inner, registry);
    if (real === inner) continue;
    copy ??= { ...value };
    copy[field] = real;
  }
  return copy ?? value;
}

export interface SharedStrings {
  /**
   * The event with its long tool output strings replaced by stand-ins (the event itself when it has
   * none). The stand-ins of the previous event are forgotten: write each event's lines before the next.
   * Input strings' stand-ins are left as they are (their bytes are held already).
   */
  standIn(event: AgentEvent): AgentEvent;
  /** Forgets the last event's shared strings. */
  forget(): void;
  readonly registry: StringRegistry;
}

export function createSharedStrings(registry: StringRegistry = strings): SharedStrings {
  const keyOfText = new Map<string, string>();
  const share = (text: string): string => {
    let standIn = keyOfText.get(text);
    if (standIn === undefined) {
      standIn = registry.share(text);
      keyOfText.set(text, standIn);
    }
    return standIn;
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
    if (keyOfText.size === 0) return;
    for (const standIn of keyOfText.values()) registry.releaseKey(standIn.slice(registry.prefix.length));
    keyOfText.clear();
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
    registry,
  };
}

/** A piece of spliced text: text, or a string's JSON bytes where its stand-in was. */
export type Piece = string | Uint8Array;

/**
 * The JSON text cut at each stand-in, with the string's bytes (its quotes included) in its place.
 * With `release`, the input strings spliced are let go of afterwards (the text's one consumer wrote them).
 */
export function splice(json: string, registry: StringRegistry = strings, release = false): Piece[] {
  const pieces: Piece[] = [];
  const marker = registry.prefixInJson;
  const keys: string[] = [];
  let from = 0;
  for (let at = json.indexOf(marker); at !== -1; at = json.indexOf(marker, from)) {
    const close = json.indexOf('"', at + marker.length);
    const key = json.slice(at + marker.length, close);
    const bytes = registry.bytes(key);
    if (bytes === undefined) throw new Error("a stand-in outlived its string's bytes"); // a bug, not input
    pieces.push(json.slice(from, at), bytes);
    keys.push(key);
    from = close + 1;
  }
  pieces.push(json.slice(from));
  if (release) for (const key of keys) if (key.charCodeAt(0) !== 0x73 /* s: a shared string, the writer's */) registry.releaseKey(key);
  return pieces;
}

/** Whether `json` may hold a stand-in of `registry` (so `splice` is worth calling). */
export function hasStandIn(json: string, registry: StringRegistry = strings): boolean {
  return json.includes(registry.prefixInJson);
}
