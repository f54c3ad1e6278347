/**
 * Held strings: long tool outputs kept as their input's JSON bytes, never decoded, for a writer of our own
 * format (the record sink's `--to agentstream`, `run`'s logs), which copies them into its text. A tool's
 * output is most of the bytes of an agent's stream, and decoding it, parsing it, escaping it again and
 * encoding it again are most of such a writer's work.
 *
 * The writer that wants this makes a `HeldStrings` and hands it to its reader (one per reader, nothing
 * process-wide). The reader's framer holds a long string whose JSON text is exactly what `JSON.stringify`
 * writes (framing/ndjson/_placeholders.ts checks that) and gives the record a short placeholder in its
 * place: NUL, this registry's nonce, a key. A dialect lets placeholders into its decoder only for the
 * records it names (`Dialect.passesHeldStrings`); every other record is read with its texts. The writer
 * serializes an event with the placeholders in place, and `splice` cuts the text at each one and puts
 * the bytes there: `JSON.stringify` escapes a string the same wherever it stands, so the text is what a
 * writer given the real strings writes. JSON.stringify writes the NUL as `\u0000`, which no input string
 * can be confused with unless it guesses the nonce (as in framing/stringify.ts).
 */
import type { AgentEvent, JsonObject, JsonValue } from "../model/events.ts";
import { isJsonObject } from "../model/lossless-integer.ts";

const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

/** Bytes held at most by default: past this (a consumer that drops events without releasing them), strings are read in full. */
const MAX_HELD_BYTES = 64 * 1024 * 1024;

export interface HeldStringsOptions {
  /** The nonce of the placeholders (the log worker's registry takes its main thread's). */
  readonly nonce?: string;
  /** Bytes held at most (default 64 MiB): past this, strings are read in full. */
  readonly maxBytes?: number;
}

/** What the framer holds strings in: a `HeldStrings`, or the reader's record of what it held for a record. */
export interface StringHolder {
  /** Bytes held now: past `maxBytes`, strings are read in full. */
  readonly heldBytes: number;
  readonly maxBytes: number;
  /** Holds a string's JSON text (quotes included; the holder keeps this array) and returns its placeholder. */
  hold(json: Uint8Array): string;
}

/** The held strings of one reader and its writer. */
export class HeldStrings implements StringHolder {
  readonly nonce: string;
  /** How a placeholder starts as a string. */
  readonly prefix: string;
  /** How a placeholder starts in JSON text (with its opening quote). */
  readonly prefixInJson: string;
  readonly maxBytes: number;
  private readonly entries = new Map<string, Uint8Array>();
  private next = 0;
  private nextText = 0;
  /** Bytes held now. */
  heldBytes = 0;

  /** What every placeholder holds, in any form (a string or serialized). */
  private readonly marker: string;
  private readonly inJsonPattern: RegExp;
  private readonly rawPattern: RegExp;

  constructor(options: HeldStringsOptions = {}) {
    const nonce = options.nonce ?? Math.random().toString(36).slice(2, 12);
    this.nonce = nonce;
    this.maxBytes = options.maxBytes ?? MAX_HELD_BYTES;
    this.prefix = `\u0000agentstream-held-${nonce}:`;
    this.prefixInJson = `"\\u0000agentstream-held-${nonce}:`;
    this.marker = `agentstream-held-${nonce}:`;
    this.inJsonPattern = new RegExp(`"\\\\u0000agentstream-held-${nonce}:(\\d+)"`, "g");
    this.rawPattern = new RegExp(`\u0000agentstream-held-${nonce}:(\\d+)`, "g");
  }

  /** Holds a string's JSON text (quotes included; the registry keeps this array) and returns its placeholder. */
  hold(json: Uint8Array): string {
    const key = String(this.next++);
    this.entries.set(key, json);
    this.heldBytes += json.length;
    return this.prefix + key;
  }

  /**
   * Holds a text the writer has, as `JSON.stringify` writes it, and returns its placeholder: a writer that
   * writes one long text several times (the run logs: a tool's output, repeated in its result, in two logs)
   * escapes and encodes it once.
   */
  holdText(text: string): string {
    // Keys of their own: a log worker's registry also holds its main thread's, under theirs.
    const key = `t${this.nextText++}`;
    const json = encoder.encode(JSON.stringify(text));
    this.entries.set(key, json);
    this.heldBytes += json.length;
    return this.prefix + key;
  }

  /** Holds a string under the key another thread gave it (the log worker's copy). */
  adopt(key: string, json: Uint8Array): void {
    if (!this.entries.has(key)) this.heldBytes += json.length;
    this.entries.set(key, json);
  }

  /** The key of a placeholder, or undefined when `value` is not one of this registry's. */
  keyOf(value: unknown): string | undefined {
    if (typeof value !== "string" || value.length > this.prefix.length + 24 || !value.startsWith(this.prefix)) return undefined;
    return value.slice(this.prefix.length);
  }

