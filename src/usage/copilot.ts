/**
 * GitHub Copilot CLI sessions (`~/.copilot/session-state/<sessionId>/events.jsonl`, `$COPILOT_HOME/session-state`):
 * one `session.usage_record` event per model request, with the provider's figures (`inputTokens` includes
 * `cacheReadTokens`, as OpenAI reports it) and its response id (`apiCallId`). Rule (docs/usage.md): one record per
 * session id + `apiCallId`.
 */
import type { JsonObject } from "../model/events.ts";
import { copilotUsageKey } from "../model/usage-keys.ts";
import { get, num, obj, str } from "../dialect/json.ts";
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
import type { TokenCounts } from "./types.ts";

const COPILOT_COUNTS = ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens", "reasoningTokens"];
/** The events worth parsing: the start (session id, cwd), the usage, and what says how the session stands. */
const WORTH_PARSING = ['"session.start"', '"session.usage_record"', '"session.error"', '"assistant.turn_end"'].map((type) =>
  Buffer.from(`"type":${type}`),
);

function copilotTokens(usage: JsonObject): TokenCounts {
  const field = (name: string): number => count(num(usage, name));
  const cacheRead = field("cacheReadTokens");
  return {
    input: Math.max(0, field("inputTokens") - cacheRead),
    output: field("outputTokens"),
    cacheRead,
    cacheWrite: field("cacheWriteTokens"),
    cacheWrite1h: 0,
    reasoning: field("reasoningTokens"),
  };
}

function createCopilotScanner(start: ScannerStart): LineScanner {
  const previous = start.previous;
  const facts = previous?.facts === undefined ? freshFacts("copilot") : { ...previous.facts };
  const records = recordMap(start);
  const state = copyState(previous);
  let badLines = previous?.badLines ?? 0;

  const usageRecord = (rec: JsonObject, time: number | null): void => {
    const usage = obj(obj(rec, "data"), "usage");
    if (usage === undefined) return;
    if (malformedUsage(usage, COPILOT_COUNTS, get(rec, "timestamp"))) {
      badLines++;
      return;
    }
    const apiCallId = str(usage, "apiCallId") ?? str(rec, "id") ?? `${records.size}`;
    const key = requestKey(`copilot:${copilotUsageKey(facts.sessionId ?? start.path, apiCallId)}`);
    records.delete(key);
    records.set(key, { key, time, model: str(usage, "model") ?? null, tokens: copilotTokens(usage), costUsd: null, sidechain: false });
  };

  return {
    line(bytes, from, to) {
      const worthParsing = WORTH_PARSING.some((marker) => lineHas(bytes, from, to, marker));
      const rec = readLine(bytes, from, to, worthParsing, facts);
      if (rec === "bad") badLines++;
      if (typeof rec === "string") return;
      const time = epochOf(str(rec, "timestamp"));
      noteTime(facts, time);
      const data = obj(rec, "data");
      switch (str(rec, "type")) {
        case "session.start":
          facts.sessionId ??= str(data, "sessionId") ?? null;
          facts.project ??= str(obj(data, "context"), "cwd") ?? null;
          break;
        case "session.usage_record":
          usageRecord(rec, time);
          break;
        case "session.error":
          facts.status = "error";
          break;
        default:
          // assistant.turn_end: the model answered (a later error still says error).
          if (facts.status !== "error") facts.status = "completed";
      }
    },
    result: () => ({ facts, records: columnsOf(records), state, badLines }),
  };
}

const COPILOT_EVENTS = /[\\/]session-state[\\/][^\\/]+[\\/]events\.jsonl$/;

export const copilotSource: UsageSource = {
  agent: "copilot",
  help: "Copilot CLI: $COPILOT_HOME/session-state, else\n~/.copilot/session-state",
  folders: (env, home) => {
    const configured = env.COPILOT_HOME;
    if (configured !== undefined && configured !== "") return [join(configured, "session-state")];
    return home === "" ? [] : [join(home, ".copilot", "session-state")];
  },
  isLog: (path) => COPILOT_EVENTS.test(path),
  named: (path) => COPILOT_EVENTS.test(path),
  sniff: (head) => /"producer"\s*:\s*"copilot-agent"/.test(head) || /"type"\s*:\s*"session\.usage_record"/.test(head),
  scanner: createCopilotScanner,
};
