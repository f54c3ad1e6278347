/**
 * Gemini CLI chats (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, older `session-*.json`): one `gemini`
 * message per model response with its `tokens`. The JSONL file rewrites a message when its tool results arrive
 * (the same `id` again), and a resumed chat repeats earlier messages. Rule (docs/usage.md): one record per
 * session id + message id, the last write wins.
 */
import type { JsonObject, JsonValue } from "../model/events.ts";
import { geminiUsageKey } from "../model/usage-keys.ts";
import { arr, get, num, obj, str } from "../dialect/json.ts";
import { isJsonObject } from "../model/lossless-integer.ts";
import {
  columnsOf,
  copyState,
  count,
  epochOf,
  freshFacts,
  type LineScanner,
  malformedUsage,
  noteTime,
  parseLine,
  recordMap,
  requestKey,
  type ScannerStart,
  type UsageSource,
} from "./scanner.ts";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TokenCounts } from "./types.ts";

/** Gemini API usage as the CLI writes it: `input` includes `cached`; `thoughts` and `tool` are counted beside them. */
interface GeminiWireTokens {
  input?: number;
  output?: number;
  cached?: number;
  thoughts?: number;
  tool?: number;
  total?: number;
}

const GEMINI_COUNTS: readonly (keyof GeminiWireTokens)[] = ["input", "output", "cached", "thoughts", "tool", "total"];

function geminiTokens(tokens: JsonObject): TokenCounts {
  const field = (name: keyof GeminiWireTokens): number => count(num(tokens, name));
  const cacheRead = field("cached");
  const thoughts = field("thoughts");
  return {
    input: Math.max(0, field("input") - cacheRead) + field("tool"),
    output: field("output") + thoughts,
    cacheRead,
    cacheWrite: 0,
    cacheWrite1h: 0,
    reasoning: thoughts,
  };
}

/**
 * The project of a chat file `<tmp>/<project>/chats/<file>`: the working directory its `.project_root` names
 * (written beside `chats` by recent versions, 0.61 at least), else the project folder's name (older versions
 * name it by a hash of the path).
 */
function projectOf(path: string): string | null {
  const parts = path.split(/[\\/]/);
  const chats = parts.lastIndexOf("chats");
  if (chats <= 0) return null;
  try {
    const root = readFileSync(join(dirname(dirname(path)), ".project_root"), "utf8").trim();
    if (root !== "") return root;
  } catch {
    // No such file: an older version's chat, or a chat copied elsewhere.
  }
  return parts[chats - 1] ?? null;
}

interface GeminiScanner extends LineScanner {
  /** One record of the chat (a line of the JSONL file, or the header and messages of a `.json` file). */
  record(rec: JsonObject): void;
}

function createGeminiScanner(start: ScannerStart): GeminiScanner {
  const previous = start.previous;
  const facts = previous?.facts === undefined ? { ...freshFacts("gemini"), project: projectOf(start.path) } : { ...previous.facts };
  const records = recordMap(start);
  const state = copyState(previous);
  let badLines = previous?.badLines ?? 0;
  let sidechain = false;

  const message = (rec: JsonObject, time: number | null): void => {
    const type = str(rec, "type");
    if (type === "error") facts.status = "error";
    if (type === "gemini") facts.status = "completed";
    const tokens = obj(rec, "tokens");
    const id = str(rec, "id");
    if (type !== "gemini" || tokens === undefined || id === undefined) return;
    if (malformedUsage(tokens, GEMINI_COUNTS, get(rec, "timestamp"))) {
      badLines++;
      return;
    }
    const key = requestKey(`gemini:${geminiUsageKey(facts.sessionId ?? start.path, id)}`);
    records.delete(key);
    records.set(key, { key, time, model: str(rec, "model") ?? null, tokens: geminiTokens(tokens), costUsd: null, sidechain });
  };

  const record = (rec: JsonObject): void => {
    const time = epochOf(str(rec, "timestamp"));
    noteTime(facts, time);
    const sessionId = str(rec, "sessionId");
    if (sessionId !== undefined) {
      // The header (and a `.json` chat's top level).
      facts.sessionId ??= sessionId;
      sidechain = str(rec, "kind") === "subagent";
      noteTime(facts, epochOf(str(rec, "startTime")));
      for (const m of arr(rec, "messages") ?? []) if (isJsonObject(m)) message(m, epochOf(str(m, "timestamp")));
      return;
    }
    message(rec, time);
  };

  return {
    record,
    line(bytes, from, to) {
      const rec = parseLine(bytes, from, to);
      if (rec === undefined) badLines++;
      else record(rec);
    },
    result: () => ({ facts, records: columnsOf(records), state, badLines }),
  };
}

/** A whole `.json` chat document. */
function scanGeminiDocument(scanner: GeminiScanner, text: string): boolean {
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch {
    return false;
  }
  if (!isJsonObject(value)) return false;
  scanner.record(value);
  return true;
}

const GEMINI_CHAT = /[\\/]chats[\\/]session-[^\\/]*\.jsonl?$/;

export const geminiSource: UsageSource = {
  agent: "gemini",
  help: "Gemini CLI: ~/.gemini/tmp/*/chats",
  folders: (_env, home) => (home === "" ? [] : [join(home, ".gemini", "tmp")]),
  isLog: (path) => GEMINI_CHAT.test(path),
  named: (path) => GEMINI_CHAT.test(path),
  sniff: (head) => /"projectHash"\s*:/.test(head),
  scanner: createGeminiScanner,
  scanDocument(path) {
    if (!path.endsWith(".json")) return undefined;
    const scanner = createGeminiScanner({ agent: "gemini", path });
    if (!scanGeminiDocument(scanner, readFileSync(path, "utf8"))) return { ...scanner.result(), badLines: 1 };
    return scanner.result();
  },
};