  /** The JSON bytes held under `key`, or undefined when they were released (or never held). */
  bytes(key: string): Uint8Array | undefined {
    return this.entries.get(key);
  }

  /** The real text of `value` when it is a placeholder whose bytes are held; `value` itself otherwise. */
  text<T>(value: T): T | string {
    const key = this.keyOf(value);
    const json = key === undefined ? undefined : this.entries.get(key);
    return json === undefined ? value : (JSON.parse(decoder.decode(json)) as string);
  }

  /** Whether `text` holds any of this registry's placeholders, whole or inside it. */
  mentions(text: string): boolean {
    return text.includes(this.marker);
  }

  /**
   * `text` with each placeholder inside it replaced by what was meant: one serialized within it (a decoder
   * wrote a JSON text holding one) by its string's JSON text, one joined into it by its string's text.
   */
  resolveWithin(text: string): string {
    return text
      .replace(this.inJsonPattern, (found, key: string) => {
        const json = this.entries.get(key);
        return json === undefined ? found : decoder.decode(json);
      })
      .replace(this.rawPattern, (found, key: string) => {
        const json = this.entries.get(key);
        return json === undefined ? found : (JSON.parse(decoder.decode(json)) as string);
      });
  }

  release(key: string): void {
    const json = this.entries.get(key);
    if (json === undefined) return;
    this.entries.delete(key);
    this.heldBytes -= json.length;
  }

  /** Entries held now (tests check that nothing is left behind). */
  get size(): number {
    return this.entries.size;
  }
}

/**
 * Calls `visit` with the key of each placeholder `event` holds: where they travel (a `tool.completed`'s
 * `output` and the strings of its `result`), or anywhere in any other event (a notice quoting a record).
 * Nothing to do while the registry holds nothing.
 */
export function forEachHeld(event: AgentEvent, held: HeldStrings, visit: (key: string) => void): void {
  if (held.size === 0) return;
  if (event.type !== "tool.completed") return visitStrings(event as unknown as JsonObject, held, visit);
  const key = held.keyOf(event.output);
  if (key !== undefined) visit(key);
  if (typeof event.result === "object" && event.result !== null) visitStrings(event.result, held, visit);
}

function visitStrings(value: JsonValue, held: HeldStrings, visit: (key: string) => void): void {
  if (typeof value === "string") {
    const key = held.keyOf(value);
    if (key !== undefined) visit(key);
  } else if (Array.isArray(value)) {
    for (const item of value) visitStrings(item, held, visit);
  } else if (isJsonObject(value)) {
    for (const field in value) visitStrings(value[field] as JsonValue, held, visit);
  }
}

/** Lets go of the strings `event` holds (its consumer has written it, or dropped it). */
export function releaseHeld(event: AgentEvent, held: HeldStrings): void {
  forEachHeld(event, held, (key) => held.release(key));
}

/** The event with every placeholder replaced by its text (for a consumer that does not splice). */
export function withHeldTexts(event: AgentEvent, held: HeldStrings): AgentEvent {
  let found = false;
  forEachHeld(event, held, () => {
    found = true;
  });
  return found ? (withTexts(event as unknown as JsonValue, held) as unknown as AgentEvent) : event;
}

/** A copy of `value` with its placeholders replaced by their texts (the value itself when it holds none). */
export function withTexts(value: JsonValue, held: HeldStrings): JsonValue {
  if (typeof value === "string") return held.text(value);
  if (Array.isArray(value)) {
    let copy: JsonValue[] | undefined;
    value.forEach((item, i) => {
      const real = withTexts(item, held);
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
    const real = withTexts(inner, held);
    if (real === inner) continue;
    copy ??= { ...value };
    copy[field] = real;
  }
  return copy ?? value;
}

/** A piece of spliced text: text, or a string's JSON bytes where its placeholder was. */
export type Piece = string | Uint8Array;

/**
 * The JSON text cut at each placeholder, with the string's bytes (its quotes included) in its place. With
 * `release`, the strings spliced are let go of afterwards (the text's one consumer wrote them).
 */
export function splice(json: string, held: HeldStrings, release = false): Piece[] {
  const pieces: Piece[] = [];
  const marker = held.prefixInJson;
  const keys: string[] = [];
  let from = 0;
  for (let at = json.indexOf(marker); at !== -1; at = json.indexOf(marker, from)) {
    const close = json.indexOf('"', at + marker.length);
    const key = json.slice(at + marker.length, close);
    const bytes = held.bytes(key);
    if (bytes === undefined) throw new Error("a held string was released before it was written"); // a bug, not input
    pieces.push(json.slice(from, at), bytes);
    keys.push(key);
    from = close + 1;
  }
  pieces.push(json.slice(from));
  if (release) for (const key of keys) held.release(key);
  return pieces;
}

/** Whether `json` may hold a placeholder of `held` (so `splice` is worth calling). */
export function mayHoldPlaceholder(json: string, held: HeldStrings): boolean {
  return held.size > 0 && json.includes(held.prefixInJson);
}
