/**
 * Cursor CLI's sessions (`cursor-agent`): one SQLite database per session, `~/.cursor/chats/<md5 of the project
 * folder>/<agent id>/store.db`. Two tables: `meta` (key `0`: the session's
 * metadata as hex-encoded JSON: `agentId`, `name`, `createdAt`, `lastUsedModel`, `latestRootBlobId`) and `blobs`
 * (content-addressed by SHA-256: the messages as JSON, and the root blob, protobuf, whose field 1 lists the message
 * blob ids in order and field 9 holds the workspace URI). Read as the lines `cursor-agent -p --output-format
 * stream-json` prints (the `cursor` dialect): its init, the user and assistant messages, each tool call started and
 * completed. The session's reference is its database's path.
 *
 * Cursor keeps no per-request usage in the store: its sessions are listed with no requests (docs/usage.md).
 * Sources the layout was read from: docs/dialects/cursor.md ("Session store").
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type Database from "better-sqlite3";
import type { JsonObject, JsonValue } from "../model/events.ts";
import { isJsonObject } from "../model/lossless-integer.ts";
import { num, obj, str } from "../dialect/json.ts";
import { copyState, freshFacts, type LineScanner, noteTime, parseLine, recordMap, columnsOf, type UsageSource } from "./scanner.ts";
import { databaseStamp, type SessionStore, type StoreLines, withDatabase } from "./store.ts";

const STORE = /[\\/]chats[\\/][^\\/]+[\\/][^\\/]+[\\/]store\.db$/;

/** The fields of a protobuf message that carry bytes (wire type 2), by field number, in order; undefined when it is not one. */
function bytesFields(buf: Uint8Array): { field: number; value: Uint8Array }[] | undefined {
  const out: { field: number; value: Uint8Array }[] = [];
  let at = 0;
  const varint = (): number | undefined => {
    let value = 0;
    for (let shift = 0; at < buf.length && shift <= 49; shift += 7) {
      const byte = buf[at++] ?? 0;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    return undefined;
  };
  while (at < buf.length) {
    const key = varint();
    if (key === undefined) return undefined;
    const wire = key % 8;
    if (wire === 0 && varint() === undefined) return undefined;
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = varint();
      if (length === undefined || at + length > buf.length) return undefined;
      out.push({ field: Math.floor(key / 8), value: buf.subarray(at, at + length) });
      at += length;
    } else if (wire !== 0) return undefined;
  }
  return at === buf.length ? out : undefined;
}

function metaOf(db: Database.Database): JsonObject | undefined {
  const row = db.prepare("SELECT value FROM meta WHERE key = '0'").get() as { value?: unknown } | undefined;
  const hex = row?.value;
  if (typeof hex !== "string" || !/^(?:[0-9a-fA-F]{2})+$/.test(hex)) return undefined;
  try {
    const value = JSON.parse(Buffer.from(hex, "hex").toString("utf8")) as JsonValue;
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A message's text: the string, or its text parts. */
function textOf(content: JsonValue | undefined): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isJsonObject)
    .map((part) => (part.type === "text" && typeof part.text === "string" ? part.text : ""))
    .join("");
}

/** The lines of one stored message, as the stream prints its parts. */
function messageLines(message: JsonObject, sessionId: string, createdAt: number | undefined): JsonObject[] {
  const role = str(message, "role");
  const content = message.content;
  if (role === "user") {
    const text = textOf(content);
    // Cursor wraps the prompt in <user_query> after context blocks of its own; the query is what the user typed.
    const query = /<user_query>([\s\S]*?)<\/user_query>/.exec(text)?.[1]?.trim() ?? text;
    return [
      {
        type: "user",
        message: { role: "user", content: [{ type: "text", text: query }] },
        session_id: sessionId,
        ...(createdAt === undefined ? {} : { timestamp_ms: createdAt }),
      },
    ];
  }
  if (role !== "assistant" && role !== "tool") return [];
  const lines: JsonObject[] = [];
  const text = textOf(content);
  if (role === "assistant" && text !== "")
    lines.push({ type: "assistant", message: { role: "assistant", content: [{ type: "text", text }] }, session_id: sessionId });
  for (const part of Array.isArray(content) ? content.filter(isJsonObject) : []) {
    const id = str(part, "toolCallId");
    if (id === undefined) continue;
    const name = str(part, "toolName") ?? "tool";
    if (part.type === "tool-call")
      lines.push({
        type: "tool_call",
        subtype: "started",
        call_id: id,
        tool_call: { function: { name, arguments: part.args ?? null } },
        session_id: sessionId,
      });
    else if (part.type === "tool-result") {
      const result = part.result;
      const output = typeof result === "string" ? result : textOf(result) || JSON.stringify(result ?? null);
      const outcome = part.isError === true ? { error: { message: output } } : { success: { content: output } };
      lines.push({
        type: "tool_call",
        subtype: "completed",
        call_id: id,
        tool_call: { function: { name, result: outcome } },
        session_id: sessionId,
      });
    }
  }
  return lines;
}

