/**
 * OpenCode's sessions: rows of its SQLite database (`$XDG_DATA_HOME/opencode/opencode.db`, else
 * `~/.local/share/opencode/opencode.db`; `OPENCODE_DB` names another, absolute or under that folder; a release
 * channel other than `latest` writes `opencode-<channel>.db` beside it). Tables `session`, `message` (`data`: the
 * message as JSON, without its ids) and `part` (`data`: the part). A session is read as the bus events OpenCode
 * publishes for it (`{type, properties}`: `session.updated`, then each message's `message.updated` followed by its
 * parts' `message.part.updated`), the `opencode-session` dialect (src/agents/opencode/session.ts).
 *
 * Usage rule (docs/usage.md): one request per `step-finish` part (one model call, with its tokens and the cost
 * OpenCode computed), keyed by session id + part id.
 */
import { isAbsolute, join } from "node:path";
import type Database from "better-sqlite3";
import type { JsonObject, JsonValue } from "../model/events.ts";
import { isJsonObject } from "../model/lossless-integer.ts";
import { opencodeUsageKey } from "../model/usage-keys.ts";
import { num, obj, str } from "../dialect/json.ts";
import {
  columnsOf,
  copyState,
  count,
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
import { STORAGE_SESSION, storageLines, storageStamp } from "./opencode-storage.ts";
import { databaseStamp, type SessionStore, type StoreLines, type StoreListing, splitRef, storeRef, withDatabase } from "./store.ts";
import type { TokenCounts } from "./types.ts";

const DATABASE_NAME = /(^|[\\/])opencode(-[\w.-]+)?\.db$/;

/** The data folder OpenCode keeps its database in. */
function dataDir(env: Readonly<Record<string, string | undefined>>, home: string): string | undefined {
  const xdg = env.XDG_DATA_HOME;
  if (xdg !== undefined && xdg !== "") return join(xdg, "opencode");
  return home === "" ? undefined : join(home, ".local", "share", "opencode");
}

interface SessionRow {
  id: string;
  parent_id: string | null;
  directory: string;
  title: string;
  version: string;
  time_created: number;
  time_updated: number;
}
interface DataRow {
  id: string;
  message_id?: string;
  time_created: number;
  data: string;
}

/** A row's `data` as an object with its ids put back, or undefined when it is not a JSON object. */
function withIds(data: string, ids: JsonObject): JsonObject | undefined {
  let value: JsonValue;
  try {
    value = JSON.parse(data) as JsonValue;
  } catch {
    return undefined;
  }
  return isJsonObject(value) ? { ...value, ...ids } : undefined;
}

/** A session's lines: its row, then each message followed by its parts; a row whose data is not JSON stays a line of its own (reported as malformed). */
function sessionLines(db: Database.Database, sessionId: string): StoreLines {
  const session = db
    .prepare("SELECT id, parent_id, directory, title, version, time_created, time_updated FROM session WHERE id = ?")
    .get(sessionId) as SessionRow | undefined;
  if (session === undefined) return { failed: `no session ${sessionId} in the database` };
  const info = {
    id: session.id,
    directory: session.directory,
    title: session.title,
    version: session.version,
    ...(session.parent_id === null ? {} : { parentID: session.parent_id }),
    time: { created: session.time_created, updated: session.time_updated },
  };
  const lines = [JSON.stringify({ type: "session.updated", properties: { info } })];
  const messages = db
    .prepare("SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id")
    .all(sessionId) as DataRow[];
  const parts = db
    .prepare("SELECT id, message_id, time_created, data FROM part WHERE session_id = ? ORDER BY message_id, id")
    .all(sessionId) as DataRow[];
  const byMessage = new Map<string, DataRow[]>();
  for (const part of parts) {
    const list = byMessage.get(part.message_id ?? "");
    if (list === undefined) byMessage.set(part.message_id ?? "", [part]);
    else list.push(part);
  }
  for (const message of messages) {
    const messageInfo = withIds(message.data, { id: message.id, sessionID: sessionId });
    lines.push(messageInfo === undefined ? message.data : JSON.stringify({ type: "message.updated", properties: { info: messageInfo } }));
    for (const part of byMessage.get(message.id) ?? []) {
      const partInfo = withIds(part.data, { id: part.id, sessionID: sessionId, messageID: message.id });
      lines.push(
        partInfo === undefined
          ? part.data
          : JSON.stringify({ type: "message.part.updated", properties: { sessionID: sessionId, part: partInfo, time: part.time_created } }),
      );
    }
  }
  return { lines };
}

/**
 * Both of OpenCode's stores: its database (`opencode.db`, a session is `<database>#<session id>`) and the JSON storage
 * of older versions (a session is its `storage/session/<project>/<id>.json` file: opencode-storage.ts).
 */
export const opencodeStore: SessionStore = {
  // The databases are in the data folder; the storage's session files one folder below `storage/session`.
  depth: 1,
  isStore: (path) => DATABASE_NAME.test(path) || STORAGE_SESSION.test(path),
  list(path): StoreListing {
    if (STORAGE_SESSION.test(path)) {
      const stamp = storageStamp(path);
      return stamp === undefined ? { failed: "no such file or folder" } : { sessions: [{ ref: path, ...stamp }] };
    }
    // Taken before the read, as scan-file.ts takes it.
    const stamp = databaseStamp(path) ?? { size: 0, mtimeMs: 0 };
    const listed = withDatabase(path, (db) => db.prepare("SELECT id FROM session ORDER BY time_created, id").all() as { id: string }[]);
    if ("failed" in listed) return listed;
    return { sessions: listed.map((row) => ({ ref: storeRef(path, row.id), ...stamp })) };
  },
  read(ref): StoreLines {
    if (STORAGE_SESSION.test(ref)) return storageLines(ref);
    const split = splitRef(ref);
    if (split === undefined) return { failed: "not a session of a store (<database>#<session id>)" };
    return withDatabase(split.path, (db) => sessionLines(db, split.sessionId));
  },
  stamp: (ref) => {
    if (STORAGE_SESSION.test(ref)) return storageStamp(ref);
    const split = splitRef(ref);
    return split === undefined ? undefined : databaseStamp(split.path);
  },
};

/** OpenCode's tokens: `input` without cache reads, `output` without reasoning (counted in it here, docs/usage.md). */
function opencodeTokens(tokens: JsonObject): TokenCounts {
  const cache = obj(tokens, "cache");
  const reasoning = count(num(tokens, "reasoning"));
  return {
    input: count(num(tokens, "input")),
    output: count(num(tokens, "output")) + reasoning,
    cacheRead: count(cache === undefined ? undefined : num(cache, "read")),
    cacheWrite: count(cache === undefined ? undefined : num(cache, "write")),
    cacheWrite1h: 0,
    reasoning,
  };
}

const OPENCODE_COUNTS = ["input", "output", "reasoning"] as const;

function createOpencodeScanner(start: ScannerStart): LineScanner {
  const previous = start.previous;
  const facts = previous?.facts === undefined ? freshFacts("opencode") : { ...previous.facts };
  const records = recordMap(start);
  const state = copyState(previous);
  let badLines = previous?.badLines ?? 0;
  /** Each assistant message's model and time, for its step-finish parts. */
  const messages = new Map<string, { model: string | null; time: number | null }>();
  /** A child session (a `task` tool's subagent) is a session of its own; its requests are a subagent's. */
  let child = false;

  const session = (info: JsonObject): void => {
    facts.sessionId ??= str(info, "id") ?? null;
    facts.project ??= str(info, "directory") ?? null;
    facts.title ??= str(info, "title") ?? null;
    if (str(info, "parentID") !== undefined) child = true;
    const time = obj(info, "time");
    noteTime(facts, time === undefined ? null : (num(time, "created") ?? null));
    noteTime(facts, time === undefined ? null : (num(time, "updated") ?? null));
  };
  const message = (info: JsonObject): void => {
    const time = obj(info, "time");
    const created = time === undefined ? null : (num(time, "created") ?? null);
    noteTime(facts, created);
    noteTime(facts, time === undefined ? null : (num(time, "completed") ?? null));
    if (str(info, "role") !== "assistant") return;
    messages.set(str(info, "id") ?? "", { model: str(info, "modelID") ?? null, time: created });
    // The last assistant message says how the session stands: an error, an answer, or a step still going on.
    facts.status =
      obj(info, "error") !== undefined
        ? "error"
        : str(info, "finish") !== undefined && str(info, "finish") !== "tool-calls"
          ? "completed"
          : "open";
  };
  const part = (properties: JsonObject): void => {
    const p = obj(properties, "part");
    if (p === undefined || str(p, "type") !== "step-finish") return;
    const tokens = obj(p, "tokens");
    const id = str(p, "id");
    if (tokens === undefined || id === undefined) return;
    if (malformedUsage(tokens, OPENCODE_COUNTS, undefined)) {
      badLines++;
      return;
    }
    const owner = messages.get(str(p, "messageID") ?? "");
    const cost = num(p, "cost");
    const key = requestKey(`opencode:${opencodeUsageKey(facts.sessionId ?? start.path, id)}`);
    const time = num(properties, "time") ?? owner?.time ?? null;
    records.set(key, {
      key,
      time,
      model: owner?.model ?? null,
      tokens: opencodeTokens(tokens),
      // The cost OpenCode computed for the call (0 for a model it has no price for), as `summary` takes it too.
      costUsd: cost !== undefined && Number.isFinite(cost) && cost >= 0 ? cost : null,
      sidechain: child,
    });
  };

  return {
    line(bytes, from, to) {
      const rec = parseLine(bytes, from, to);
      const properties = rec === undefined ? undefined : obj(rec, "properties");
      if (rec === undefined || properties === undefined) {
        badLines++;
        return;
      }
      const info = obj(properties, "info");
      if (rec.type === "session.updated" && info !== undefined) session(info);
      else if (rec.type === "message.updated" && info !== undefined) message(info);
      else if (rec.type === "message.part.updated") part(properties);
    },
    result: () => ({ facts, records: columnsOf(records), state, badLines }),
  };
}

export const opencodeSource: UsageSource = {
  agent: "opencode",
  help: "OpenCode: ~/.local/share/opencode/opencode.db ($XDG_DATA_HOME, $OPENCODE_DB)",
  folders(env, home) {
    const dir = dataDir(env, home);
    const named = env.OPENCODE_DB;
    const folders = dir === undefined ? [] : [dir, join(dir, "storage", "session")];
    if (named === undefined || named === "" || named === ":memory:") return folders;
    // A database named elsewhere is a location of its own; its folder's other databases are still found.
    const path = isAbsolute(named) ? named : dir === undefined ? undefined : join(dir, named);
    return [...folders, ...(path === undefined ? [] : [path])];
  },
  isLog: (path) => splitRef(path) !== undefined || STORAGE_SESSION.test(path),
  named: (path) => DATABASE_NAME.test(splitRef(path)?.path ?? path) || STORAGE_SESSION.test(path),
  sniff: (head) => /^\{"type":"session\.updated","properties":/.test(head),
  scanner: createOpencodeScanner,
  store: opencodeStore,
};
