import type { Usage } from "./events.ts";

/** Usage with every figure unknown (`null`). */
export function emptyUsage(): Usage {
  return { inputTokens: null, outputTokens: null, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null };
}

/** Builds a Usage from possibly missing numbers; anything that is not a finite number becomes `null`. */
export function usageFrom(fields: { [K in keyof Usage]?: unknown }): Usage {
  const pick = (value: unknown): number | null => (typeof value === "number" && Number.isFinite(value) ? value : null);
  return {
    inputTokens: pick(fields.inputTokens),
    outputTokens: pick(fields.outputTokens),
    cacheReadTokens: pick(fields.cacheReadTokens),
    cacheWriteTokens: pick(fields.cacheWriteTokens),
    reasoningTokens: pick(fields.reasoningTokens),
  };
}

/** Adds two usages field by field; `null` + n is n, `null` + `null` stays `null`. */
export function addUsage(a: Usage, b: Usage): Usage {
  const add = (x: number | null, y: number | null): number | null => (x === null ? y : y === null ? x : x + y);
  return {
    inputTokens: add(a.inputTokens, b.inputTokens),
    outputTokens: add(a.outputTokens, b.outputTokens),
    cacheReadTokens: add(a.cacheReadTokens, b.cacheReadTokens),
    cacheWriteTokens: add(a.cacheWriteTokens, b.cacheWriteTokens),
    reasoningTokens: add(a.reasoningTokens, b.reasoningTokens),
  };
}

/** True when no figure is known. */
export function isUsageEmpty(usage: Usage): boolean {
  return Object.values(usage).every((value) => value === null);
}
