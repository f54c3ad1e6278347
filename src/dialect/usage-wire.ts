/** Token usage read from the snake_case shape our seed-format writers use (encoding/usage.ts). */
import type { JsonValue, Usage } from "../model/events.ts";
import { usageFrom } from "../model/usage.ts";
import { get } from "./json.ts";

const WIRE_KEYS = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens"] as const;

/** The usage in `value`, or undefined when it has none of the five figures. */
export function usageFromWire(value: JsonValue | undefined): Usage | undefined {
  if (!WIRE_KEYS.some((key) => typeof get(value, key) === "number")) return undefined;
  return usageFrom({
    inputTokens: get(value, "input_tokens"),
    outputTokens: get(value, "output_tokens"),
    cacheReadTokens: get(value, "cache_read_tokens"),
    cacheWriteTokens: get(value, "cache_write_tokens"),
    reasoningTokens: get(value, "reasoning_tokens"),
  });
}
