/**
 * Our own model as NDJSON: one event per line, UTF-8, no ASCII escaping (the Witness convention).
 * JSON.stringify escapes every control character (so no raw LF can split a line) and writes
 * U+2028/U+2029 raw, which is valid JSON and not a line end for NDJSON readers; lone surrogates
 * are written as \u escapes (ES2019), so no text is lost to U+FFFD.
 */
import type { AgentEvent } from "../../model/events.ts";
import type { RecordEncoder } from "../../encoding/record-encoder.ts";
import { stringifyRecord } from "../../framing/stringify.ts";
import { createSequenceGuard } from "./sequence-guard.ts";

/** One event as one NDJSON line (without the newline). */
export function toLine(event: AgentEvent): string {
  return stringifyRecord(event);
}

/** Events as NDJSON lines (without newlines). */
export function toLines(events: Iterable<AgentEvent>): string[] {
  const lines: string[] = [];
  for (const event of events) lines.push(stringifyRecord(event));
  return lines;
}

/**
 * The encoder for `--to agentstream`: the records are the events themselves. Events pass a sequence
 * guard first, so the output passes `validate --format agentstream` whatever order they came in
 * (repairs are `repair` events).
 */
export function createAgentstreamEncoder(): RecordEncoder<AgentEvent> {
  const guard = createSequenceGuard();
  return {
    encode: (event) => guard.push(event),
    end: () => guard.end(),
  };
}