/** How deep link blobs may nest (a root's children may be link blobs of their own). */
const MAX_LINK_DEPTH = 8;

/**
 * The messages a link blob's field 1 names, in order: a JSON blob is a message; any other blob links further (it
 * is walked too). A blob that opens like JSON but does not parse stays a line of its own, reported as malformed.
 */
function messagesOf(db: Database.Database, fields: { field: number; value: Uint8Array }[], depth: number): (JsonObject | string)[] {
  const blob = db.prepare("SELECT data FROM blobs WHERE id = ?");
  const out: (JsonObject | string)[] = [];
  for (const field of fields) {
    if (field.field !== 1) continue;
    const data = (blob.get(Buffer.from(field.value).toString("hex")) as { data?: unknown } | undefined)?.data;
    if (!(data instanceof Uint8Array) || data.length === 0) continue;
    if (data[0] !== 0x7b) {
      const children = depth < MAX_LINK_DEPTH ? bytesFields(data) : undefined;
      if (children !== undefined) out.push(...messagesOf(db, children, depth + 1));
      continue;
    }
    const text = Buffer.from(data).toString("utf8");
    try {
      const message = JSON.parse(text) as JsonValue;
      if (isJsonObject(message)) out.push(message);
    } catch {
      out.push(text.replace(/\r?\n/g, " "));
    }
  }
  return out;
}

/** The session's lines: its init, then each message of the latest root blob, in order. */
function sessionLines(db: Database.Database): StoreLines {
  const meta = metaOf(db);
  const rootId = meta === undefined ? undefined : str(meta, "latestRootBlobId");
  if (meta === undefined || rootId === undefined) return { failed: "no session metadata (meta key 0) in the database" };
  const blob = db.prepare("SELECT data FROM blobs WHERE id = ?");
  const root = (blob.get(rootId) as { data?: unknown } | undefined)?.data;
  const fields = root instanceof Uint8Array ? bytesFields(root) : undefined;
  if (fields === undefined) return { failed: "the session's root blob is missing or not protobuf" };
  const sessionId = str(meta, "agentId") ?? rootId;
  const workspace = fields.find((f) => f.field === 9);
  const uri = workspace === undefined ? undefined : Buffer.from(workspace.value).toString("utf8");
  const cwd = uri?.startsWith("file://") === true ? decodeURIComponent(new URL(uri).pathname) : uri;
  const init: JsonObject = {
    type: "system",
    subtype: "init",
    apiKeySource: "login",
    cwd: cwd ?? "",
    session_id: sessionId,
    model: str(meta, "lastUsedModel") ?? "",
    permissionMode: "default",
  };
  const lines = [JSON.stringify(init)];
  const createdAt = num(meta, "createdAt");
  let first = true;
  for (const message of messagesOf(db, fields, 0)) {
    if (typeof message === "string") {
      lines.push(message);
      continue;
    }
    const out = messageLines(message, sessionId, first ? createdAt : undefined);
    if (out.length > 0 && message.role === "user") first = false;
    lines.push(...out.map((line) => JSON.stringify(line)));
  }
  return { lines };
}

const cursorStore: SessionStore = {
  depth: 2,
  isStore: (path) => STORE.test(path),
  list(path) {
    const stamp = databaseStamp(path) ?? { size: 0, mtimeMs: 0 };
    const checked = withDatabase(path, (db) => metaOf(db) !== undefined);
    if (typeof checked !== "boolean") return checked;
    return checked ? { sessions: [{ ref: path, ...stamp }] } : { failed: "no session metadata (meta key 0) in the database" };
  },
  read: (ref) => withDatabase(ref, sessionLines),
  stamp: (ref) => databaseStamp(ref),
};

/** What a stored Cursor session says about itself: its id, folder, model and start; no usage (the store keeps none). */
function createCursorScanner(start: Parameters<UsageSource["scanner"]>[0]): LineScanner {
  const facts = freshFacts("cursor");
  const records = recordMap({ ...start, previous: undefined });
  let badLines = 0;
  return {
    line(bytes, from, to) {
      const rec = parseLine(bytes, from, to);
      if (rec === undefined) {
        badLines++;
        return;
      }
      if (rec.type === "system") {
        facts.sessionId ??= str(rec, "session_id") ?? null;
        facts.project ??= str(rec, "cwd") || null;
      }
      noteTime(facts, num(rec, "timestamp_ms") ?? null);
      if (rec.type === "assistant") facts.status = "completed";
      if (obj(rec, "message") !== undefined && rec.type === "user") facts.status = "open";
    },
    result: () => ({ facts, records: columnsOf(records), state: copyState(undefined), badLines }),
  };
}

export const cursorSource: UsageSource = {
  agent: "cursor",
  help: "Cursor CLI: ~/.cursor/chats/*/*/store.db",
  folders: (_env, home) => (home === "" ? [] : [join(home, ".cursor", "chats")]),
  isLog: (path) => STORE.test(path) && isFile(path),
  named: (path) => STORE.test(path),
  sniff: () => false,
  scanner: createCursorScanner,
  store: cursorStore,
};

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
