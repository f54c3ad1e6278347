// Source: gemini -p "<prompt>" --output-format stream-json (google-gemini/gemini-cli); versions and quirks: docs/dialects/gemini.md
import type { AgentEventDraft, FileChange, JsonObject, JsonValue, PlanItem, SessionStatus, ToolKind } from "../../model/events.ts";
import { usageFrom } from "../../model/usage.ts";
import type { TextRecord } from "../../framing/ndjson/create-ndjson-parser.ts";
import type { DecodeContext, Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { compact, num, obj, str } from "../../dialect/json.ts";
import { asWire, field, fieldArr, fieldBool, fieldItems, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import { createStreamState } from "../../dialect/messages.ts";

/** Fields every stream-json event carries. */
interface GeminiEventBase {
  type: string;
  /** ISO 8601. */
  timestamp?: string;
}
interface GeminiInit extends GeminiEventBase {
  type: "init";
  session_id: string;
  model: string;
}
interface GeminiMessage extends GeminiEventBase {
  type: "message";
  role: "user" | "assistant";
  content: string;
  /** True on streamed assistant chunks: concatenate them. */
  delta?: boolean;
}
interface GeminiToolUse extends GeminiEventBase {
  type: "tool_use";
  tool_name: string;
  /** `read_file-<ms>-<hex>` (≤0.28), `read_file_<ms>_<n>` (0.29+), `<name>__…` (0.43+): opaque. */
  tool_id: string;
  parameters: JsonObject;
}
interface GeminiToolResult extends GeminiEventBase {
  type: "tool_result";
  tool_id: string;
  status: "success" | "error";
  /** The tool's display string (`resultDisplay`), often "" or absent. */
  output?: string;
  error?: { type: string; message: string };
}
interface GeminiError extends GeminiEventBase {
  type: "error";
  severity: "warning" | "error";
  message: string;
}
interface GeminiStats {
  total_tokens: number;
  /** Prompt tokens, cached ones included. */
  input_tokens: number;
  output_tokens: number;
  /** 0.22+: the cached part of input_tokens. */
  cached?: number;
  /** 0.22+: the non-cached part of input_tokens. */
  input?: number;
  duration_ms: number;
  tool_calls: number;
  /** 0.34+: the same figures per model. */
  models?: Record<string, JsonObject>;
}
interface GeminiResult extends GeminiEventBase {
  type: "result";
  status: "success" | "error";
  error?: { type: string; message: string };
  stats?: GeminiStats;
}
/** The tool arguments the decoder looks into (file tools, write_todos); shared with gemini-session. */
interface GeminiToolArgs {
  file_path?: string;
  /** Older file tools. */
  absolute_path?: string;
  path?: string;
  content?: string;
  todos?: GeminiTodo[];
}
/** A write_todos item. */
interface GeminiTodo {
  description?: string;
  content?: string;
  status?: string;
}
/** The records this decoder reads. */
type GeminiStreamRecord = GeminiInit | GeminiMessage | GeminiToolUse | GeminiToolResult | GeminiError | GeminiResult;

/** What a Gemini CLI built-in tool does; names from packages/core/src/tools. Shared with gemini-session. */
export function geminiToolKind(name: string): ToolKind {
  switch (name) {
    case "run_shell_command":
      return "command";
    case "read_file":
    case "read_many_files":
    case "list_directory":
      return "file_read";
    case "write_file":
      return "file_write";
    case "replace":
    case "edit":
      return "file_edit";
    case "glob":
    case "search_file_content":
    case "grep_search":
      return "search";
    case "google_web_search":
      return "web_search";
    case "web_fetch":
      return "web_fetch";
    case "write_todos":
      return "todo";
    case "delegate_to_agent":
    case "codebase_investigator":
      return "subagent";
    default:
      return "other";
  }
}

/** The file a Gemini file tool touched, from its arguments (`file_path`, older `absolute_path`). */
function filePath(args: JsonValue | undefined): string | undefined {
  const wired = asWire<GeminiToolArgs>(args);
  return fieldStr(wired, "file_path") ?? fieldStr(wired, "absolute_path") ?? fieldStr(wired, "path");
}

/** `file.changed` for a successful write_file / replace call; `diff` is a unified diff when the agent gave one. */
export function geminiFileChange(
  name: string,
  args: JsonValue | undefined,
  toolCallId: string,
  diff?: string,
): AgentEventDraft | undefined {
  const kind = geminiToolKind(name);
  if (kind !== "file_write" && kind !== "file_edit") return undefined;
  const path = filePath(args);
  if (path === undefined) return undefined;
  // write_file overwrites or creates and does not say which; we call it an update and keep the new content as the diff.
  const change: FileChange = compact({
    path,
    kind: "update" as const,
    diff: diff ?? (kind === "file_write" ? fieldStr(asWire<GeminiToolArgs>(args), "content") : undefined),
  });
  return { type: "file.changed", changes: [change], toolCallId, status: "success" };
}

/** `plan.updated` for a write_todos call (`todos[{description, status}]`); cancelled items count as completed. */
export function geminiPlan(name: string, args: JsonValue | undefined, time: string | undefined): AgentEventDraft | undefined {
  if (name !== "write_todos") return undefined;
  const wired = asWire<GeminiToolArgs>(args);
  if (fieldArr(wired, "todos") === undefined) return undefined;
  const items: PlanItem[] = [];
  for (const todo of fieldItems(wired, "todos")) {
    const text = fieldStr(todo, "description") ?? fieldStr(todo, "content");
    if (text === undefined) continue;
    const status = fieldStr(todo, "status");
    items.push({
      text,
      status: status === "in_progress" ? "in_progress" : status === "completed" || status === "cancelled" ? "completed" : "pending",
    });
  }
  return compact({ type: "plan.updated" as const, items, time });
}

// Gemini CLI prints these on stderr (or merged stdout) before or instead of the JSON; specific enough not to claim other agents' text.
const BANNER =
  /^(?:YOLO mode is enabled\. All tool calls will be automatically approved\.|Ripgrep is not available\. Falling back to GrepTool\.|Loaded cached credentials\.|Error when talking to Gemini API\b)/;
// packages/core/src/utils/errorReporting.ts: "Error when talking to Gemini API Full report available at: <path> <ErrorClass>: <message>".
const API_ERROR = /^Error when talking to Gemini API(?: Full report available at: \S+)?\s*(.*)$/;

function detect(record: Parameters<Dialect["detect"]>[0]): boolean {
  if (record.kind === "text") return BANNER.test(record.text);
  const v = record.value;
  switch (v.type) {
    case "init":
      return typeof v.session_id === "string" && typeof v.model === "string";
    case "tool_use":
      return typeof v.tool_name === "string" && typeof v.tool_id === "string";
    case "tool_result":
      return typeof v.tool_id === "string" && typeof v.status === "string";
    case "result":
      return typeof v.status === "string" && obj(v, "stats") !== undefined && num(obj(v, "stats"), "total_tokens") !== undefined;
    default:
      return false;
  }
}

function sessionStatus(status: string | undefined, errorType: string | undefined): SessionStatus {
  if (status === "success") return "success";
  if (errorType === "FatalCancellationError" || status === "cancelled") return "interrupted";
  return "error";
}

/** Gemini CLI headless stream (`--output-format stream-json`). */
export const gemini: Dialect = {
  name: "gemini",
  description: "Gemini CLI: gemini -p --output-format stream-json",
  detect,
  startsSession(record) {
    if (record.kind !== "json" || record.value.type !== "init") return undefined;
    const sessionId = str(record.value, "session_id");
    return sessionId === undefined ? {} : { sessionId };
  },
  // Gemini's stderr (YOLO banner, API errors, stack traces) often lands in the capture; we read it to surface the error.
  readsText: true,
  createDecoder: createGeminiDecoder,
};

function createGeminiDecoder(): DialectDecoder {
  const decoding = new GeminiStream();
  return {
    decode(record, context) {
      // A JSON-looking line the framer rejected was reported already; it is not Gemini text.
      if (record.kind === "text") return record.invalid === true ? [] : decoding.text(record);
      decoding.sawJson = true;
      return decoding.decodeJson(record.value, context);
    },
    end() {
      return [...decoding.closeAssistant(undefined), ...decoding.state.closeAll()];
    },
  };
}

/** One stream's decoding state, and the handlers that read and update it. */
class GeminiStream {
  readonly state = createStreamState();
  assistantId: string | undefined;
  sawJson = false;
  lastError: string | undefined;
  /** Arguments of open file and todo tools, for file.changed at their result. */
  readonly fileArgs = new Map<string, JsonValue>();

  closeAssistant(time: string | undefined): AgentEventDraft[] {
    if (this.assistantId === undefined) return [];
    const id = this.assistantId;
    this.assistantId = undefined;
    return this.state.isOpen(id) ? this.state.complete(id, undefined, "assistant", "text", { time }) : [];
  }

  text(record: TextRecord): AgentEventDraft[] {
    const out: AgentEventDraft[] = [{ type: "text", text: record.text, position: this.sawJson ? "interleaved" : "preamble" }];
    const match = API_ERROR.exec(record.text);
    if (match !== null) {
      const detail = (match[1] ?? "").trim();
      const code = /^([A-Za-z]+Error):/.exec(detail)?.[1];
      // gemini-cli reports a turn's API failure this way once retries are spent; in -p mode the run ends, so it is fatal.
      out.push(
        compact({ type: "error" as const, scope: "api" as const, message: detail === "" ? record.text : detail, code, fatal: true }),
      );
    }
    return out;
  }

  decodeJson(v: JsonObject, context: DecodeContext): AgentEventDraft[] {
    const time = fieldStr(asWire<GeminiStreamRecord>(v), "timestamp");
    switch (v.type) {
      case "init": {
        const init: Wire<GeminiInit> = v;
        return [
          compact({
            type: "session.started" as const,
            agent: "gemini-cli",
            model: fieldStr(init, "model"),
            sessionId: fieldStr(init, "session_id"),
            time,
          }),
        ];
      }
      case "message": {
        const message: Wire<GeminiMessage> = v;
        const role = fieldStr(message, "role");
        const content = fieldStr(message, "content") ?? "";
        if (role === "assistant") {
          if (fieldBool(message, "delta") === true) {
            this.assistantId ??= this.state.nextId("assistant");
            return this.state.delta(this.assistantId, content, "assistant", "text", { time });
          }
          return [
            ...this.closeAssistant(time),
            ...this.state.complete(this.state.nextId("assistant"), content, "assistant", "text", { time }),
          ];
        }
        // The user message echoes the prompt (piped stdin included).
        return [
          ...this.closeAssistant(time),
          ...this.state.complete(this.state.nextId("user"), content, role === "system" ? "system" : "user", "text", { time }),
        ];
      }
      case "tool_use": {
        const toolUse: Wire<GeminiToolUse> = v;
        const toolCallId = fieldStr(toolUse, "tool_id") ?? this.state.nextId("tool");
        const name = fieldStr(toolUse, "tool_name") ?? "unknown";
        const input = field(toolUse, "parameters");
        const out = this.closeAssistant(time);
        this.state.toolStarted(toolCallId, name);
        if (input !== undefined && geminiToolKind(name).startsWith("file_")) this.fileArgs.set(toolCallId, input);
        out.push(compact({ type: "tool.started" as const, toolCallId, name, kind: geminiToolKind(name), input, time }));
        const plan = geminiPlan(name, input, time);
        if (plan !== undefined) out.push(plan);
        return out;
      }
      case "tool_result": {
        const result: Wire<GeminiToolResult> = v;
        const toolCallId = fieldStr(result, "tool_id") ?? this.state.nextId("tool");
        const out = this.closeAssistant(time);
        let name = this.state.toolName(toolCallId);
        if (name === undefined) {
          // A result whose tool_use we never saw (cut stream): start it so the pair stays valid.
          name = "unknown";
          out.push(compact({ type: "tool.started" as const, toolCallId, name, time }));
        }
        this.state.toolCompleted(toolCallId);
        const error = fieldObj(result, "error");
        const isError = fieldStr(result, "status") !== "success";
        // tool_result.output is the display string: "" for read_file, absent for write_file; the real output is only in the session file.
        const display = fieldStr(result, "output");
        const output = display === undefined || display === "" ? (fieldStr(error, "message") ?? display) : display;
        out.push(compact({ type: "tool.completed" as const, toolCallId, name, output, result: error, isError, time }));
        const args = this.fileArgs.get(toolCallId);
        this.fileArgs.delete(toolCallId);
        if (!isError) {
          const change = geminiFileChange(name, args, toolCallId);
          if (change !== undefined) out.push(time === undefined ? change : { ...change, time });
        }
        return out;
      }
      case "error": {
        const failure: Wire<GeminiError> = v;
        const message = fieldStr(failure, "message") ?? "unknown error";
        const out = this.closeAssistant(time);
        if (fieldStr(failure, "severity") === "warning") {
          out.push(compact({ type: "notice" as const, kind: "warning", level: "warning" as const, text: message, time }));
          return out;
        }
        // gemini-cli (2026) sends a late model failure as this event, then a result with status "error" and no error object.
        this.lastError = message;
        out.push(compact({ type: "error" as const, scope: "turn" as const, message, time }));
        return out;
      }
      case "result":
        return this.result(v, time);
      default:
        context.report({ code: "unknown-record", message: `unknown gemini record type ${JSON.stringify(v.type)}` });
        return [unknownRecord(v, `unknown record type ${JSON.stringify(v.type)}`)];
    }
  }

  /** The `result` record: the session ends, with its usage and stats. */
  result(final: Wire<GeminiResult>, time: string | undefined): AgentEventDraft[] {
    const out = this.closeAssistant(time);
    const stats = fieldObj(final, "stats");
    const error = fieldObj(final, "error");
    const errorType = fieldStr(error, "type");
    const status = sessionStatus(fieldStr(final, "status"), errorType);
    const usage =
      stats === undefined
        ? undefined
        : usageFrom({
            inputTokens: fieldNum(stats, "input_tokens"),
            outputTokens: fieldNum(stats, "output_tokens"),
            cacheReadTokens: fieldNum(stats, "cached"),
          });
    const details = compact({
      totalTokens: fieldNum(stats, "total_tokens"),
      toolCalls: fieldNum(stats, "tool_calls"),
      models: fieldObj(stats, "models"),
      errorType,
    });
    out.push(
      compact({
        type: "session.completed" as const,
        status,
        error: status === "success" ? undefined : (fieldStr(error, "message") ?? this.lastError),
        usage,
        durationMs: fieldNum(stats, "duration_ms"),
        details: Object.keys(details).length > 0 ? (details as JsonObject) : undefined,
        time,
      }),
    );
    return out;
  }
}
