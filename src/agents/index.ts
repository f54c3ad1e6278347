/**
 * Every agent dialect, in detection order: specific dialects come before the generic ones they
 * resemble (qwen-session before claude-session, whose lines it resembles; claude-session before claude; amp, qwen and cursor before claude; gemini-session before gemini).
 * `json` (framing only, never detected) is not an agent; the registry (src/dialects.ts) adds it last.
 * Adding an agent = one folder under src/agents/ + one line here (docs/dialects/README.md).
 */
import type { Dialect } from "../dialect/dialect.ts";
import { aider } from "./aider/index.ts";
import { amp, claude, claudeSession, qwen } from "./claude/index.ts";
import { cline } from "./cline/index.ts";
import { codex, codexSession } from "./codex/index.ts";
import { copilot } from "./copilot/index.ts";
import { cursor } from "./cursor/index.ts";
import { gemini, geminiSession, qwenSession } from "./gemini/index.ts";
import { harmony } from "./harmony/index.ts";
import { opencode, opencodeSession } from "./opencode/index.ts";

export const agents: readonly Dialect[] = [
  codex,
  codexSession,
  qwenSession,
  copilot,
  claudeSession,
  amp,
  qwen,
  cursor,
  claude,
  geminiSession,
  gemini,
  opencodeSession,
  opencode,
  cline,
  harmony,
  aider,
];
