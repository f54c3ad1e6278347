/**
 * The dialect registry and auto-detection. Detection asks each dialect, in this order, whether a
 * record looks like its own; specific dialects come before the generic ones they resemble
 * (codex-thread before codex, amp and qwen and cursor before claude, claude-session before claude).
 */
import { AgentStreamError } from "../errors.ts";
import type { InputRecord } from "../framing/ndjson/create-ndjson-parser.ts";
import type { Dialect } from "../dialect/dialect.ts";
import { aaep } from "./aaep.ts";
import { agentstream } from "./agentstream.ts";
import { aider } from "./aider.ts";
import { amp } from "./amp.ts";
import { claude } from "./claude-code.ts";
import { claudeSession } from "./claude-session.ts";
import { cline } from "./cline.ts";
import { codex } from "./codex.ts";
import { codexSession } from "./codex-session.ts";
import { codexThread } from "./codex-thread.ts";
import { cursor } from "./cursor-agent.ts";
import { gemini } from "./gemini-cli.ts";
import { geminiSession } from "./gemini-session.ts";
import { harmony } from "./harmony.ts";
import { json } from "./json.ts";
import { oneshot } from "./oneshot.ts";
import { opencode } from "./opencode.ts";
import { qwen } from "./qwen-code.ts";
import { witness } from "./witness.ts";

export type { Dialect, DialectDecoder, DecodeContext, DecodeProblem, SessionOpening } from "../dialect/dialect.ts";

/** Every dialect, in detection order. `json` (framing only) is last and never detected. */
export const dialects: readonly Dialect[] = [
  agentstream,
  witness,
  oneshot,
  aaep,
  codexThread,
  codex,
  codexSession,
  claudeSession,
  amp,
  qwen,
  cursor,
  claude,
  geminiSession,
  gemini,
  opencode,
  cline,
  harmony,
  aider,
  json,
];

const byName = new Map(dialects.map((d) => [d.name, d]));

/** The dialect called `name`; throws a usage error listing the names when there is none. */
export function getDialect(name: string): Dialect {
  const dialect = byName.get(name);
  if (dialect === undefined) {
    throw new AgentStreamError("unknown-dialect", `unknown dialect "${name}"; known: auto, ${[...byName.keys()].join(", ")}`);
  }
  return dialect;
}

/** The first dialect that claims `record`, if any. */
export function detectDialect(record: InputRecord): Dialect | undefined {
  for (const dialect of dialects) {
    if (dialect.detect(record)) return dialect;
  }
  return undefined;
}
