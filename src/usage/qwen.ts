/**
 * Qwen Code chats (`~/.qwen/projects/<cwd as a slug>/chats/<sessionId>.jsonl`): one `assistant` line per model
 * response with its Gemini-shaped `usageMetadata`, converted by Qwen from the OpenAI-compatible usage
 * (`promptTokenCount` = prompt tokens, cached included; `candidatesTokenCount` = completion tokens, thoughts
 * included). Rule (docs/usage.md): one record per session id + line uuid.
 */
import type { JsonObject } from "../model/events.ts";
import { qwenUsageKey } from "../model/usage-keys.ts";
import { at, get, num, obj, str } from "../dialect/json.ts";
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

const QWEN_COUNTS = ["promptTokenCount", "candidatesTokenCount", "cachedContentTokenCount", "thoughtsTokenCount", "totalTokenCount"];
/** Lines worth parsing: usage, and the API errors recorded as telemetry. */
const USAGE_KEY = Buffer.from('"usageMetadata"');
const API_ERROR = Buffer.from('"qwen-code.api_error"');

function qwenTokens(usage: JsonObject): TokenCounts {
  const field = (name: string): number => count(num(usage, name));
  const cacheRead = field("cachedContentTokenCount");
  return {
    input: Math.max(0, field("promptTokenCount") - cacheRead),
    output: field("candidatesTokenCount"),
    cacheRead,
    cacheWrite: 0,
    cacheWrite1h: 0,
    reasoning: field("thoughtsTokenCount"),
  };
}

function createQwenScanner(start: ScannerStart): LineScanner {
  const previous = start.previous;
  const facts = previous?.facts === undefined ? freshFacts("qwen") : { ...previous.facts };
  const records = recordMap(start);
  const state = copyState(previous);
  let badLines = previous?.badLines ?? 0;

  const assistant = (rec: JsonObject, time: number | null): void => {
    const usage = obj(rec, "usageMetadata");
    const uuid = str(rec, "uuid");
    facts.status = "completed";
    if (usage === undefined || uuid === undefined) return;
    if (malformedUsage(usage, QWEN_COUNTS, get(rec, "timestamp"))) {
      badLines++;
      return;
    }
    const key = requestKey(`qwen:${qwenUsageKey(facts.sessionId ?? start.path, uuid)}`);
    records.delete(key);
    records.set(key, { key, time, model: str(rec, "model") ?? null, tokens: qwenTokens(usage), costUsd: null, sidechain: false });
  };

  return {
    line(bytes, from, to) {
      const worthParsing = facts.sessionId === null || lineHas(bytes, from, to, USAGE_KEY) || lineHas(bytes, from, to, API_ERROR);
      const rec = readLine(bytes, from, to, worthParsing, facts);
      if (rec === "bad") badLines++;
      if (typeof rec === "string") return;
      const time = epochOf(str(rec, "timestamp"));
      noteTime(facts, time);
      facts.sessionId ??= str(rec, "sessionId") ?? null;
      facts.project ??= str(rec, "cwd") ?? null;
      const type = str(rec, "type");
      if (type === "assistant") assistant(rec, time);
      else if (type === "system" && str(at(rec, "systemPayload", "uiEvent"), "event.name") === "qwen-code.api_error")
        facts.status = "error";
    },
    result: () => ({ facts, records: columnsOf(records), state, badLines }),
  };
}

const QWEN_CHAT = /[\\/]\.qwen[\\/]projects[\\/][^\\/]+[\\/]chats[\\/][^\\/]+\.jsonl$/;

export const qwenSource: UsageSource = {
  agent: "qwen",
  help: "Qwen Code: ~/.qwen/projects/*/chats",
  folders: (_env, home) => (home === "" ? [] : [join(home, ".qwen", "projects")]),
  isLog: (path) => /[\\/]chats[\\/][^\\/]+\.jsonl$/.test(path),
  named: (path) => QWEN_CHAT.test(path),
  // A chat line: a Gemini `Content` (`"parts"`) under Claude-like line fields (`"parentUuid"`), or Qwen's telemetry.
  sniff: (head) => /"parentUuid"/.test(head) && /"(parts|systemPayload)"\s*:/.test(head),
  scanner: createQwenScanner,
};
