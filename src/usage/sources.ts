/**
 * The agents whose session logs `usage` and `sessions` read: one line per source. A new source is its scanner
 * file (declaring its `UsageSource`), its line here, and its request key in src/model/usage-keys.ts, shared
 * with its decoder (docs/usage.md "A new source").
 */
import { ampSource } from "./amp.ts";
import { claudeSource } from "./claude.ts";
import { codexSource } from "./codex.ts";
import { copilotSource } from "./copilot.ts";
import { cursorSource } from "./cursor.ts";
import { geminiSource } from "./gemini.ts";
import { opencodeSource } from "./opencode.ts";
import { qwenSource } from "./qwen.ts";
import type { UsageSource } from "./scanner.ts";
import type { UsageAgent } from "./types.ts";

export const USAGE_SOURCES: readonly UsageSource[] = [
  claudeSource,
  codexSource,
  geminiSource,
  qwenSource,
  copilotSource,
  opencodeSource,
  cursorSource,
  ampSource,
];

export const USAGE_AGENTS: readonly UsageAgent[] = USAGE_SOURCES.map((source) => source.agent);

/** The sources in the order their path and content rules are tried: the loose ones last. */
const BY_RULE = [...USAGE_SOURCES.filter((source) => source.loose !== true), ...USAGE_SOURCES.filter((source) => source.loose === true)];

export function sourceOf(agent: UsageAgent): UsageSource | undefined {
  return USAGE_SOURCES.find((source) => source.agent === agent);
}

/** The agent a path's name gives away, else undefined. */
export function agentByName(path: string): UsageAgent | undefined {
  return BY_RULE.find((source) => source.named(path))?.agent;
}

/** The agent a log's first 64 KiB give away, else undefined. */
export function agentByContent(head: string): UsageAgent | undefined {
  return BY_RULE.find((source) => source.sniff(head))?.agent;
}
