/**
 * The reader's side of `rawStrings` (framing/shared-strings.ts): which input strings the framer held
 * for the record being read, and letting go of those no event kept. A stand-in travels from the
 * record into the events decoded from it (the Claude decoder hands a tool output on unchanged); one
 * that reaches no event (a record the decoder ignores, an output the decoder read as text) is released
 * once the record is read, so only what a consumer still has to write is held.
 */
import type { AgentEvent, JsonObject, JsonValue } from "../model/events.ts";
import type { RawStringSink } from "../framing/ndjson/_raw-strings.ts";
import type { JsonRecord } from "../framing/ndjson/create-ndjson-parser.ts";
import { resolveValue, strings } from "../framing/shared-strings.ts";
import { isJsonObject } from "../model/lossless-integer.ts";

/**
 * The records whose decoder hands a stand-in on as it is into a `tool.completed` (its `output` and
 * `result`), or resolves it where it reads the text (audited): Claude's `user` records, which carry the
 * tool results, and Codex's completed commands (`item.completed` of a `command_execution`, whose
 * `aggregated_output` is the output). Every other record (a hook's `stdout` in a Claude `system` record;
 * Codex's `item.updated`, whose output is compared with the last one, and its legacy records, which join
 * `stdout` and `stderr`; every other dialect) has its stand-ins resolved before it is decoded.
 */
function passesStandIns(dialect: string | undefined, value: JsonValue): boolean {
  if (!isJsonObject(value)) return false;
  if (dialect === "claude") return value["type"] === "user";
  if (dialect !== "codex" || value["type"] !== "item.completed") return false;
  const item = value["item"];
  return isJsonObject(item) && item["type"] === "command_execution";
}

/** Input strings held at most (bytes): past this (a consumer that drops events without releasing them), strings are read in full. */
export const MAX_HELD_BYTES = 64 * 1024 * 1024;

/** The long strings rawStrings holds: the summary skim's tool outputs, from 8 KiB, in lines from 16 KiB. */
export const RAW_STRINGS_SKIM = {
  keys: new Set(["stdout", "stderr", "aggregated_output", "formatted_output"]),
  toolResultKeys: new Set(["content"]),
  minBytes: 8192,
  minLineBytes: 16 * 1024,
} as const;

export class HeldStrings implements RawStringSink {
  /** Keys of the input strings held for the record being read (and, while detecting, the records held with it). */
  private readonly pending: string[] = [];
  /** Those of them seen in an event. */
  private readonly kept = new Set<string>();

  get heldInputBytes(): number {
    return strings.heldInputBytes;
  }

  holdInputString(json: Uint8Array): string {
    const standIn = strings.holdInputString(json);
    this.pending.push(strings.keyOf(standIn) as string);
    return standIn;
  }

  /** Whether the record being read has stand-ins. */
  get active(): boolean {
    return this.pending.length > 0;
  }

  /** The record as its decoder may read it: for one that reads its strings as text, a copy with its stand-ins replaced by their text. */
  resolveFor(dialect: string | undefined, record: JsonRecord): JsonRecord {
    if (passesStandIns(dialect, record.value)) return record;
    const value = resolveValue(record.value) as JsonObject;
    return value === record.value ? record : { ...record, value };
  }

  /**
   * Notes the stand-ins an event carries (call for each event while `active`); a string holding one inside
   * it (a decoder serialized or joined it: never seen in the audited decoders, but a stand-in must not reach
   * anyone as text) gets what was meant put back.
   */
  noteEvent(event: AgentEvent): void {
    visitStrings(event as unknown as Record<string, JsonValue>, this.kept);
  }

  /** The record is read: releases what no event kept. */
  settle(): void {
    for (const key of this.pending) if (!this.kept.has(key)) strings.releaseKey(key);
    this.pending.length = 0;
    this.kept.clear();
  }
}

function visitStrings(container: Record<string, JsonValue> | JsonValue[], kept: Set<string>): void {
  const fields = container as Record<string, JsonValue>;
  for (const field in fields) {
    const value = fields[field];
    if (typeof value === "string") {
      if (!strings.mentions(value)) continue;
      const key = strings.keyOf(value);
      if (key !== undefined) kept.add(key);
      else fields[field] = strings.resolveWithin(value);
    } else if (typeof value === "object" && value !== null) visitStrings(value as Record<string, JsonValue>, kept);
  }
}
