/**
 * The Witness Forge emitter API (`make_event`, `to_line`, `to_lines`, `validate_event`,
 * `validate_ndjson_line`), generalised to the agentstream model: for programs that produce events
 * themselves instead of reading an agent's output.
 */
import type { Issue } from "./errors.ts";
import { MODEL_VERSION, type AgentEventType, type EventOf } from "./model/events.ts";
import { createNdjsonParser } from "./framing/ndjson/create-ndjson-parser.ts";
import { validateEvent } from "./validation/validate-event.ts";

/** Fields of an event of type `T`, without the envelope that `makeEvent` fills in. */
export type EventFields<T extends AgentEventType> = Omit<EventOf<T>, "v" | "seq" | "type"> & { seq?: number };

/**
 * Builds one event. `seq` defaults to 0; a producer that emits a stream numbers its events.
 * @example
 * const line = toLine(makeEvent("message.completed", { seq: 3, messageId: "m1", role: "assistant", kind: "text", text: "Done." }));
 */
export function makeEvent<T extends AgentEventType>(type: T, fields: EventFields<T>): EventOf<T> {
  const { seq, ...rest } = fields as EventFields<T> & { seq?: number };
  return { v: MODEL_VERSION, seq: seq ?? 0, type, ...rest } as unknown as EventOf<T>;
}

/**
 * Checks one NDJSON line: it must be one JSON object (with the framing layer's checks: depth,
 * prototype keys, duplicate keys) that is a valid agentstream event. Returns the problems; empty is valid.
 */
export function validateLine(line: string): Issue[] {
  const issues: Issue[] = [];
  let value: unknown;
  let records = 0;
  const parser = createNdjsonParser(
    {
      onRecord(record) {
        records++;
        if (record.kind === "json") value = record.value;
        else issues.push({ code: "invalid-json", severity: "error", message: "not a JSON object", line: 1 });
      },
      onIssue(issue) {
        if (issue.severity !== "info") issues.push(issue);
      },
    },
    { framing: "ndjson" },
  );
  parser.feed(line.endsWith("\n") ? line : `${line}\n`);
  parser.end();
  if (records > 1 || parser.stats.lines > 1)
    issues.push({ code: "invalid-json", severity: "error", message: "a line must hold one event: it contains a line break", line: 1 });
  if (value !== undefined) issues.push(...validateEvent(value, 1));
  return issues;
}
