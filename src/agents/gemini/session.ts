// Source: Gemini CLI chat recording, ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl (JSONL variant, 0.42 to 0.61); versions and quirks: docs/dialects/gemini-session.md
import type { AgentEventDraft, JsonObject, JsonValue } from "../../model/events.ts";
import { usageFrom } from "../../model/usage.ts";
import { geminiUsageKey } from "../../model/usage-keys.ts";
import type { DecodeContext, Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { arr, compact, obj, textOf } from "../../dialect/json.ts";
import { asWire, field, fieldArr, fieldItems, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import { createStreamState } from "../../dialect/messages.ts";
import { geminiFileChange, geminiPlan, geminiToolKind } from "./cli.ts";

/** Line 1: the session header. */
interface SessionHeader {
  sessionId: string;
  projectHash: string;
  startTime: string;
  lastUpdated: string;
  /** `main` (subagent sessions may say otherwise). */
  kind?: string;
}
/** A MongoDB-style mutation of the header: `{"$set":{"lastUpdated":…}}`. */
interface SetRecord {
  $set: Partial<SessionHeader>;
}
interface UserRecord {
  id: string;
  timestamp: string;
  type: "user";
  /** 0.61+: also the tool results sent back to the model, as `functionResponse` parts. */
  content: ({ text?: string } | ToolResultPart)[] | string;
}
interface ToolCallRecord {
  id: string;
  name: string;
  args: JsonObject;
  /** `[{functionResponse:{id, name, response:{output}|{error}}}]`. */
  result?: ToolResultPart[];
  status: "success" | "error" | "cancelled" | string;
  timestamp?: string;
  /** A string, or a FileDiff object `{fileDiff, fileName, …}` for edits. */
  resultDisplay?: JsonValue;
  description?: string;
  displayName?: string;
}
/** One part of a recorded tool call's result. */
interface ToolResultPart {
  functionResponse?: { id?: string; name?: string; response?: { output?: string; error?: string } };
}
/** `resultDisplay` of an edit: the FileDiff object. */
interface FileDiffDisplay {
  fileDiff?: string;
  fileName?: string;
}
/** One thought summary of a `gemini` record. */
interface GeminiThought {
  subject?: string;
  description?: string;
  timestamp?: string;
}
interface GeminiRecord {
  id: string;
  timestamp: string;
  type: "gemini";
  content: string;
  thoughts?: GeminiThought[];
  /** input (cached included), output, cached, thoughts, tool, total. */
  tokens?: { input: number; output: number; cached: number; thoughts: number; tool: number; total: number };
  model?: string;
  /** Present on the second write of the same record id. */
  toolCalls?: ToolCallRecord[];
}
/** info / warning / error lines the CLI records beside the conversation. */
interface NoteRecord {
  id: string;
  timestamp: string;
  type: "info" | "warning" | "error";
  content: string;
}
/** The conversation records of a session file (the header and `$set` lines are told apart before). */
type ConversationRecord = UserRecord | GeminiRecord | NoteRecord;

const TERMINAL = new Set(["success", "error", "cancelled"]);

function isHeader(v: JsonObject): boolean {
  return v.type === undefined && typeof v.sessionId === "string" && (typeof v.projectHash === "string" || typeof v.startTime === "string");
}

function isSet(v: JsonObject): boolean {
  return obj(v, "$set") !== undefined && Object.keys(v).length === 1;
}

/** A `user` record's parts when every one is a `functionResponse` (tool results sent back), else undefined. */
function functionResponses(value: JsonValue | undefined): Wire<ToolResultPart>[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const parts = value.map((part) => asWire<ToolResultPart>(part));
  return parts.every((part) => fieldObj(part, "functionResponse") !== undefined) ? (parts as Wire<ToolResultPart>[]) : undefined;
}

/** The text of a Gemini `content`: a string or an array of parts with `text`. */
function contentText(value: JsonValue | undefined): string {
  if (typeof value === "string") return value;
  return textOf(value) ?? "";
}

/** The output of a recorded tool call: functionResponse.response.output (or .error), else the display string. */
function toolOutput(call: Wire<ToolCallRecord>): string | undefined {
  const parts: string[] = [];
  for (const item of fieldItems(call, "result")) {
    const response = fieldObj(fieldObj(item, "functionResponse"), "response");
    if (response === undefined) continue;
    const text = fieldStr(response, "output") ?? fieldStr(response, "error") ?? textOf(response);
    if (text !== undefined) parts.push(text);
  }
  if (parts.length > 0) return parts.join("\n");
  const display = field(call, "resultDisplay");
  return typeof display === "string" ? display : undefined;
}

/** One `gemini` record id while it may still be rewritten. */
interface OpenRecord {
  id: string;
  line: number;
  time: string | undefined;
  text: string;
  tokens: Wire<NonNullable<GeminiRecord["tokens"]>> | undefined;
  model: string | undefined;
}

/** Gemini CLI saved session files (the JSONL chat recording). */
export const geminiSession: Dialect = {
  name: "gemini-session",
  description: "Gemini CLI saved session files",
  detect(record) {
    if (record.kind !== "json") return false;
    const v = record.value;
    if (isHeader(v) && typeof v.projectHash === "string") return true;
    return (
      v.type === "gemini" &&
      typeof v.id === "string" &&
      typeof v.timestamp === "string" &&
      (obj(v, "tokens") !== undefined || arr(v, "thoughts") !== undefined)
    );
  },
  createDecoder: createGeminiSessionDecoder,
};

function createGeminiSessionDecoder(): DialectDecoder {
  const decoding = new GeminiSessionStream();
  return {
    decode(record, context) {
      if (record.kind !== "json") return [];
      return decoding.decodeJson(record.value, context);
    },
    end() {
      return [...decoding.close(), ...decoding.state.closeAll()];
    },
  };
}

/** One stream's decoding state, and the handlers that read and update it. */
class GeminiSessionStream {
  readonly state = createStreamState();
  open: OpenRecord | undefined;
  /** The chat's session id (its header), once read. */
  sessionId = "";
  /** Requests already closed (`geminiUsageKey`): a late rewrite only adds tool calls, its tokens are not counted again. */
  readonly closed = new Set<string>();
  readonly seenUsers = new Set<string>();
  readonly thoughtsEmitted = new Map<string, number>();
  readonly toolsStarted = new Set<string>();
  readonly toolsCompleted = new Set<string>();
  source(line: number) {
    return { dialect: "gemini-session", line };
  }

  // The session file writes a gemini record, then the same id again with its toolCalls; we hold the record open until
  // another record comes, so its text and tokens are taken from the last write and counted once.
  close(): AgentEventDraft[] {
    if (this.open === undefined) return [];
    const rec = this.open;
    this.open = undefined;
    this.closed.add(geminiUsageKey(this.sessionId, rec.id));
    const out: AgentEventDraft[] = [];
    if (this.state.isOpen(rec.id)) {
      for (const d of this.state.complete(rec.id, rec.text, "assistant", "text", { time: rec.time }))
        out.push({ ...d, source: this.source(rec.line) });
    }
    if (rec.tokens !== undefined) {
      const t = rec.tokens;
      const usage = usageFrom({
        inputTokens: fieldNum(t, "input"),
        outputTokens: fieldNum(t, "output"),
        cacheReadTokens: fieldNum(t, "cached"),
        reasoningTokens: fieldNum(t, "thoughts"),
      });
      out.push(
        compact({
          type: "usage" as const,
          usage,
          scope: "delta" as const,
          model: rec.model,
          time: rec.time,
          source: this.source(rec.line),
        }),
      );
    }
    return out;
  }

  toolEvents(calls: Wire<ToolCallRecord>[], time: string | undefined): AgentEventDraft[] {
    const out: AgentEventDraft[] = [];
    for (const call of calls) {
      const toolCallId = fieldStr(call, "id");
      const name = fieldStr(call, "name") ?? "unknown";
      if (toolCallId === undefined) continue;
      const args = field(call, "args");
      const callTime = fieldStr(call, "timestamp") ?? time;
      if (!this.toolsStarted.has(toolCallId)) {
        this.toolsStarted.add(toolCallId);
        this.state.toolStarted(toolCallId, name);
        out.push(
          compact({
            type: "tool.started" as const,
            toolCallId,
            name,
            kind: geminiToolKind(name),
            input: args,
            description: fieldStr(call, "description"),
            time: callTime,
          }),
        );
        const plan = geminiPlan(name, args, callTime);
        if (plan !== undefined) out.push(plan);
      }
      const status = fieldStr(call, "status");
      if (status !== undefined && TERMINAL.has(status) && !this.toolsCompleted.has(toolCallId)) {
        this.toolsCompleted.add(toolCallId);
        this.state.toolCompleted(toolCallId);
        const isError = status !== "success";
        out.push(compact({ type: "tool.completed" as const, toolCallId, name, output: toolOutput(call), isError, time: callTime }));
        if (!isError) {
          const change = geminiFileChange(
            name,
            args,
            toolCallId,
            fieldStr(asWire<FileDiffDisplay>(field(call, "resultDisplay")), "fileDiff"),
          );
          if (change !== undefined) out.push(callTime === undefined ? change : { ...change, time: callTime });
        }
      }
    }
    return out;
  }

  /** Tool results sent back to the model: a call the gemini record's rewrite has not completed yet is completed here. */
  toolResponses(parts: Wire<ToolResultPart>[], time: string | undefined): AgentEventDraft[] {
    const out: AgentEventDraft[] = [];
    for (const part of parts) {
      const response = fieldObj(part, "functionResponse");
      const toolCallId = fieldStr(response, "id");
      if (toolCallId === undefined || this.toolsCompleted.has(toolCallId) || !this.toolsStarted.has(toolCallId)) continue;
      this.toolsCompleted.add(toolCallId);
      this.state.toolCompleted(toolCallId);
      const result = fieldObj(response, "response");
      const error = fieldStr(result, "error");
      const output = fieldStr(result, "output") ?? error ?? textOf(result);
      const name = fieldStr(response, "name") ?? "unknown";
      out.push(compact({ type: "tool.completed" as const, toolCallId, name, output, isError: error !== undefined, time }));
    }
    return out;
  }

  gemini(v: Wire<GeminiRecord>, line: number): AgentEventDraft[] {
    const id = fieldStr(v, "id") ?? this.state.nextId("gemini");
    const time = fieldStr(v, "timestamp");
    const out: AgentEventDraft[] = [];
    if (this.open !== undefined && this.open.id !== id) out.push(...this.close());
    const late = this.closed.has(geminiUsageKey(this.sessionId, id));
    if (!late) {
      const text = contentText(field(v, "content"));
      if (this.open === undefined) this.open = { id, line, time, text, tokens: undefined, model: undefined };
      this.open.line = line;
      this.open.time = time ?? this.open.time;
      this.open.text = text;
      this.open.tokens = fieldObj(v, "tokens") ?? this.open.tokens;
      this.open.model = fieldStr(v, "model") ?? this.open.model;
      const streamed = this.state.streamedText(id) ?? "";
      // A rewrite that extends the text streams the new part; any other change is carried by message.completed (it replaces).
      if (text.startsWith(streamed)) out.push(...this.state.delta(id, text.slice(streamed.length), "assistant", "text", { time }));
      const thoughts = fieldArr(v, "thoughts") ?? [];
      const done = this.thoughtsEmitted.get(id) ?? 0;
      for (let i = done; i < thoughts.length; i++) {
        const thought = asWire<GeminiThought>(thoughts[i]);
        const subject = fieldStr(thought, "subject");
        const description = fieldStr(thought, "description") ?? "";
        const thoughtText = subject === undefined || subject === "" ? description : `**${subject}**\n${description}`;
        out.push(
          ...this.state.complete(`${id}#thought-${i + 1}`, thoughtText, "assistant", "reasoning", {
            time: fieldStr(thought, "timestamp") ?? time,
          }),
        );
      }
      this.thoughtsEmitted.set(id, Math.max(done, thoughts.length));
    }
    out.push(...this.toolEvents(fieldItems(v, "toolCalls"), time));
    return out;
  }

  decodeJson(v: JsonObject, context: DecodeContext): AgentEventDraft[] {
    if (isSet(v)) {
      // $set only moves lastUpdated (or other header fields): nothing for the conversation, kept as a notice.
      const set: Wire<SetRecord> = v;
      const fields = fieldObj(set, "$set") ?? {};
      const time = fieldStr(fields, "lastUpdated");
      return [
        compact({
          type: "notice" as const,
          kind: "session_update",
          level: "info" as const,
          text: `session header updated: ${Object.keys(fields).join(", ")}`,
          details: fields,
          time,
        }),
      ];
    }
    const conversation: Wire<ConversationRecord> = v;
    const time = fieldStr(conversation, "timestamp");
    switch (v.type) {
      case "gemini":
        return this.gemini(v, context.line);
      case "user": {
        const out = this.close();
        const responses = functionResponses(field(conversation, "content"));
        // 0.61+: the tool results sent back to the model are a `user` record of functionResponse parts, not a prompt.
        if (responses !== undefined) return [...out, ...this.toolResponses(responses, time)];
        const id = fieldStr(conversation, "id") ?? this.state.nextId("user");
        // The user record can be rewritten like the gemini ones; the first write is kept.
        if (this.seenUsers.has(id)) return out;
        this.seenUsers.add(id);
        out.push(...this.state.complete(id, contentText(field(conversation, "content")), "user", "text", { time }));
        return out;
      }
      case "info":
      case "warning": {
        const out = this.close();
        const level = v.type === "info" ? ("info" as const) : ("warning" as const);
        out.push(
          compact({ type: "notice" as const, kind: String(v.type), level, text: contentText(field(conversation, "content")), time }),
        );
        return out;
      }
      case "error": {
        const out = this.close();
        out.push(
          compact({
            type: "error" as const,
            scope: "session" as const,
            message: contentText(field(conversation, "content")) || "error",
            time,
          }),
        );
        return out;
      }
      default:
        break;
    }
    if (isHeader(v)) {
      const { sessionId, startTime, ...rest } = v;
      if (typeof sessionId === "string") this.sessionId = sessionId;
      return [
        compact({
          type: "session.started" as const,
          agent: "gemini-cli",
          sessionId: typeof sessionId === "string" ? sessionId : undefined,
          time: typeof startTime === "string" ? startTime : undefined,
          details: Object.keys(rest).length > 0 ? rest : undefined,
        }),
      ];
    }
    context.report({
      code: "unknown-record",
      message: `unknown gemini session record ${v.type === undefined ? `with keys ${Object.keys(v).slice(0, 5).join(", ")}` : `type ${JSON.stringify(v.type)}`}`,
    });
    return [
      ...this.close(),
      unknownRecord(v, v.type === undefined ? "unknown record shape" : `unknown record type ${JSON.stringify(v.type)}`),
    ];
  }
}
