/**
 * Amp's threads: one JSON document per thread, `~/.local/share/amp/threads/T-<uuid>.json` (`$AMP_DATA_HOME/amp`,
 * else `$XDG_DATA_HOME/amp`, else `~/.local/share/amp`). A thread: `id`, `created` (epoch ms), `title`,
 * `env.initial` (`cwd`, `trees[].uri`), `messages[]`: `role` (user, assistant, info), `messageId`, Anthropic-style
 * `content` blocks (text, thinking, tool_use, and Amp's own `tool_result` with `toolUseID` and `run`: `status`,
 * `result`), `meta.sentAt`, `state` (`type`, `stopReason`) and, on assistant messages, `usage` (`model`,
 * `inputTokens`, `outputTokens`, `cacheCreationInputTokens`, `cacheReadInputTokens`, `timestamp`). Read as the lines
 * `amp -x --stream-json` prints (the `amp` dialect); the thread file is the session's reference.
 *
 * Usage rule (docs/usage.md): one request per assistant message with `usage`, keyed by thread id + message id.
 * Sources the layout was read from: docs/dialects/amp.md ("Thread files").
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { JsonObject, JsonValue } from "../model/events.ts";
import { isJsonObject } from "../model/lossless-integer.ts";
import { ampUsageKey } from "../model/usage-keys.ts";
import { arr, num, obj, str } from "../dialect/json.ts";
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
  type UsageSource,
} from "./scanner.ts";
import { readFailure } from "./read-failure.ts";
import type { SessionStore, StoreLines } from "./store.ts";

const THREAD = /[\\/]T-[^\\/]+\.json$/;

/** The thread's working folder: `env.initial.cwd`, else its first tree's file URI. */
function cwdOf(thread: JsonObject): string | undefined {
  const initial = obj(obj(thread, "env"), "initial");
  const cwd = str(initial, "cwd");
  if (cwd !== undefined) return cwd;
  const tree = arr(initial, "trees")?.find(isJsonObject);
  const uri = tree === undefined ? undefined : str(tree, "uri");
  return uri?.startsWith("file://") === true ? decodeURIComponent(uri.slice("file://".length)) : uri;
}

/** A `tool_result` block as Claude's: its output from `run.result` (`output`, or its text), an error by its status or exit code. */
function toolResult(block: JsonObject): JsonObject {
  const run = obj(block, "run");
  const result = run?.result;
  const output = isJsonObject(result)
    ? (str(result, "output") ?? JSON.stringify(result))
    : typeof result === "string"
      ? result
      : (str(run, "progress") ?? "");
  const status = str(run, "status");
  const failed =
    status === "error" ||
    status === "cancelled" ||
    status === "rejected-by-user" ||
    (isJsonObject(result) && (num(result, "exitCode") ?? 0) !== 0);
  return { type: "tool_result", tool_use_id: str(block, "toolUseID") ?? "", content: output, is_error: failed };
}

/** The lines of one thread: an init, each message as the stream prints it, and a result when its last answer ended its turn. */
function threadLines(thread: JsonObject): string[] {
  const id = str(thread, "id") ?? "";
  const lines: JsonObject[] = [
    {
      type: "system",
      subtype: "init",
      cwd: cwdOf(thread) ?? "",
      session_id: id,
      created: num(thread, "created") ?? null,
      title: str(thread, "title") ?? null,
    },
  ];
  let last: JsonObject | undefined;
  for (const message of (arr(thread, "messages") ?? []).filter(isJsonObject)) {
    const role = str(message, "role");
    const blocks = (arr(message, "content") ?? []).filter(isJsonObject);
    if (role === "user") {
      const content = blocks.map((block) => (block.type === "tool_result" ? toolResult(block) : block));
      lines.push({
        type: "user",
        message: { role: "user", content },
        parent_tool_use_id: null,
        session_id: id,
        amp_message_id: message.messageId ?? null,
        sent_at: num(obj(message, "meta"), "sentAt") ?? null,
      });
    } else if (role === "assistant") {
      const usage = obj(message, "usage");
      const wire =
        usage === undefined
          ? undefined
          : {
              input_tokens: num(usage, "inputTokens") ?? 0,
              output_tokens: num(usage, "outputTokens") ?? 0,
              cache_creation_input_tokens: num(usage, "cacheCreationInputTokens") ?? 0,
              cache_read_input_tokens: num(usage, "cacheReadInputTokens") ?? 0,
            };
      const state = obj(message, "state");
      lines.push({
        type: "assistant",
        message: {
          type: "message",
          role: "assistant",
          ...(usage === undefined ? {} : { model: str(usage, "model") ?? null }),
          content: blocks,
          stop_reason: str(state, "stopReason") ?? null,
          ...(wire === undefined ? {} : { usage: wire }),
        },
        parent_tool_use_id: null,
        session_id: id,
        amp_message_id: message.messageId ?? null,
        usage_timestamp: usage === undefined ? null : (str(usage, "timestamp") ?? null),
      });
      last = message;
    }
  }
  const state = obj(last, "state");
  if (str(state, "type") === "complete" && str(state, "stopReason") === "end_turn") {
    const text = (arr(last, "content") ?? [])
      .filter(isJsonObject)
      .map((b) => (b.type === "text" ? (str(b, "text") ?? "") : ""))
      .join("");
    lines.push({ type: "result", subtype: "success", is_error: false, result: text, session_id: id });
  }
  return lines.map((line) => JSON.stringify(line));
}

