/**
 * A long tool output repeated in its event's result, sent to the log worker once. The stand-ins and
 * the splice of the logs are framing/shared-strings.ts's: a tool's output is most of the bytes of a
 * flood, and each one is written up to four times (the events log has `output` and often the same
 * text again in `result`, Claude's `stdout`, and the oneshot packet has both once more).
 */
import type { AgentEvent, JsonObject } from "../model/events.ts";
import { isJsonObject } from "../model/lossless-integer.ts";
import { SHARED_STRING_CHARS } from "../framing/shared-strings.ts";

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
