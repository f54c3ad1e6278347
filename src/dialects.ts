/**
 * The dialect registry and auto-detection. Detection asks each dialect, in this order, whether a
 * record looks like its own; specific dialects come before the generic ones they resemble
 * (codex-thread before codex, amp and qwen and cursor before claude, claude-session before claude).
 */
import { AgentStreamError } from "./errors.ts";
import type { InputRecord } from "./framing/ndjson/create-ndjson-parser.ts";
import type { Dialect } from "./dialect/dialect.ts";
import { agents } from "./agents/index.ts";
import { formatDialects } from "./formats/dialects.ts";
import { json } from "./agents/json/index.ts";

export type { Dialect, DialectDecoder, DecodeContext, DecodeProblem, SessionOpening } from "./dialect/dialect.ts";

/**
 * Every dialect, in detection order: the formats' decoders (our own and neighbouring output formats,
 * codex-thread before codex: src/formats/dialects.ts), then the agents (src/agents/index.ts), then `json`
 * (framing only, never detected).
 */
export const dialects: readonly Dialect[] = [...formatDialects, ...agents, json];

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
