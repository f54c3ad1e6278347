import { AgentStreamError } from "../errors.ts";

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Reads a duration such as `500ms`, `15s`, `2m`, `1h` (a bare number is seconds; `0` turns a timer off).
 * Throws AgentStreamError `usage` naming `flag` for anything else.
 */
export function parseDuration(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (match === null) throw new AgentStreamError("usage", `${flag} takes a duration such as 500ms, 15s, 2m or 1h, not "${text}"`);
  return Math.round(Number(match[1]) * (UNIT_MS[match[2] ?? "s"] as number));
}
