/**
 * OpenCode's sessions before its SQLite database: JSON files under `<data>/storage/` (1.x before the database, and
 * what its first migration moves into it). `session/<project id>/<session id>.json` is the session (`id`, `title`,
 * `directory`, `parentID`, `version`, `time`), `message/<session id>/<message id>.json` each message (with its ids),
 * `part/<message id>/<part id>.json` each part (with its ids). A session is its session file (the reference), read as
 * the same bus-event lines as a session of the database (opencode.ts), so one scanner and one dialect read both.
 * Layout as marcus/sidecar's OpenCode reader reads it (docs/dialects/opencode.md "Session store").
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { JsonObject, JsonValue } from "../model/events.ts";
import { isJsonObject } from "../model/lossless-integer.ts";
import { num, obj, str } from "../dialect/json.ts";
import { readFailure } from "./read-failure.ts";
import type { StoreLines } from "./store.ts";

/** A session file of the JSON storage: `storage/session/<project id>/<session id>.json`. */
export const STORAGE_SESSION = /[\\/]storage[\\/]session[\\/][^\\/]+[\\/][^\\/]+\.json$/;

/** The storage folder a session file is in (`storage/session/<project>/<file>` → `storage`). */
function storageOf(sessionFile: string): string {
  return dirname(dirname(dirname(sessionFile)));
}

/** The `.json` files of a folder, in name order (OpenCode's ids sort in time order); none when it is not there. */
function jsonFiles(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith(".json"))
      .sort()
      .map((name) => join(dir, name));
  } catch {
    return [];
  }
}

type Parsed = { readonly value: JsonObject } | { readonly text: string };

function readJson(path: string): Parsed | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  try {
    const value = JSON.parse(text) as JsonValue;
    return isJsonObject(value) ? { value } : { text };
  } catch {
    return { text };
  }
}

/** A file that does not parse is one line of its own (the readers count it malformed). */
const asLine = (text: string): string => text.replace(/\r?\n/g, " ");

/** Every file that makes up the session: its session file, its messages and their parts. */
function sessionFiles(sessionFile: string, sessionId: string): string[] {
  const storage = storageOf(sessionFile);
  const messages = jsonFiles(join(storage, "message", sessionId));
  const parts = messages.flatMap((message) => jsonFiles(join(storage, "part", basename(message, ".json"))));
  return [sessionFile, ...messages, ...parts];
}

/** The session's stamp: its files' sizes added up and the newest mtime, so a part written anywhere in it reads it again. */
export function storageStamp(sessionFile: string): { size: number; mtimeMs: number } | undefined {
  const id = basename(sessionFile, ".json");
  let size = 0;
  let mtimeMs = 0;
  for (const file of sessionFiles(sessionFile, id)) {
    try {
      const stats = statSync(file);
      size += stats.size;
      mtimeMs = Math.max(mtimeMs, stats.mtimeMs);
    } catch {
      // The session gone; or a part removed while we looked: the next run sees the session without it.
      if (file === sessionFile) return undefined;
    }
  }
  return { size, mtimeMs };
}

/** One session of the JSON storage as bus-event lines: the session, then each message (by time) with its parts. */
export function storageLines(sessionFile: string): StoreLines {
  let text: string;
  try {
    text = readFileSync(sessionFile, "utf8");
  } catch (error) {
    return { failed: readFailure(error) };
  }
  let session: JsonValue;
  try {
    session = JSON.parse(text) as JsonValue;
  } catch {
    return { failed: "not a JSON document" };
  }
  const sessionId = isJsonObject(session) ? str(session, "id") : undefined;
  if (!isJsonObject(session) || sessionId === undefined) return { failed: "not an OpenCode session (no id)" };
  const lines = [JSON.stringify({ type: "session.updated", properties: { info: session } })];
  const storage = storageOf(sessionFile);
  const messages = jsonFiles(join(storage, "message", sessionId))
    .map((file) => ({ file, parsed: readJson(file) }))
    .sort((a, b) => createdOf(a.parsed) - createdOf(b.parsed));
  for (const { file, parsed } of messages) {
    if (parsed === undefined) continue;
    if ("text" in parsed) {
      lines.push(asLine(parsed.text));
      continue;
    }
    lines.push(JSON.stringify({ type: "message.updated", properties: { info: parsed.value } }));
    const messageId = str(parsed.value, "id") ?? basename(file, ".json");
    const messageTime = num(obj(parsed.value, "time"), "created");
    for (const partFile of jsonFiles(join(storage, "part", messageId))) {
      const part = readJson(partFile);
      if (part === undefined) continue;
      if ("text" in part) lines.push(asLine(part.text));
      else {
        const time = num(obj(part.value, "time"), "start") ?? messageTime;
        lines.push(
          JSON.stringify({
            type: "message.part.updated",
            properties: { sessionID: sessionId, part: part.value, ...(time === undefined ? {} : { time }) },
          }),
        );
      }
    }
  }
  return { lines };
}

function createdOf(parsed: Parsed | undefined): number {
  return parsed !== undefined && "value" in parsed ? (num(obj(parsed.value, "time"), "created") ?? 0) : 0;
}
