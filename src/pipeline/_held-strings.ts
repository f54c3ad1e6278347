/**
 * The reader's side of held strings (framing/held-strings.ts): which strings the framer held for the record
 * being read, and letting go of those no event kept. A placeholder travels from the record into the events
 * decoded from it (the Claude decoder hands a tool output on unchanged); one that reaches no event (a record
 * the decoder ignores, an output the decoder read as text) is released once the record is read, so only
 * what the writer still has to write is held.
 */
import type { AgentEvent, JsonObject, JsonValue } from "../model/events.ts";
import type { Dialect } from "../dialect/dialect.ts";
import type { JsonRecord } from "../framing/ndjson/create-ndjson-parser.ts";
import { withTexts, type HeldStrings, type StringHolder } from "../framing/held-strings.ts";

/** The long strings that may be held: the summary skim's tool outputs, from 8 KiB, in lines from 16 KiB. */
export const HELD_STRINGS_SKIM = {
  keys: new Set(["stdout", "stderr", "aggregated_output", "formatted_output"]),
  toolResultKeys: new Set(["content"]),
  minBytes: 8192,
  minLineBytes: 16 * 1024,
} as const;

export class HeldRecord implements StringHolder {
  /** Keys of the strings held for the record being read (and, while detecting, the records held with it). */
  private readonly pending: string[] = [];
  /** Those of them seen in an event. */
  private readonly kept = new Set<string>();

  readonly strings: HeldStrings;

  constructor(strings: HeldStrings) {
    this.strings = strings;
  }

  get heldBytes(): number {
    return this.strings.heldBytes;
  }

  get maxBytes(): number {
    return this.strings.maxBytes;
  }

  hold(json: Uint8Array): string {
    const placeholder = this.strings.hold(json);
    this.pending.push(this.strings.keyOf(placeholder) as string);
    return placeholder;
  }

  /** Whether the record being read has held strings. */
  get active(): boolean {
    return this.pending.length > 0;
  }

  /** The record as its decoder may read it: unless the dialect lets its placeholders through, a copy with their texts. */
  resolveFor(dialect: Dialect | undefined, record: JsonRecord): JsonRecord {
    if (dialect?.passesHeldStrings?.(record.value) === true) return record;
    const value = withTexts(record.value, this.strings) as JsonObject;
    return value === record.value ? record : { ...record, value };
  }

  /**
   * Notes the placeholders an event carries (call for each event while `active`); a string holding one inside
   * it (a decoder serialized or joined it: never seen in the decoders that pass them, but a placeholder must
   * not reach anyone as text) gets what was meant put back.
   */
  noteEvent(event: AgentEvent): void {
    this.visitStrings(event as unknown as Record<string, JsonValue>);
  }

  /** The record is read: releases what no event kept. */
  settle(): void {
    for (const key of this.pending) if (!this.kept.has(key)) this.strings.release(key);
    this.pending.length = 0;
    this.kept.clear();
  }

  private visitStrings(container: Record<string, JsonValue> | JsonValue[]): void {
    const fields = container as Record<string, JsonValue>;
    for (const field in fields) {
      const value = fields[field];
      if (typeof value === "string") {
        if (!this.strings.mentions(value)) continue;
        const key = this.strings.keyOf(value);
        if (key !== undefined) this.kept.add(key);
        else fields[field] = this.strings.resolveWithin(value);
      } else if (typeof value === "object" && value !== null) this.visitStrings(value as Record<string, JsonValue>);
    }
  }
}
