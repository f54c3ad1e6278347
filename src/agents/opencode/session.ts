// Source: OpenCode's session store (opencode.db: tables session, message, part; anomalyco/opencode packages/opencode/src/session),
// read by src/usage/opencode.ts into the bus events OpenCode itself publishes (`{type, properties}`); docs/dialects/opencode.md
import type { AgentEventDraft, JsonObject } from "../../model/events.ts";
import type { DecodeContext, Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { compact } from "../../dialect/json.ts";
import { fieldBool, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import { isoFromEpochMs } from "../../dialect/time.ts";
import { OpencodeStream } from "./decode.ts";

/** `session.updated`: the session's row (Session.Info). */
interface SessionInfo {
  id: string;
  directory?: string;
  title?: string;
  version?: string;
  parentID?: string;
  time?: { created?: number; updated?: number };
}
/** `message.updated`: a message's row (MessageV2.Info); an assistant's carries its model, its tokens and cost, its error. */
interface MessageInfo {
  id: string;
  sessionID: string;
  role: "user" | "assistant" | string;
  modelID?: string;
  time?: { created?: number; completed?: number };
  finish?: string;
  error?: { name?: string; data?: { message?: string } & JsonObject };
}
/** `message.part.updated`: a part's row (MessageV2.Part) with its ids, and when it was written. */
interface PartUpdate {
  sessionID?: string;
  time?: number;
  part: { id: string; messageID: string; sessionID: string; type: string; text?: string; synthetic?: boolean; ignored?: boolean };
}
interface BusEvent {
  type: "session.updated" | "message.updated" | "message.part.updated";
  properties: { info?: SessionInfo | MessageInfo } & Partial<PartUpdate>;
}

const TYPES = new Set(["session.updated", "message.updated", "message.part.updated"]);
/** Part types and the live `--format json` record each is printed as (src/agents/opencode/decode.ts decodes those). */
const LIVE_TYPE: Readonly<Record<string, string>> = {
  "step-start": "step_start",
  "step-finish": "step_finish",
  text: "text",
  reasoning: "reasoning",
  tool: "tool_use",
};
/** Parts that show nothing a reader needs: a snapshot id, the patch a step made (its tool calls say it), an attached file, a subagent marker, a compaction mark, a retry note. */
const QUIET_PARTS = new Set(["snapshot", "patch", "file", "agent", "subtask", "compaction", "retry"]);

/** OpenCode's stored sessions, as src/usage/opencode.ts reads them out of opencode.db. */
export const opencodeSession: Dialect = {
  name: "opencode-session",
  description: "OpenCode saved sessions (opencode.db, read by sessions/usage/html/summary)",
  detect(record) {
    if (record.kind !== "json") return false;
    const v = record.value;
    const properties = v.properties;
    return (
      typeof v.type === "string" && TYPES.has(v.type) && typeof properties === "object" && properties !== null && !Array.isArray(properties)
    );
  },
  startsSession(record) {
    if (record.kind !== "json" || record.value.type !== "session.updated") return undefined;
    const id = fieldStr(fieldObj(fieldObj(record.value as Wire<BusEvent>, "properties"), "info"), "id");
    return id === undefined ? undefined : { sessionId: id };
  },
  createDecoder: createOpencodeSessionDecoder,
};

function createOpencodeSessionDecoder(): DialectDecoder {
  const decoding = new OpencodeSessionStream();
  return {
    decode(record, context) {
      if (record.kind !== "json") return [];
      return decoding.decode(record.value, context);
    },
    end() {
      return [
        ...decoding.flushError(),
        ...decoding.live.closeTurn("error", undefined, "the session ended before step-finish"),
        ...decoding.live.state.closeAll(),
        ...decoding.ending(),
      ];
    },
  };
}

class OpencodeSessionStream {
  /** The live stream's decoding: every part is decoded as `opencode run --format json` prints it. */
  readonly live = new OpencodeStream();
  readonly roles = new Map<string, string>();
  /** The current assistant message's error, said once its parts are read. */
  pendingError: { error: Wire<NonNullable<MessageInfo["error"]>>; time: number | undefined; sessionId: string } | undefined;
  context: DecodeContext | undefined;

  decode(v: JsonObject, context: DecodeContext): AgentEventDraft[] {
    this.context = context;
    const event: Wire<BusEvent> = v;
    const properties = fieldObj(event, "properties");
    switch (v.type) {
      case "session.updated":
        return this.session(fieldObj(properties, "info") as Wire<SessionInfo> | undefined);
      case "message.updated":
        return this.message(fieldObj(properties, "info") as Wire<MessageInfo> | undefined);
      case "message.part.updated":
        return this.part(properties as Wire<PartUpdate> | undefined, context);
      default:
        return [unknownRecord(v, `unknown opencode-session record type ${JSON.stringify(v.type)}`)];
    }
  }

  session(info: Wire<SessionInfo> | undefined): AgentEventDraft[] {
    const sessionId = fieldStr(info, "id");
    if (sessionId === undefined || this.live.sessionStarted) return [];
    this.live.sessionStarted = true;
    const title = fieldStr(info, "title");
    return [
      compact({
        type: "session.started" as const,
        agent: "opencode",
        agentVersion: fieldStr(info, "version"),
        sessionId,
        cwd: fieldStr(info, "directory"),
        parentSessionId: fieldStr(info, "parentID"),
        details: title === undefined ? undefined : { title },
        time: isoFromEpochMs(fieldNum(fieldObj(info, "time"), "created")),
      }),
    ];
  }

  message(info: Wire<MessageInfo> | undefined): AgentEventDraft[] {
    const out = this.flushError();
    const id = fieldStr(info, "id");
    const role = fieldStr(info, "role");
    if (id === undefined || role === undefined) return out;
    this.roles.set(id, role);
    const error = fieldObj(info, "error");
    if (role === "assistant" && error !== undefined)
      this.pendingError = { error, time: fieldNum(fieldObj(info, "time"), "created"), sessionId: fieldStr(info, "sessionID") ?? "" };
    return out;
  }

  /** An assistant message's error, as the live stream prints it (`{type: "error", error}`), after its parts. */
  flushError(): AgentEventDraft[] {
    const pending = this.pendingError;
    if (pending === undefined || this.context === undefined) return [];
    this.pendingError = undefined;
    return this.live.decodeJson(
      { type: "error", timestamp: pending.time ?? 0, sessionID: pending.sessionId, error: pending.error },
      this.context,
    );
  }

  part(update: Wire<PartUpdate> | undefined, context: DecodeContext): AgentEventDraft[] {
    const part = fieldObj(update, "part");
    const type = fieldStr(part, "type");
    if (part === undefined || type === undefined) return [];
    const time = fieldNum(update, "time");
    const messageId = fieldStr(part, "messageID") ?? "";
    if (this.roles.get(messageId) === "user") return this.userPart(part, type, time);
    const live = LIVE_TYPE[type];
    if (live === undefined) {
      if (QUIET_PARTS.has(type)) return [];
      return [unknownRecord(part, `unknown opencode part type ${JSON.stringify(type)}`)];
    }
    const sessionID = fieldStr(part, "sessionID") ?? fieldStr(update, "sessionID") ?? "";
    return this.live.decodeJson({ type: live, timestamp: time ?? 0, sessionID, part }, context);
  }

  /** A user message's text is the prompt (OpenCode's own synthetic or ignored texts are not shown); its other parts are attachments. */
  userPart(part: Wire<PartUpdate["part"]>, type: string, time: number | undefined): AgentEventDraft[] {
    if (type !== "text" || fieldBool(part, "synthetic") === true || fieldBool(part, "ignored") === true) return [];
    const id = fieldStr(part, "id") ?? this.live.state.nextId("user");
    return this.live.state.complete(id, fieldStr(part, "text") ?? "", "user", "text", { time: isoFromEpochMs(time) });
  }

  /** The session's end, as the live stream's: its last step stopped, or an error ended it. */
  ending(): AgentEventDraft[] {
    const last = this.live.last;
    if (!this.live.sessionStarted || last === undefined) return [];
    const source = { dialect: "opencode-session", line: last.line };
    if (last.error !== undefined)
      return [compact({ type: "session.completed" as const, status: "error" as const, error: last.error, time: last.time, source })];
    if (last.reason === "stop")
      return [compact({ type: "session.completed" as const, status: "success" as const, time: last.time, source })];
    return [];
  }
}
