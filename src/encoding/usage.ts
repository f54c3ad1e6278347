/** Token usage in the snake_case shape the seed formats use for their own fields. */
import type { JsonObject, Usage } from "../model/events.ts";

/** `{input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens}`; `null` where the agent gave no figure. */
export function usageToWire(usage: Usage): JsonObject {
  return {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    cache_read_tokens: usage.cacheReadTokens,
    cache_write_tokens: usage.cacheWriteTokens,
    reasoning_tokens: usage.reasoningTokens,
  };
}
