/**
 * Claude Code transcripts (`~/.claude/projects/<project>/<session>.jsonl`, `<session>/subagents/agent-*.jsonl`):
 * one usage record per API response. Claude Code writes one line per content block (and, while streaming,
 * more), all with the response's `message.id` and `requestId`; the last line carries the final output count.
 * Rule (docs/usage.md): key = message id + request id (message id alone when requestId is missing, as on
 * third-party gateways; the line's uuid when both are), the last line of a key wins.
 */
import type { JsonObject } from "../model/events.ts";
import { claudeUsageKey } from "../model/usage-keys.ts";
import { bool, get, num, obj, str } from "../dialect/json.ts";
import {
  columnsOf,
  copyState,
  count,
  epochOf,
  freshFacts,
  lineHas,
  type LineScanner,
  malformedUsage,
  noteTime,
  readLine,
  recordMap,
  requestKey,
  type ScannerStart,
  type UsageSource,
} from "./scanner.ts";
import { join } from "node:path";
import type { TokenCounts, UsageRecord } from "./types.ts";

/** Bookkeeping replies Claude Code writes itself (no API call, no tokens billed). */
const SYNTHETIC_MODEL = "<synthetic>";

/** Not `"usage":{`: some transcripts were re-serialised with `", "` and `": "` separators. */
const USAGE_KEY = Buffer.from('"usage"');
/** Lines this short are parsed for the session's facts until they are known (ids, cwd); longer ones only when they carry usage. */
const FACT_LINE_LIMIT = 64 * 1024;

/** The wire fields read from `message.usage` (Anthropic Messages API). */
interface ClaudeWireUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
}

const CLAUDE_COUNTS: readonly (keyof ClaudeWireUsage)[] = [
  "input_tokens",
  "output_tokens",
  "cache_read_input_tokens",
  "cache_creation_input_tokens",
];
const CLAUDE_1H = ["ephemeral_1h_input_tokens"];

/** The request's tokens in the common meaning (Claude's `input_tokens` already excludes cached input). */
function claudeTokens(usage: JsonObject): TokenCounts {
  const field = (name: keyof ClaudeWireUsage): number => count(num(usage, name));
  return {
    input: field("input_tokens"),
    output: field("output_tokens"),
    cacheRead: field("cache_read_input_tokens"),
    cacheWrite: field("cache_creation_input_tokens"),
    cacheWrite1h: count(num(obj(usage, "cache_creation"), "ephemeral_1h_input_tokens")),
    reasoning: 0,
  };
}

function createClaudeScanner(start: ScannerStart): LineScanner {
  const previous = start.previous;
  const subagent = /subagents[\\/]agent-[^\\/]*\.jsonl$/.test(start.path);
  const facts = previous?.facts === undefined ? freshFacts("claude", subagent) : { ...previous.facts };
  const records = recordMap(start);
  const state = copyState(previous);
  let badLines = previous?.badLines ?? 0;
  let factsKnown = facts.sessionId !== null && facts.project !== null;

  const noteFacts = (rec: JsonObject): void => {
    facts.sessionId ??= str(rec, "sessionId") ?? str(rec, "session_id") ?? null;
    facts.project ??= str(rec, "cwd") ?? null;
    factsKnown = facts.sessionId !== null && facts.project !== null;
  };

  const assistant = (rec: JsonObject, time: number | null): void => {
    const message = obj(rec, "message");
    const usage = obj(message, "usage");
    if (usage === undefined) return;
    if (malformedUsage(usage, CLAUDE_COUNTS, get(rec, "timestamp")) || malformedUsage(obj(usage, "cache_creation"), CLAUDE_1H, undefined)) {
      badLines++;
      return;
    }
    const model = str(message, "model") ?? null;
    // The last response says how the session stands: an API error, a finished answer, or a tool call never answered.
    const stop = str(message, "stop_reason");
    if (bool(rec, "isApiErrorMessage") === true) facts.status = "error";
    else if (stop === "end_turn" || stop === "stop_sequence") facts.status = "completed";
    else if (stop === "tool_use") facts.status = "open";
    else facts.status = "unknown";
    if (model === SYNTHETIC_MODEL) return;
    const messageId = str(message, "id");
    const requestId = str(rec, "requestId");
    const key = requestKey(`claude:${claudeUsageKey(messageId, requestId, str(rec, "uuid")) ?? `uuid:${start.path}:${records.size}`}`);
    const record: UsageRecord = {
      key,
      time,
      model,
      tokens: claudeTokens(usage),
      costUsd: num(rec, "costUSD") ?? null,
      sidechain: bool(rec, "isSidechain") === true || subagent,
    };
    // Delete first so the map's order follows the last record (the in-file rule: last one wins).
    records.delete(key);
    records.set(key, record);
  };

  return {
    line(bytes, from, to) {
      const worthParsing = lineHas(bytes, from, to, USAGE_KEY) || (!factsKnown && to - from <= FACT_LINE_LIMIT);
      const rec = readLine(bytes, from, to, worthParsing, facts);
      if (rec === "bad") badLines++;
      if (typeof rec === "string") return;
      const time = epochOf(str(rec, "timestamp"));
      noteTime(facts, time);
      if (!factsKnown) noteFacts(rec);
      if (str(rec, "type") === "assistant") assistant(rec, time);
    },
    result: () => ({ facts, records: columnsOf(records), state, badLines }),
  };
}

export const claudeSource: UsageSource = {
  agent: "claude",
  help: "Claude Code: $CLAUDE_CONFIG_DIR/projects (a comma-separated\nlist of folders is accepted), ~/.claude/projects and ~/.config/claude/projects, subagent files included",
  folders(env, home) {
    const configured = (env.CLAUDE_CONFIG_DIR ?? "")
      .split(",")
      .map((dir) => dir.trim())
      .filter((dir) => dir !== "");
    const folders = configured.map((dir) => join(dir, "projects"));
    if (home !== "") folders.push(join(home, ".claude", "projects"), join(home, ".config", "claude", "projects"));
    return folders;
  },
  isLog: (path) => path.endsWith(".jsonl"),
  named: (path) => /[\\/]projects[\\/].*\.jsonl$/.test(path),
  sniff: (head) => /"(?:sessionId|parentUuid|leafUuid)"\s*:/.test(head),
  // Any `.jsonl` under a `projects` folder, any line with a session id: tried after the other agents' rules.
  loose: true,
  scanner: createClaudeScanner,
};
