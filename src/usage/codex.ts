/**
 * Codex rollout files (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`). Codex reports usage as `token_count`
 * events whose `info.total_token_usage` is the thread's running total and `last_token_usage` the last
 * request's; 0.152+ also writes `token_usage_record` with the same total as `thread_token_usage`. The same
 * total is often written twice (two records, or a repeated token_count), and a resumed or copied rollout
 * repeats earlier totals. Rule (docs/usage.md): a record is one snapshot of the running total, keyed by thread
 * and total; across files the distinct snapshots of a thread, in order, give each request's tokens as the
 * difference from the one before (ledger.ts). Summing `last_token_usage` would count every repeat.
 */
import type { JsonObject, JsonValue } from "../model/events.ts";
import { codexRunningTotal, codexUsageKey } from "../model/usage-keys.ts";
import { get, num, obj, str } from "../dialect/json.ts";
import {
  columnsOf,
  copyState,
  count,
  epochOf,
  freshFacts,
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
import type { SessionStatus, TokenCounts, UsageRecord } from "./types.ts";

/** The rollout line kinds that matter here; every other line (response items, tool output) is not parsed. */
const WANTED = [
  "session_meta",
  "turn_context",
  "token_count",
  "token_usage_record",
  "task_started",
  "task_complete",
  "turn_aborted",
  "thread_settings_applied",
  '"error"',
].map((marker) => Buffer.from(marker));
/** How the session stands after an event of each kind. */
const STATUS_OF: ReadonlyMap<string, SessionStatus> = new Map([
  ["task_started", "open"],
  ["task_complete", "completed"],
  ["turn_aborted", "error"],
  ["error", "error"],
]);

/** Codex writes `type` (and the payload's `type`) first: the kind is in the first bytes of the line. */
const HEAD_BYTES = 200;

/** OpenAI usage fields: `input_tokens` includes cached input, `output_tokens` includes reasoning. */
interface CodexWireUsage {
  input_tokens?: number;
  cached_input_tokens?: number;
  cache_write_input_tokens?: number;
  output_tokens?: number;
  reasoning_output_tokens?: number;
  total_tokens?: number;
}

const CODEX_COUNTS: readonly (keyof CodexWireUsage)[] = [
  "input_tokens",
  "cached_input_tokens",
  "cache_write_input_tokens",
  "output_tokens",
  "reasoning_output_tokens",
  "total_tokens",
];

function codexTokens(usage: JsonObject): TokenCounts {
  const field = (name: keyof CodexWireUsage): number => count(num(usage, name));
  const cacheRead = field("cached_input_tokens");
  const cacheWrite = field("cache_write_input_tokens");
  return {
    input: Math.max(0, field("input_tokens") - cacheRead - cacheWrite),
    output: field("output_tokens"),
    cacheRead,
    cacheWrite,
    cacheWrite1h: 0,
    reasoning: field("reasoning_output_tokens"),
  };
}

function wanted(bytes: Buffer, from: number, to: number): boolean {
  const head = bytes.subarray(from, Math.min(to, from + HEAD_BYTES));
  return WANTED.some((marker) => head.indexOf(marker) !== -1);
}

function createCodexScanner(start: ScannerStart): LineScanner {
  const previous = start.previous;
  const facts = previous?.facts === undefined ? freshFacts("codex") : { ...previous.facts };
  const records = recordMap(start);
  const state = copyState(previous);
  let badLines = previous?.badLines ?? 0;

  const setModel = (model: string | undefined): void => {
    if (model !== undefined) state.model = model;
  };
  const thread = (): string => `${state.thread ?? facts.sessionId ?? start.path}#${state.epoch ?? 0}`;

  /** The time the line being read has, as written: a usage record whose time is not a date is malformed. */
  let stamp: JsonValue | undefined;
  /** Counts a malformed usage record (scanner.ts `malformedUsage`) instead of taking it. */
  const malformed = (usage: JsonObject): boolean => {
    if (!malformedUsage(usage, CODEX_COUNTS, stamp)) return false;
    badLines++;
    return true;
  };

  /** A running total: one snapshot per distinct figure; a smaller total than the last means the count restarted. */
  const snapshot = (total: JsonObject, time: number | null): void => {
    if (malformed(total)) return;
    const tokens = codexTokens(total);
    const figure = codexRunningTotal(count(num(total, "total_tokens")), tokens.input + tokens.cacheRead + tokens.cacheWrite, tokens.output);
    if (state.lastTotal !== undefined && figure < state.lastTotal) state.epoch = (state.epoch ?? 0) + 1;
    state.lastTotal = figure;
    const key = requestKey(`codex:${codexUsageKey(thread(), figure)}`);
    if (records.has(key)) return;
    const record: UsageRecord = {
      key,
      time,
      model: state.model ?? null,
      tokens,
      costUsd: null,
      sidechain: false,
      cumulative: true,
      thread: thread(),
    };
    records.set(key, record);
  };

  /** A request's own tokens with no running total beside them (the older flat token_count). */
  const delta = (usage: JsonObject, time: number | null): void => {
    if (malformed(usage)) return;
    const tokens = codexTokens(usage);
    const key = requestKey(`codex:${thread()}:${time ?? records.size}:${totalOf(tokens)}`);
    records.set(key, { key, time, model: state.model ?? null, tokens, costUsd: null, sidechain: false });
  };

  const eventMessage = (payload: JsonObject, time: number | null): void => {
    const type = str(payload, "type") ?? "";
    facts.status = STATUS_OF.get(type) ?? facts.status;
    switch (type) {
      case "token_count": {
        const info = obj(payload, "info");
        const total = obj(info, "total_token_usage");
        if (total !== undefined) snapshot(total, time);
        else if (info === undefined && num(payload, "input_tokens") !== undefined) delta(payload, time);
        break;
      }
      case "thread_settings_applied":
        setModel(str(obj(payload, "thread_settings"), "model"));
        break;
      default:
        break;
    }
  };

  const line = (rec: JsonObject, time: number | null): void => {
    const payload = obj(rec, "payload");
    switch (str(rec, "type")) {
      case "session_meta":
        facts.sessionId ??= str(payload, "id") ?? str(payload, "session_id") ?? null;
        facts.project ??= str(payload, "cwd") ?? null;
        if (state.thread === undefined && facts.sessionId !== null) state.thread = facts.sessionId;
        noteTime(facts, epochOf(str(payload, "timestamp")));
        break;
      case "turn_context":
        setModel(str(payload, "model"));
        facts.project ??= str(payload, "cwd") ?? null;
        break;
      case "token_usage_record": {
        const total = obj(payload, "thread_token_usage");
        if (total !== undefined) snapshot(total, time);
        break;
      }
      case "event_msg":
        if (payload !== undefined) eventMessage(payload, time);
        break;
      default:
        // Rollouts before the typed envelope opened with `{id, timestamp, instructions}`.
        if (get(rec, "instructions") !== undefined) facts.sessionId ??= str(rec, "id") ?? null;
        break;
    }
  };

  return {
    line(bytes, from, to) {
      const rec = readLine(bytes, from, to, wanted(bytes, from, to), facts);
      if (rec === "bad") badLines++;
      if (typeof rec === "string") return;
      stamp = get(rec, "timestamp");
      const time = epochOf(str(rec, "timestamp"));
      noteTime(facts, time);
      line(rec, time);
    },
    result: () => ({ facts, records: columnsOf(records), state, badLines }),
  };
}

function totalOf(t: TokenCounts): number {
  return t.input + t.output + t.cacheRead + t.cacheWrite;
}

export const codexSource: UsageSource = {
  agent: "codex",
  help: "Codex: $CODEX_HOME/sessions, else ~/.codex/sessions (rollout-*.jsonl)",
  folders(env, home) {
    const codexHome = env.CODEX_HOME ?? (home === "" ? undefined : join(home, ".codex"));
    return codexHome === undefined ? [] : [join(codexHome, "sessions")];
  },
  isLog: (path) => /[\\/]rollout-[^\\/]*\.jsonl$/.test(path),
  named: (path) => /^rollout-.*\.jsonl$/.test(path.slice(Math.max(path.lastIndexOf("/"), path.lastIndexOf("\\")) + 1)),
  sniff: (head) => /^\{"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"(?:session_meta|event_msg|response_item|turn_context)"/.test(head),
  scanner: createCodexScanner,
};
