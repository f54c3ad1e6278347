/**
 * Folds streamed tool arguments (`tool.input.delta`) into their `tool.started`, for writers whose
 * format has one record per tool call with its whole arguments (witness, oneshot, aaep,
 * codex-thread). A `tool.started` without `input` is held until the first event that is not one of
 * its input deltas; nothing else is held, so the order of the stream is kept.
 */
import type { AgentEvent, EventOf, JsonValue } from "../model/events.ts";

/** Holds argument-less tool calls until their arguments have streamed. */
export interface ToolInputJoiner {
  /** The events to write now, in order, for one input event (possibly none, possibly several). */
  push(event: AgentEvent): AgentEvent[];
  /** Whatever is still held when the input ends. */
  end(): AgentEvent[];
}

interface Held {
  event: EventOf<"tool.started">;
  parts: string[];
}

/** Parses the joined fragments; text that is not JSON (a cut stream) is kept as a string, never dropped. */
function parseInput(parts: readonly string[]): JsonValue | undefined {
  if (parts.length === 0) return undefined;
  const text = parts.join("");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

/** Creates a joiner for one stream. */
export function createToolInputJoiner(): ToolInputJoiner {
  const held = new Map<string, Held>();

  const release = (): AgentEvent[] => {
    if (held.size === 0) return [];
    const out: AgentEvent[] = [];
    for (const { event, parts } of held.values()) {
      const input = parseInput(parts);
      out.push(input === undefined ? event : { ...event, input });
    }
    held.clear();
    return out;
  };

  return {
    push(event) {
      if (event.type === "tool.input.delta") {
        const open = held.get(event.toolCallId);
        // Deltas for a call whose input was already given (or never started) add nothing a whole-call format can carry.
        if (open !== undefined) open.parts.push(event.text);
        return [];
      }
      if (event.type === "tool.started" && event.input === undefined && !held.has(event.toolCallId)) {
        held.set(event.toolCallId, { event, parts: [] });
        return [];
      }
      const out = release();
      out.push(event);
      return out;
    },
    end: release,
  };
}