function readThread(path: string): StoreLines {
  let value: JsonValue;
  try {
    value = JSON.parse(readFileSync(path, "utf8")) as JsonValue;
  } catch (error) {
    return { failed: error instanceof SyntaxError ? "not a JSON document" : readFailure(error) };
  }
  if (!isJsonObject(value) || typeof value.id !== "string" || !Array.isArray(value.messages))
    return { failed: "not an Amp thread (no id and messages)" };
  return { lines: threadLines(value) };
}

function fileStamp(path: string): { size: number; mtimeMs: number } | undefined {
  try {
    const stats = statSync(path);
    return { size: stats.size, mtimeMs: stats.mtimeMs };
  } catch {
    return undefined;
  }
}

const ampStore: SessionStore = {
  depth: 0,
  isStore: (path) => THREAD.test(path),
  list(path) {
    const stamp = fileStamp(path);
    return stamp === undefined ? { failed: "no such file or folder" } : { sessions: [{ ref: path, ...stamp }] };
  },
  read: readThread,
  stamp: fileStamp,
};

/** Amp's usage (Anthropic's meaning: input without the cache). */
const AMP_COUNTS = ["input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"] as const;

function createAmpScanner(start: Parameters<UsageSource["scanner"]>[0]): LineScanner {
  const facts = freshFacts("amp");
  const records = recordMap({ ...start, previous: undefined });
  let badLines = 0;
  return {
    line(bytes, from, to) {
      const rec = parseLine(bytes, from, to);
      if (rec === undefined) {
        badLines++;
        return;
      }
      facts.sessionId ??= str(rec, "session_id") ?? null;
      if (rec.type === "system") {
        facts.project ??= str(rec, "cwd") || null;
        facts.title ??= str(rec, "title") ?? null;
        noteTime(facts, num(rec, "created") ?? null);
      }
      noteTime(facts, num(rec, "sent_at") ?? null);
      const time = epochOf(str(rec, "usage_timestamp"));
      noteTime(facts, time);
      if (rec.type === "result") facts.status = "completed";
      const message = obj(rec, "message");
      const usage = obj(message, "usage");
      if (rec.type === "user") facts.status = "open";
      if (rec.type !== "assistant" || usage === undefined) return;
      if (malformedUsage(usage, AMP_COUNTS, undefined)) {
        badLines++;
        return;
      }
      const key = requestKey(`amp:${ampUsageKey(facts.sessionId ?? start.path, String(rec.amp_message_id ?? records.size))}`);
      records.set(key, {
        key,
        time,
        model: str(message, "model") ?? null,
        tokens: {
          input: count(num(usage, "input_tokens")),
          output: count(num(usage, "output_tokens")),
          cacheRead: count(num(usage, "cache_read_input_tokens")),
          cacheWrite: count(num(usage, "cache_creation_input_tokens")),
          cacheWrite1h: 0,
          reasoning: 0,
        },
        costUsd: null,
        sidechain: false,
      });
    },
    result: () => ({ facts, records: columnsOf(records), state: copyState(undefined), badLines }),
  };
}

/** Amp's data folder: `$AMP_DATA_HOME/amp`, else `$XDG_DATA_HOME/amp`, else `~/.local/share/amp`. */
function threadsDir(env: Readonly<Record<string, string | undefined>>, home: string): string | undefined {
  if (env.AMP_DATA_HOME) return join(env.AMP_DATA_HOME, "amp", "threads");
  if (env.XDG_DATA_HOME) return join(env.XDG_DATA_HOME, "amp", "threads");
  return home === "" ? undefined : join(home, ".local", "share", "amp", "threads");
}

export const ampSource: UsageSource = {
  agent: "amp",
  help: "Amp: ~/.local/share/amp/threads/T-*.json ($AMP_DATA_HOME, $XDG_DATA_HOME)",
  folders(env, home) {
    const dir = threadsDir(env, home);
    return dir === undefined ? [] : [dir];
  },
  isLog: (path) => THREAD.test(path),
  named: (path) => THREAD.test(path),
  sniff: () => false,
  scanner: createAmpScanner,
  store: ampStore,
};
