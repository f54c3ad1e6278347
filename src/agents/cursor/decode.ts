// Source: cursor-agent -p --output-format stream-json [--stream-partial-output] (docs.cursor.com/en/cli/reference/output-format); versions and quirks: docs/dialects/cursor.md
import type { AgentEventDraft, FileChange, JsonObject, JsonValue, PlanItem, ToolKind } from "../../model/events.ts";
import { usageFrom } from "../../model/usage.ts";
import type { DecodeContext, Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { claudeStreamOpening } from "../claude/stream-json.ts";
import { compact, obj, textOf } from "../../dialect/json.ts";
import { asWire, field, fieldArr, fieldBool, fieldItems, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import { createStreamState } from "../../dialect/messages.ts";
import { isoFromEpochMs } from "../../dialect/time.ts";

interface TextBlock {
  type: "text";
  text: string;
}
interface CursorInit {
  type: "system";
  subtype: "init";
  /** `env`, `flag` or `login`: how the CLI authenticated. */
  apiKeySource: string;
  cwd: string;
  session_id: string;
  /** Display name: `Auto`, `Claude 4 Sonnet`, `Composer 2.5`. */
  model: string;
  permissionMode: string;
}
interface CursorUser {
  type: "user";
  message: { role: "user"; content: TextBlock[] };
  session_id: string;
}
/**
 * Four forms (see docs/dialects/cursor.md): a partial delta (`timestamp_ms`, no `model_call_id`), a settled segment
 * before tool calls (`timestamp_ms` + `model_call_id`), and the final segment (neither), which with
 * `--stream-partial-output` repeats the deltas just sent.
 */
interface CursorAssistant {
  type: "assistant";
  message: { role: "assistant"; content: TextBlock[] };
  session_id: string;
  model_call_id?: string;
  timestamp_ms?: number;
}
interface CursorThinking {
  type: "thinking";
  subtype: "delta" | "completed";
  text?: string;
  session_id: string;
  timestamp_ms?: number;
}
/** `tool_call` is keyed by kind: `{shellToolCall:{args, result?}}`, `{readToolCall:…}`, or `{function:{name, arguments}}`. */
interface CursorToolCall {
  type: "tool_call";
  subtype: "started" | "completed";
  /** May hold an escaped newline: `call_…\nfc_…`. Opaque. */
  call_id: string;
  tool_call: Record<string, CursorToolBody>;
  session_id: string;
  model_call_id?: string;
  timestamp_ms?: number;
}
/** The body under a `tool_call` kind key; `function` bodies have `name` and `arguments` instead of `args`. */
interface CursorToolBody {
  args?: CursorToolArgs;
  result?: CursorToolOutcome;
  description?: string;
  name?: string;
  arguments?: JsonValue;
}
/** The tool arguments the decoder looks into: MCP names, a file path and text, the todo list. */
interface CursorToolArgs {
  /** mcpToolCall: the MCP tool and its server. */
  toolName?: string;
  name?: string;
  providerIdentifier?: string;
  serverName?: string;
  path?: string;
  fileText?: string;
  todos?: CursorTodo[];
}
/** An updateTodos / todoWrite item; statuses may be enum-like (`TODO_STATUS_IN_PROGRESS`). */
interface CursorTodo {
  content?: string;
  text?: string;
  status?: string;
}
/** `result` of a completed tool call: one of success, error (or failure), rejected. */
interface CursorToolOutcome {
  success?: CursorToolSuccess;
  error?: CursorToolFailure;
  failure?: CursorToolFailure;
  rejected?: { reason?: string };
  isError?: boolean;
}
interface CursorToolSuccess {
  exitCode?: number;
  interleavedOutput?: string;
  stdout?: string;
  stderr?: string;
  content?: string;
  diffString?: string;
  executionTime?: number;
  path?: string;
}
interface CursorToolFailure {
  message?: string;
  error?: string;
}
interface CursorResult {
  type: "result";
  subtype: "success" | string;
  duration_ms: number;
  duration_api_ms?: number;
  is_error: boolean;
  /** The concatenation of every assistant text segment of the run. */
  result: string;
  session_id: string;
  request_id?: string;
  /** 2026.09+. */
  usage?: { inputTokens: number; outputTokens: number; cacheReadTokens?: number; cacheWriteTokens?: number };
  error?: string;
}
/** What every record may carry: its type, subtype, session and time. */
interface CursorEnvelope {
  type: string;
  subtype?: string;
  session_id?: string;
  timestamp_ms?: number;
}

const API_KEY_SOURCES = new Set(["env", "flag", "login"]);

/** Tool kind from the `tool_call` key (`shellToolCall` → `shell`). */
function toolKind(name: string): ToolKind {
  switch (name) {
    case "shell":
      return "command";
    case "read":
    case "ls":
      return "file_read";
    case "write":
      return "file_write";
    case "edit":
    case "delete":
    case "applyPatch":
      return "file_edit";
    case "glob":
    case "grep":
    case "semSearch":
      return "search";
    case "webSearch":
      return "web_search";
    case "webFetch":
      return "web_fetch";
    case "updateTodos":
    case "todoWrite":
      return "todo";
    case "mcp":
      return "mcp";
    case "task":
      return "subagent";
    default:
      return "other";
  }
}

/** The one kind-keyed entry of a `tool_call` object: its key, name and body. */
function toolEntry(
  toolCall: Wire<Record<string, CursorToolBody>> | undefined,
): { key: string; body: Wire<CursorToolBody> | undefined } | undefined {
  if (toolCall === undefined) return undefined;
  for (const key of Object.keys(toolCall)) {
    const body = fieldObj(toolCall, key);
    if (body !== undefined) return { key, body };
  }
  return undefined;
}

/** Texts of `message.content[]` joined. */
function messageText(v: Wire<CursorUser | CursorAssistant>): string {
  const parts: string[] = [];
  for (const block of fieldItems(fieldObj(v, "message"), "content")) {
    const text = fieldStr(block, "text");
    if (text !== undefined && (fieldStr(block, "type") ?? "text") === "text") parts.push(text);
  }
  return parts.join("");
}

/** Cursor `updateTodos` statuses may be enum-like (`TODO_STATUS_IN_PROGRESS`) or plain (`in_progress`). */
function planItems(args: JsonValue | undefined): PlanItem[] | undefined {
  const wired = asWire<CursorToolArgs>(args);
  if (fieldArr(wired, "todos") === undefined) return undefined;
  const items: PlanItem[] = [];
  for (const todo of fieldItems(wired, "todos")) {
    const text = fieldStr(todo, "content") ?? fieldStr(todo, "text");
    if (text === undefined) continue;
    const status = (fieldStr(todo, "status") ?? "").toLowerCase().replace(/^todo_status_/, "");
    items.push({
      text,
      status: status === "in_progress" ? "in_progress" : status === "completed" || status === "cancelled" ? "completed" : "pending",
    });
  }
  return items;
}

function detect(record: Parameters<Dialect["detect"]>[0]): boolean {
  if (record.kind !== "json") return false;
  const v = record.value;
  switch (v.type) {
    case "system":
      // Claude Code's init also has apiKeySource and permissionMode, but with "none" or a key name, and a tools list,
      // claude_code_version and uuid; Cursor's init has exactly these six keys.
      return (
        v.subtype === "init" &&
        typeof v.apiKeySource === "string" &&
        API_KEY_SOURCES.has(v.apiKeySource) &&
        typeof v.session_id === "string" &&
        v.tools === undefined &&
        v.uuid === undefined &&
        v.claude_code_version === undefined &&
        v.mcp_servers === undefined
      );
    case "tool_call":
      return typeof v.call_id === "string" && obj(v, "tool_call") !== undefined;
    case "thinking":
      return (v.subtype === "delta" || v.subtype === "completed") && typeof v.session_id === "string";
    case "assistant":
      return typeof v.model_call_id === "string" && typeof v.session_id === "string";
    default:
      return false;
  }
}

/** Cursor Agent CLI stream (`cursor-agent -p --output-format stream-json`). */
export const cursor: Dialect = {
  startsSession: claudeStreamOpening,
  name: "cursor",
  description: "Cursor Agent CLI: cursor-agent -p --output-format stream-json [--stream-partial-output]",
  detect,
  createDecoder: createCursorDecoder,
};

function createCursorDecoder(): DialectDecoder {
  const decoding = new CursorStream();
  return {
    decode(record, context) {
      if (record.kind !== "json") return [];
      return decoding.decodeJson(record.value, context);
    },
    end() {
      return [
        ...decoding.closeThinking(undefined, undefined),
        ...decoding.completeSegment(undefined, undefined),
        ...decoding.state.closeAll(),
      ];
    },
  };
}

/** One stream's decoding state, and the handlers that read and update it. */
class CursorStream {
  readonly state = createStreamState();
  rootId: string | undefined;
  rootStarted = false;
  readonly children = new Set<string>();
  /** Open text segment fed by partial deltas; `interrupted` once a tool call or thinking came after it. */
  segment: { id: string; interrupted: boolean } | undefined;
  /** Texts of the segments already completed since the user spoke, for a cumulative final recap. */
  turnTexts: string[] = [];
  thinkingId: string | undefined;
  readonly openSubagents: string[] = [];

  completeSegment(text: string | undefined, time: string | undefined): AgentEventDraft[] {
    if (this.segment === undefined) return [];
    const id = this.segment.id;
    this.segment = undefined;
    const out = this.state.complete(id, text, "assistant", "text", { time });
    const last = out[out.length - 1];
    if (last?.type === "message.completed") this.turnTexts.push(last.text);
    return out;
  }

  closeThinking(text: string | undefined, time: string | undefined): AgentEventDraft[] {
    if (this.thinkingId === undefined) return [];
    const id = this.thinkingId;
    this.thinkingId = undefined;
    return this.state.complete(id, text, "assistant", "reasoning", { time });
  }

  /** Events for a record of another session (a subagent): its own session.started, once, linked to the open task call. */
  sessionFor(v: Wire<CursorEnvelope>, out: AgentEventDraft[]): string | undefined {
    const sid = fieldStr(v, "session_id");
    if (sid === undefined || this.rootId === undefined || sid === this.rootId) return undefined;
    if (!this.children.has(sid)) {
      this.children.add(sid);
      const parentToolCallId = this.openSubagents.length === 1 ? this.openSubagents[0] : undefined;
      out.push(
        compact({
          type: "session.started" as const,
          agent: "cursor-agent",
          sessionId: sid,
          parentSessionId: this.rootId,
          parentToolCallId,
          time: isoFromEpochMs(fieldNum(v, "timestamp_ms")),
        }),
      );
    }
    return sid;
  }

  assistant(v: Wire<CursorAssistant>, time: string | undefined): AgentEventDraft[] {
    const text = messageText(v);
    const isDelta = fieldNum(v, "timestamp_ms") !== undefined && fieldStr(v, "model_call_id") === undefined;
    if (isDelta) {
      // A partial delta after a tool call or thinking starts a new segment; the old one never got its settled copy.
      const out = this.segment?.interrupted === true ? this.completeSegment(undefined, time) : [];
      this.segment ??= { id: this.state.nextId("assistant"), interrupted: false };
      out.push(...this.state.delta(this.segment.id, text, "assistant", "text", { time }));
      return out;
    }
    if (this.segment !== undefined) {
      let settled = text;
      const before = this.turnTexts.join("");
      // cursor-agent 2026.08+ may send the final copy as the whole reply so far; the part after the earlier segments is this segment.
      if (before !== "" && settled.length > before.length && settled.startsWith(before)) settled = settled.slice(before.length);
      // cursor-agent --stream-partial-output re-sends the settled segment after its deltas; we give it the deltas' messageId, so it replaces them.
      return this.completeSegment(settled, time);
    }
    const out = this.state.complete(this.state.nextId("assistant"), text, "assistant", "text", { time });
    this.turnTexts.push(text);
    return out;
  }

  toolStarted(v: Wire<CursorToolCall>, time: string | undefined): AgentEventDraft[] {
    const toolCallId = fieldStr(v, "call_id") ?? this.state.nextId("tool");
    const entry = toolEntry(fieldObj(v, "tool_call"));
    const key = entry?.key ?? "unknown";
    const body = entry?.body;
    const fn = key === "function" ? body : undefined;
    const name = fn !== undefined ? (fieldStr(fn, "name") ?? "function") : key.replace(/ToolCall$/, "");
    const kind = fn !== undefined ? "other" : toolKind(name);
    const args = fn !== undefined ? field(fn, "arguments") : field(body, "args");
    const out: AgentEventDraft[] = [];
    if (this.state.toolName(toolCallId) !== undefined) return out; // started twice: keep the first
    // mcpToolCall args name the MCP tool (toolName) and its server (providerIdentifier).
    const mcpArgs = kind === "mcp" ? asWire<CursorToolArgs>(args) : undefined;
    const toolName = (mcpArgs !== undefined ? (fieldStr(mcpArgs, "toolName") ?? fieldStr(mcpArgs, "name")) : undefined) ?? name;
    const server = mcpArgs !== undefined ? (fieldStr(mcpArgs, "providerIdentifier") ?? fieldStr(mcpArgs, "serverName")) : undefined;
    this.state.toolStarted(toolCallId, toolName);
    if (kind === "subagent") this.openSubagents.push(toolCallId);
    out.push(
      compact({
        type: "tool.started" as const,
        toolCallId,
        name: toolName,
        kind,
        input: args,
        server,
        description: fieldStr(body, "description"),
        time,
      }),
    );
    if (kind === "todo") {
      const items = planItems(args);
      if (items !== undefined) out.push(compact({ type: "plan.updated" as const, items, time }));
    }
    return out;
  }

  toolCompleted(v: Wire<CursorToolCall>, time: string | undefined): AgentEventDraft[] {
    const toolCallId = fieldStr(v, "call_id") ?? this.state.nextId("tool");
    const out: AgentEventDraft[] = [];
    if (this.state.toolName(toolCallId) === undefined) out.push(...this.toolStarted(v, time));
    if (!this.state.toolCompleted(toolCallId)) return out; // completed twice
    const index = this.openSubagents.indexOf(toolCallId);
    if (index >= 0) this.openSubagents.splice(index, 1);
    const entry = toolEntry(fieldObj(v, "tool_call"));
    const body = entry?.body;
    const name = this.state.toolName(toolCallId);
    const result = fieldObj(body, "result");
    const success = fieldObj(result, "success");
    const failure = fieldObj(result, "error") ?? fieldObj(result, "failure");
    const rejected = fieldObj(result, "rejected");
    let output: string | undefined;
    let isError: boolean;
    let exitCode: number | undefined;
    if (success !== undefined) {
      exitCode = fieldNum(success, "exitCode");
      // A shell command that ran but exited non-zero is reported under `success`; we mark it as an error by its exit code.
      isError = exitCode !== undefined && exitCode !== 0;
      output =
        fieldStr(success, "interleavedOutput") ||
        [fieldStr(success, "stdout"), fieldStr(success, "stderr")].filter((s) => s !== undefined && s !== "").join("\n") ||
        undefined;
      output ??= fieldStr(success, "content") ?? fieldStr(success, "diffString");
      // A shell command that printed nothing has an empty output, not the result object in its place.
      if (output === undefined && (fieldStr(success, "stdout") !== undefined || fieldStr(success, "interleavedOutput") !== undefined))
        output = "";
    } else if (rejected !== undefined) {
      isError = true;
      output = fieldStr(rejected, "reason") ?? "rejected";
    } else if (failure !== undefined) {
      isError = true;
      output = fieldStr(failure, "message") ?? fieldStr(failure, "error") ?? textOf(failure);
    } else {
      isError = fieldBool(result, "isError") === true;
      output = result === undefined ? undefined : textOf(result);
    }
    out.push(
      compact({
        type: "tool.completed" as const,
        toolCallId,
        name,
        output,
        result,
        exitCode,
        isError,
        durationMs: fieldNum(success, "executionTime"),
        time,
      }),
    );
    if (success !== undefined && !isError && name !== undefined) {
      const kind = toolKind(name);
      const args = fieldObj(body, "args");
      const path = fieldStr(success, "path") ?? fieldStr(args, "path");
      if (path !== undefined && (kind === "file_write" || kind === "file_edit")) {
        const change: FileChange =
          name === "delete"
            ? { path, kind: "delete" }
            : compact({
                path,
                kind: "update" as const,
                diff: fieldStr(success, "diffString") ?? (kind === "file_write" ? fieldStr(args, "fileText") : undefined),
              });
        out.push(compact({ type: "file.changed" as const, changes: [change], toolCallId, status: "success" as const, time }));
      }
    }
    return out;
  }

  /** The root session's init (session.started) or its repeat (a notice): true when handled; a subagent's init is not. */
  init(v: JsonObject, time: string | undefined, out: AgentEventDraft[]): boolean {
    const init: Wire<CursorInit> = v;
    const sid = fieldStr(init, "session_id");
    if (!this.rootStarted) {
      this.rootStarted = true;
      this.rootId = sid;
      const { type: _t, subtype: _s, session_id: _i, model: _m, cwd: _c, permissionMode: _p, ...rest } = v;
      out.push(
        compact({
          type: "session.started" as const,
          agent: "cursor-agent",
          model: fieldStr(init, "model"),
          cwd: fieldStr(init, "cwd"),
          sessionId: sid,
          permissionMode: fieldStr(init, "permissionMode"),
          details: Object.keys(rest).length > 0 ? rest : undefined,
          time,
        }),
      );
      return true;
    }
    if (sid === this.rootId || sid === undefined) {
      // A second init for the same session (a resumed run appended to the capture).
      out.push(
        compact({
          type: "notice" as const,
          kind: "init",
          level: "info" as const,
          text: "cursor-agent initialised again",
          details: v,
          time,
        }),
      );
      return true;
    }
    return false;
  }

  /** The `result` record: the session ends, with its usage and final text. */
  sessionCompleted(v: Wire<CursorResult>, time: string | undefined): AgentEventDraft {
    const isError = fieldBool(v, "is_error") === true || (fieldStr(v, "subtype") !== undefined && fieldStr(v, "subtype") !== "success");
    const u = fieldObj(v, "usage");
    const usage =
      u === undefined
        ? undefined
        : usageFrom({
            inputTokens: fieldNum(u, "inputTokens"),
            outputTokens: fieldNum(u, "outputTokens"),
            cacheReadTokens: fieldNum(u, "cacheReadTokens"),
            cacheWriteTokens: fieldNum(u, "cacheWriteTokens"),
          });
    const resultText = fieldStr(v, "result");
    const details = compact({
      durationApiMs: fieldNum(v, "duration_api_ms"),
      requestId: fieldStr(v, "request_id"),
      subtype: fieldStr(v, "subtype"),
    });
    return compact({
      type: "session.completed" as const,
      status: isError ? ("error" as const) : ("success" as const),
      error: isError ? (resultText ?? fieldStr(v, "error") ?? "cursor-agent reported an error") : undefined,
      finalText: isError ? undefined : resultText,
      usage,
      durationMs: fieldNum(v, "duration_ms"),
      details: details as JsonObject,
      time,
    });
  }

  decodeJson(v: JsonObject, context: DecodeContext): AgentEventDraft[] {
    const envelope: Wire<CursorEnvelope> = v;
    const time = isoFromEpochMs(fieldNum(envelope, "timestamp_ms"));
    const out: AgentEventDraft[] = [];
    if (v.type === "system" && v.subtype === "init" && this.init(v, time, out)) return out;
    const child = this.sessionFor(v, out);
    const tag = (drafts: AgentEventDraft[]): AgentEventDraft[] => {
      if (child !== undefined) for (const d of drafts) out.push(d.sessionId === undefined ? { ...d, sessionId: child } : d);
      else out.push(...drafts);
      return out;
    };
    switch (v.type) {
      case "system":
        // Another system record of a subagent session, or an init of a subagent: its session.started is already out.
        return tag([
          compact({
            type: "notice" as const,
            kind: fieldStr(envelope, "subtype") ?? "system",
            level: "info" as const,
            text: `cursor-agent system ${fieldStr(envelope, "subtype") ?? ""}`.trim(),
            details: v,
            time,
          }),
        ]);
      case "user": {
        this.turnTexts = [];
        const drafts = [
          ...this.closeThinking(undefined, time),
          ...this.completeSegment(undefined, time),
          ...this.state.complete(this.state.nextId("user"), messageText(v), "user", "text", { time }),
        ];
        return tag(drafts);
      }
      case "assistant":
        return tag([...this.closeThinking(undefined, time), ...this.assistant(v, time)]);
      case "thinking": {
        const thinking: Wire<CursorThinking> = v;
        if (this.segment !== undefined) this.segment.interrupted = true;
        if (v.subtype === "delta") {
          this.thinkingId ??= this.state.nextId("thinking");
          return tag(this.state.delta(this.thinkingId, fieldStr(thinking, "text") ?? "", "assistant", "reasoning", { time }));
        }
        if (v.subtype === "completed") {
          // thinking/completed carries no text (the deltas had it); one without deltas is an empty reasoning message.
          this.thinkingId ??= this.state.nextId("thinking");
          return tag(this.closeThinking(fieldStr(thinking, "text"), time));
        }
        break;
      }
      case "tool_call": {
        if (this.segment !== undefined) this.segment.interrupted = true;
        const pre = this.closeThinking(undefined, time);
        if (v.subtype === "started") return tag([...pre, ...this.toolStarted(v, time)]);
        if (v.subtype === "completed") return tag([...pre, ...this.toolCompleted(v, time)]);
        break;
      }
      case "result":
        return tag([...this.closeThinking(undefined, time), ...this.completeSegment(undefined, time), this.sessionCompleted(v, time)]);
      default:
        break;
    }
    context.report({
      code: "unknown-record",
      message: `unknown cursor record ${JSON.stringify(v.type)}${v.subtype === undefined ? "" : `/${JSON.stringify(v.subtype)}`}`,
    });
    out.push(
      unknownRecord(
        v,
        `unknown record type ${JSON.stringify(v.type)}${v.subtype === undefined ? "" : ` subtype ${JSON.stringify(v.subtype)}`}`,
      ),
    );
    return out;
  }
}
