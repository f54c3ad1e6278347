// Source: `claude -p "<prompt>" --output-format stream-json --verbose [--include-partial-messages]`; versions and quirks: docs/dialects/claude.md
import type {
  AgentEventDraft,
  FileChange,
  JsonObject,
  JsonValue,
  MessageKind,
  PlanItem,
  SessionStatus,
  ToolKind,
  Usage,
} from "../../model/events.ts";
import { AgentStreamError } from "../../errors.ts";
import type { InputRecord } from "../../framing/ndjson/create-ndjson-parser.ts";
import type { DecodeContext, Dialect, DialectDecoder, SessionOpening } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { arr, at, compact, get, num, obj, str } from "../../dialect/json.ts";
import { createStreamState } from "../../dialect/messages.ts";
import { asWire, field, fieldArr, fieldBool, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import { isoFromEpochSeconds } from "../../dialect/time.ts";
import { dispatch, handlers } from "../../dialect/handlers.ts";
import { type ContentBlock, type WireUsage, anthropicUsage, classifyTool, contentText, count, planStatus, unifiedDiff } from "./wire.ts";
import { RecentMap } from "../../dialect/recent-map.ts";

// ---------------------------------------------------------------------------------------------
// Wire types: the Agent SDK's `SDKMessage` union as the CLI prints it (one object per line).
// ---------------------------------------------------------------------------------------------

/** Fields on (nearly) every line. `parent_tool_use_id` is an explicit `null` on main-agent lines. */
interface Envelope {
  type: string;
  session_id?: string;
  uuid?: string;
  parent_tool_use_id?: string | null;
  /** ISO time on `assistant`/`user` lines since 2.1.x. */
  timestamp?: string;
}

/** `system`/`init`; Qwen Code writes `permission_mode` and `qwen_code_version` instead. */
interface SystemInit extends Envelope {
  subtype: "init";
  cwd?: string;
  model?: string;
  tools?: string[];
  mcp_servers?: { name: string; status: string }[];
  permissionMode?: string;
  permission_mode?: string;
  claude_code_version?: string;
  apiKeySource?: string;
}

/** `system`/`hook_started` | `hook_progress` | `hook_response` (and any later `hook_*`). */
interface SystemHook extends Envelope {
  hook_id?: string;
  hook_name?: string;
  hook_event?: string;
  output?: string;
  stdout?: string;
  stderr?: string;
  exit_code?: number;
  outcome?: "success" | "error" | "cancelled";
}

/** `system`/`api_retry`. */
interface SystemApiRetry extends Envelope {
  attempt: number;
  max_retries?: number;
  retry_delay_ms?: number;
  error_status?: number | null;
  error?: string;
}

/** `system`/`task_started` | `task_progress` | `task_updated` | `task_notification`. */
interface SystemTask extends Envelope {
  task_id?: string;
  tool_use_id?: string;
  description?: string;
  subagent_type?: string;
  task_type?: string;
  prompt?: string;
  last_tool_name?: string;
  patch?: { status?: string; end_time?: number };
  status?: string;
  summary?: string;
  output_file?: string;
  usage?: { total_tokens?: number; tool_uses?: number; duration_ms?: number };
}

/** An API error as an object (api_retry `error` in some versions). */
interface ApiErrorObject {
  message?: string;
}

/** Any `system` line as the reader sees it: the fields of its subtypes, every one optional. */
type SystemRecord = Partial<Omit<SystemInit, "subtype">> &
  SystemHook &
  Partial<Omit<SystemApiRetry, "error">> &
  SystemTask & {
    subtype?: string;
    /** api_retry: a string, or an API error object in some versions. */
    error?: string | ApiErrorObject;
    /** Qwen Code's version key. */
    qwen_code_version?: string;
    /** thinking_tokens. */
    estimated_tokens?: number;
    /** compact_boundary. */
    compact_metadata?: { trigger?: string; pre_tokens?: number };
    /** Other subtypes' text. */
    message?: string;
    content?: string;
  };

/** `user.tool_use_result`: the tool's own result object (Bash, Write, Edit, Agent, TaskCreate fields). */
interface ToolUseResult {
  type?: string;
  status?: string;
  content?: JsonValue;
  exitCode?: number;
  exit_code?: number;
  durationMs?: number;
  duration_ms?: number;
  totalDurationMs?: number;
  totalTokens?: number;
  totalToolUseCount?: number;
  agentId?: string;
  usage?: WireUsage;
  filePath?: string;
  structuredPatch?: JsonValue[];
  task?: { id?: string };
}

/** The tool inputs the decoder looks into: a description, TodoWrite's list, TaskCreate/TaskUpdate, a written file. */
interface ToolInput {
  description?: string;
  todos?: TodoItem[];
  subject?: string;
  status?: string;
  taskId?: string;
  file_path?: string;
  path?: string;
  notebook_path?: string;
  absolute_path?: string;
  content?: string;
}

/** A TodoWrite item (Claude: `content`; the compatible agents: `text` or `description`). */
interface TodoItem {
  content?: string;
  text?: string;
  description?: string;
  status?: string;
}

/** The other lines: `tool_use_summary`, `prompt_suggestion`, `control_*`, with the envelope. */
interface OtherRecord extends Envelope {
  summary?: string;
  suggestion?: string;
  request?: { subtype?: string };
}

/** What tells which session a line belongs to. */
interface SessionFields extends Envelope {
  subagent_type?: string;
  task_description?: string;
}

/** An Anthropic API message: `assistant.message` and `stream_event` `message_start.message`. */
interface ApiMessage {
  id?: string;
  model?: string;
  role?: string;
  content?: ContentBlock[] | string;
  stop_reason?: string | null;
  usage?: WireUsage;
}

/** `assistant`: one line per content block in 2.x (the lines of one API message share `message.id`). */
interface AssistantRecord extends Envelope {
  message: ApiMessage;
  /** API error code on the synthetic error message (`model_not_found`, `rate_limit`, ...). */
  error?: string;
  is_api_error_message?: boolean;
  /** The turn was interrupted; the message holds the partial text. */
  aborted?: boolean;
}

/** `user`: the prompt, tool results, subagent prompts. */
interface UserRecord extends Envelope {
  message: { role: "user"; content: string | ContentBlock[] };
  /** Tool-specific rich result: an object (Bash, Write, Edit, Agent), an array (MCP) or a string (errors). */
  tool_use_result?: JsonValue;
  isReplay?: boolean;
  subagent_type?: string;
  task_description?: string;
}

/** `stream_event` (`--include-partial-messages`): a raw Anthropic Messages SSE event. */
interface StreamEventRecord extends Envelope {
  event: StreamEvent;
  ttft_ms?: number;
}

/** A raw Anthropic Messages SSE event (and Qwen Code's `goal_state`). */
interface StreamEvent {
  type: string;
  index?: number;
  message?: ApiMessage;
  content_block?: ContentBlock;
  delta?: StreamDelta;
  usage?: WireUsage;
  error?: { type?: string; message?: string };
  goal_state?: { goal?: string; activity?: string };
}

/** `content_block_delta.delta` (text, thinking, signature, tool input, citation) and `message_delta.delta`. */
interface StreamDelta {
  type?: string;
  text?: string;
  thinking?: string;
  signature?: string;
  partial_json?: string;
  citation?: { cited_text?: string };
  stop_reason?: string | null;
}

/** `result`: the end of one query; `type` may come last in the key order (2.1.27x+). */
interface ResultRecord extends Envelope {
  subtype?:
    | "success"
    | "error_during_execution"
    | "error_max_turns"
    | "error_max_budget_usd"
    | "error_max_structured_output_retries"
    | string;
  is_error?: boolean;
  result?: string;
  errors?: string[];
  duration_ms?: number;
  duration_api_ms?: number;
  num_turns?: number;
  total_cost_usd?: number;
  /** Before 1.0.22. */
  total_cost?: number;
  usage?: WireUsage;
  modelUsage?: JsonObject;
  permission_denials?: JsonValue[];
  stop_reason?: string | null;
  terminal_reason?: "completed" | "max_turns" | "api_error" | "prompt_too_long" | "aborted_streaming" | "aborted_tools" | string;
  api_error_status?: number | null;
}

/** `rate_limit_event`. */
interface RateLimitRecord extends Envelope {
  rate_limit_info: { status?: string; resetsAt?: number; rateLimitType?: string; overageStatus?: string; isUsingOverage?: boolean };
}

/** `auth_status`: the CLI logging in. */
interface AuthStatusRecord extends Envelope {
  error?: string;
  output?: string[];
}

/** `tool_progress`. */
interface ToolProgressRecord extends Envelope {
  tool_use_id?: string;
  tool_name?: string;
  elapsed_time_seconds?: number;
  task_id?: string;
}

// Compile-time use of the wire types, so the key names read below stay in step with them.
type WireKey =
  | keyof SystemInit
  | keyof SystemHook
  | keyof SystemApiRetry
  | keyof SystemTask
  | keyof ApiMessage
  | keyof ContentBlock
  | keyof AssistantRecord
  | keyof UserRecord
  | keyof StreamEventRecord
  | keyof WireUsage
  | keyof ResultRecord
  | keyof RateLimitRecord
  | keyof ToolProgressRecord
  | keyof AuthStatusRecord;
const skip = (...keys: WireKey[]): ReadonlySet<string> => new Set(keys);

// ---------------------------------------------------------------------------------------------
// Variants: Amp and Qwen Code print the same shapes with a few differences.
// ---------------------------------------------------------------------------------------------

/** What differs between Claude Code and the agents that copy its stream-json (Amp, Qwen Code). */
/** terminal_reason values that mean the run failed (2.1.2xx); others with is_error false are successes. */
const ERROR_TERMINAL_REASONS = new Set(["api_error", "max_turns", "prompt_too_long", "max_budget_usd", "error_during_execution", "error"]);

export interface ClaudeVariant {
  /** `session.started.agent`: `claude-code`, `amp`, `qwen-code`. */
  readonly agent: string;
  /** Keys of `system/init` that carry the agent's version; the first present wins. */
  readonly versionKeys: readonly string[];
  /**
   * Emit each `assistant` line's `message.usage` as a `usage` event of scope `delta`. Only for agents
   * whose `result` carries no usage (Amp), where one line is one whole API message.
   */
  readonly perMessageUsage: boolean;
}

/** Claude Code itself. */
const CLAUDE_CODE: ClaudeVariant = { agent: "claude-code", versionKeys: ["claude_code_version"], perMessageUsage: false };

/** Tool names of Claude Code, Amp and Qwen Code (they differ, so one table serves all three). */
/** `system` subtypes the SDK declares as informational; each becomes a `notice` of that kind. */
const INFO_SUBTYPES = new Set([
  "files_persisted",
  "local_command_output",
  "session_state_changed",
  "elicitation_complete",
  "notification",
  "post_turn_summary",
  "tool_use_summary",
  "mcp_status",
  "informational",
  "session_start",
  "plugin_status",
  "memory_saved",
]);

/** Keys of a content block, a tool-use block: the ones that name a tool call. */
const TOOL_USE_BLOCKS = new Set(["tool_use", "server_tool_use", "mcp_tool_use"]);

/** Anthropic usage to the model's Usage; undefined when no figure is present. */
function usageOf(value: JsonValue | undefined): Usage | undefined {
  if (obj(value) === undefined) return undefined;
  const usage = anthropicUsage(value);
  return Object.values(usage).every((v) => v === null) ? undefined : usage;
}

/** A non-negative finite number, else undefined. */
function nonNegative(value: number | undefined): number | undefined {
  return value !== undefined && value >= 0 ? value : undefined;
}

/** Appends without spreading: `out.push(...drafts)` copies the array into arguments first. */
function pushAll(out: AgentEventDraft[], drafts: readonly AgentEventDraft[]): void {
  for (const draft of drafts) out.push(draft);
}

/** A non-empty string, else undefined. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

/** Every key of `o` except `without`, or undefined when nothing is left. `__proto__` is never copied. */
function rest(o: JsonObject | undefined, without: ReadonlySet<string>): JsonObject | undefined {
  if (o === undefined) return undefined;
  const out: JsonObject = {};
  let any = false;
  for (const key of Object.keys(o)) {
    if (without.has(key) || key === "__proto__") continue;
    const v = o[key];
    if (v === undefined) continue;
    out[key] = v;
    any = true;
  }
  return any ? out : undefined;
}

/** The object, or undefined when it has no keys (so an empty `details` stays absent). */
function filled(o: JsonObject): JsonObject | undefined {
  for (const _ in o) return o;
  return undefined;
}

/** An `unknown` event for a record or block no rule understands, in a session. */
function unknownIn(raw: JsonValue, reason: string, sessionId: string | undefined): AgentEventDraft {
  return sessionId === undefined ? unknownRecord(raw, reason) : { type: "unknown", raw, reason, sessionId };
}

/** How a `task_notification` status ends a subagent session; undefined when it does not say. */
function taskStatus(status: string | undefined): SessionStatus | undefined {
  if (status === "completed") return "success";
  if (status === "failed" || status === "error") return "error";
  if (status === "stopped" || status === "killed" || status === "cancelled" || status === "canceled" || status === "aborted")
    return "interrupted";
  return undefined;
}

/** A tool call as far as the stream has told it. */
interface ToolInfo {
  name: string;
  kind: ToolKind;
  input: JsonValue | undefined;
  sessionId: string | undefined;
  open: boolean;
}

/** One streamed content block (`content_block_start`), by API message and index. */
interface StreamedBlock {
  type: string;
  toolId: string | undefined;
  signature: string | undefined;
}

/** Block bookkeeping of one API message: which indices streamed, which an `assistant` line completed. */
interface ApiMessageState {
  streamed: Map<number, StreamedBlock>;
  done: Set<number>;
  /** Its message_stop was seen: a later message_start with the same id begins it afresh. */
  stopped?: boolean;
  /**
   * Streamed blocks completed at their `content_block_stop` (or the `message_stop`) because no
   * `assistant` line had completed them: index → the text they completed with. A late line for one
   * (Qwen writes them after `message_stop`) is matched here and adds nothing.
   */
  final?: Map<number, string>;
}

/** A subagent session, keyed by the parent's tool call id. */
interface ChildSession {
  sessionId: string;
  completed: boolean;
}

const INIT_SKIP = skip("type", "subtype", "session_id", "uuid", "cwd", "model", "permissionMode", "permission_mode");
const ENVELOPE_SKIP = skip("type", "session_id", "uuid", "parent_tool_use_id");
const SYSTEM_SKIP = skip("type", "subtype", "session_id", "uuid", "parent_tool_use_id");
const RESULT_SKIP = skip("type", "session_id", "uuid", "result", "total_cost_usd", "total_cost", "duration_ms", "num_turns");
const RATE_LIMIT_SKIP = new Set(["status", "resetsAt", "rateLimitType"]);
/** API messages whose block bookkeeping is kept (at least this many, the latest; `RecentMap`). */
const REMEMBERED_API_MESSAGES = 64;
/** Completed tool calls whose info is kept for late references; the oldest is released past this. */
const REMEMBERED_TOOLS = 1024;

/**
 * Creates the decoder for Claude Code stream-json and the agents that copy it (Amp, Qwen Code).
 * @example
 * const decoder = createClaudeDecoder(CLAUDE_CODE);
 */
export function createClaudeDecoder(variant: ClaudeVariant): DialectDecoder {
  const s = new ClaudeStream(variant);
  return {
    decode(record, context) {
      if (record.kind !== "json") return [];
      try {
        return s.decodeRecord(record.value, context);
      } catch (error) {
        // A strict read ends at its first issue (`context.report` throws it): that is no decoder bug.
        if (AgentStreamError.is(error)) throw error;
        // A decoder must never throw; a bug here keeps the record as unknown and says why.
        const message = error instanceof Error ? error.message : String(error);
        context.report({ code: "unknown-record", severity: "error", message: `decoder failed on this record: ${message}` });
        return [unknownRecord(record.value, `decoder failed: ${message}`)];
      }
    },
    end() {
      const out: AgentEventDraft[] = [];
      for (const [turnId, sessionId] of s.openTurns) out.push(compact({ type: "turn.completed" as const, turnId, sessionId }));
      s.openTurns.clear();
      out.push(...s.state.closeAll());
      return out;
    },
  };
}

/** One stream's decoding state, and the handlers that read and update it. */
class ClaudeStream {
  readonly variant: ClaudeVariant;

  constructor(variant: ClaudeVariant) {
    this.variant = variant;
  }

  readonly state = createStreamState();
  rootSessionId: string | undefined;
  readonly startedSessions = new Set<string>();
  readonly children = new Map<string, ChildSession>();
  readonly tools = new Map<string, ToolInfo>();
  readonly taskTools = new Map<string, string>();
  readonly apiMessages = new RecentMap<string, ApiMessageState>(REMEMBERED_API_MESSAGES);
  /** The API message being streamed, per stream (`""` for the main agent, else the parent tool call id). */
  readonly streaming = new Map<string, string>();
  readonly openTurns = new Map<string, string | undefined>();
  /** TaskCreate/TaskUpdate lists, per session. */
  readonly taskLists = new Map<string, { id: string; text: string; status: PlanItem["status"] }[]>();
  lastApiError: string | undefined;
  aborted = false;

  apiMessage(id: string): ApiMessageState {
    let m = this.apiMessages.get(id);
    if (m === undefined) {
      m = { streamed: new Map(), done: new Set() };
      // Lines of one API message come together; only the latest few can still get more, so older ones are released.
      this.apiMessages.set(id, m);
    }
    return m;
  }
  /** Tool calls that completed, oldest first: their info is kept for late references (subagent lines, task ids), up to a bound. */
  readonly completedTools: string[] = [];
  releaseOldTools(): void {
    while (this.completedTools.length > REMEMBERED_TOOLS) {
      const id = this.completedTools.shift() as string;
      if (this.tools.get(id)?.open === false) this.tools.delete(id);
    }
  }

  /** The block index an `assistant` line's block stands for: the first streamed block of its type not yet completed, else the next free index. */
  blockIndex(m: ApiMessageState, type: string): number {
    for (let i = 0; ; i++) {
      if (m.done.has(i)) continue;
      const streamed = m.streamed.get(i);
      if (streamed === undefined || streamed.type === type) {
        m.done.add(i);
        return i;
      }
    }
  }

  rootOf(rec: Wire<Envelope>): string | undefined {
    return fieldStr(rec, "session_id") ?? this.rootSessionId;
  }

  /** The subagent session of a parent tool call, started on first sight. */
  childOf(toolUseId: string, rec: Wire<Envelope>, out: AgentEventDraft[], details: JsonObject | undefined): string {
    const known = this.children.get(toolUseId);
    if (known !== undefined) return known.sessionId;
    // Claude Code 1.0.17+ gives subagent lines the parent's session_id and a parent_tool_use_id; we derive the subagent's own id from that tool call id.
    const sessionId = `subagent-${toolUseId}`;
    this.children.set(toolUseId, { sessionId, completed: false });
    const parentSessionId = this.tools.get(toolUseId)?.sessionId ?? this.rootOf(rec);
    out.push(
      compact({
        type: "session.started" as const,
        agent: this.variant.agent,
        sessionId,
        parentSessionId,
        parentToolCallId: toolUseId,
        details,
      }),
    );
    return sessionId;
  }

  /** The session a record belongs to: a subagent's when `parent_tool_use_id` is set, else the root. */
  sessionOf(rec: Wire<SessionFields>, out: AgentEventDraft[]): string | undefined {
    const parent = nonEmpty(fieldStr(rec, "parent_tool_use_id"));
    if (parent === undefined) return this.rootOf(rec);
    return this.childOf(
      parent,
      rec,
      out,
      filled(compact({ subagentType: fieldStr(rec, "subagent_type"), description: fieldStr(rec, "task_description") })),
    );
  }

  notice(
    kind: string,
    text: string,
    sessionId: string | undefined,
    details?: JsonObject,
    level: "info" | "warning" = "info",
  ): AgentEventDraft {
    return compact({ type: "notice" as const, kind, level, text, details, sessionId });
  }

  startTool(
    id: string,
    name: string,
    blockType: string,
    block: JsonValue | undefined,
    input: JsonValue | undefined,
    sessionId: string | undefined,
    out: AgentEventDraft[],
  ): void {
    const known = this.tools.get(id);
    if (known !== undefined) {
      if (input !== undefined) known.input = input;
      return;
    }
    const { kind, server } = classifyTool(name, blockType, fieldStr(asWire<ContentBlock>(block), "server_name"));
    this.tools.set(id, { name, kind, input, sessionId, open: true });
    this.state.toolStarted(id, name, sessionId);
    out.push(
      compact({
        type: "tool.started" as const,
        toolCallId: id,
        name,
        kind,
        input,
        server,
        description: fieldStr(asWire<ToolInput>(input), "description"),
        sessionId,
      }),
    );
  }

  completeTool(
    id: string,
    fields: { output?: string | undefined; result?: JsonValue | undefined; exitCode?: number | undefined; durationMs?: number | undefined },
    isError: boolean,
    sessionId: string | undefined,
    out: AgentEventDraft[],
  ): ToolInfo | undefined {
    const info = this.tools.get(id);
    if (info?.open === true) {
      info.open = false;
      this.state.toolCompleted(id);
      this.completedTools.push(id);
      this.releaseOldTools();
    }
    out.push(
      compact({
        type: "tool.completed" as const,
        toolCallId: id,
        name: info?.name,
        ...fields,
        isError,
        sessionId: info?.sessionId ?? sessionId,
      }),
    );
    return info;
  }

  /** TodoWrite-style tools carry the whole list in their input. */
  todoList(input: JsonValue | undefined, sessionId: string | undefined, out: AgentEventDraft[]): void {
    const todos = fieldArr(asWire<ToolInput>(input), "todos");
    if (todos === undefined) return;
    const items: PlanItem[] = [];
    for (const item of todos) {
      const todo = asWire<TodoItem>(item);
      const text = fieldStr(todo, "content") ?? fieldStr(todo, "text") ?? fieldStr(todo, "description");
      if (text !== undefined) items.push({ text, status: planStatus(fieldStr(todo, "status")) });
    }
    out.push(compact({ type: "plan.updated" as const, items, sessionId }));
  }

  /** TaskCreate/TaskUpdate change one item at a time; we keep the list and emit it whole. */
  taskListChange(
    info: ToolInfo,
    output: string | undefined,
    rich: JsonValue | undefined,
    sessionId: string | undefined,
    out: AgentEventDraft[],
  ): void {
    const key = sessionId ?? "";
    const input = asWire<ToolInput>(info.input);
    const list = this.taskLists.get(key) ?? [];
    this.taskLists.set(key, list);
    if (info.name === "TaskCreate") {
      const text = fieldStr(input, "subject") ?? fieldStr(input, "description");
      if (text === undefined) return;
      const id =
        fieldStr(fieldObj(asWire<ToolUseResult>(rich), "task"), "id") ?? /#(\w+)/.exec(output ?? "")?.[1] ?? String(list.length + 1);
      list.push({ id, text, status: planStatus(fieldStr(input, "status")) });
    } else if (info.name === "TaskUpdate") {
      const id = fieldStr(input, "taskId");
      const item = list.find((t) => t.id === id);
      if (item === undefined) return;
      const status = fieldStr(input, "status");
      if (status === "deleted") list.splice(list.indexOf(item), 1);
      else {
        if (status !== undefined) item.status = planStatus(status);
        item.text = fieldStr(input, "subject") ?? item.text;
      }
    } else return;
    out.push(compact({ type: "plan.updated" as const, items: list.map((t) => ({ text: t.text, status: t.status })), sessionId }));
  }

  /** file.changed for a successful write or edit. */
  fileChange(id: string, info: ToolInfo, rich: JsonValue | undefined, sessionId: string | undefined, out: AgentEventDraft[]): void {
    const input = asWire<ToolInput>(info.input);
    const richFields = asWire<ToolUseResult>(rich);
    const path =
      fieldStr(input, "file_path") ??
      fieldStr(input, "path") ??
      fieldStr(input, "notebook_path") ??
      fieldStr(input, "absolute_path") ??
      fieldStr(richFields, "filePath");
    if (path === undefined) return;
    const richType = fieldStr(richFields, "type");
    const kind: FileChange["kind"] = richType === "create" || (richType === undefined && info.name === "create_file") ? "add" : "update";
    const content = fieldStr(input, "content");
    const diff = unifiedDiff(path, fieldArr(richFields, "structuredPatch")) ?? (info.kind === "file_write" ? content : undefined);
    const change: FileChange = compact({ path, kind, diff });
    out.push(compact({ type: "file.changed" as const, changes: [change], toolCallId: id, status: "success" as const, sessionId }));
  }

  completeChild(
    toolUseId: string,
    status: SessionStatus,
    fields: {
      error?: string | undefined;
      finalText?: string | undefined;
      usage?: Usage | undefined;
      durationMs?: number | undefined;
      details?: JsonObject | undefined;
    },
    out: AgentEventDraft[],
  ): void {
    const child = this.children.get(toolUseId);
    if (child === undefined || child.completed) return;
    child.completed = true;
    out.push(compact({ type: "session.completed" as const, status, ...fields, sessionId: child.sessionId }));
  }

  // -- records ---------------------------------------------------------------------------------

  init(rec: Wire<SystemRecord>, out: AgentEventDraft[]): void {
    const sessionId = fieldStr(rec, "session_id");
    if (sessionId !== undefined && this.startedSessions.has(sessionId)) {
      // Claude Code 2.1.198 re-sends system/init when a background agent's notification starts a new query; we keep one session.started and note the rest.
      out.push(
        this.notice(
          "init",
          "system/init again: a new query began in the same session",
          sessionId,
          compact({ model: fieldStr(rec, "model"), cwd: fieldStr(rec, "cwd") }),
        ),
      );
      return;
    }
    if (sessionId !== undefined) {
      this.startedSessions.add(sessionId);
      this.rootSessionId = sessionId;
    }
    const toolNames = fieldArr(rec, "tools")?.filter((t): t is string => typeof t === "string");
    const versionKey = this.variant.versionKeys.find((k) => typeof get(rec, k) === "string");
    const without = new Set(INIT_SKIP);
    if (toolNames !== undefined) without.add("tools");
    if (versionKey !== undefined) without.add(versionKey);
    out.push(
      compact({
        type: "session.started" as const,
        agent: this.variant.agent,
        agentVersion: versionKey === undefined ? undefined : str(rec, versionKey),
        model: fieldStr(rec, "model"),
        cwd: fieldStr(rec, "cwd"),
        tools: toolNames,
        permissionMode: fieldStr(rec, "permissionMode") ?? fieldStr(rec, "permission_mode"),
        details: rest(rec, without),
        sessionId,
      }),
    );
  }

  hook(rec: Wire<SystemRecord>, subtype: string, sessionId: string | undefined, out: AgentEventDraft[]): void {
    const name = fieldStr(rec, "hook_name") ?? fieldStr(rec, "hook_event") ?? "hook";
    const outcome = fieldStr(rec, "outcome");
    const exitCode = fieldNum(rec, "exit_code");
    let text: string;
    if (subtype === "hook_started") text = `${name} started`;
    else if (subtype === "hook_response") text = `${name} ${outcome ?? "finished"}${exitCode === undefined ? "" : ` (exit ${exitCode})`}`;
    else text = `${name} ${subtype.slice(5)}`;
    const failed = outcome === "error" || outcome === "cancelled" || (exitCode !== undefined && exitCode !== 0);
    out.push(this.notice("hook", text, sessionId, rest(rec, ENVELOPE_SKIP), failed ? "warning" : "info"));
  }

  task(rec: Wire<SystemRecord>, subtype: string, sessionId: string | undefined, out: AgentEventDraft[]): void {
    const taskId = fieldStr(rec, "task_id");
    const toolId = fieldStr(rec, "tool_use_id") ?? (taskId === undefined ? undefined : this.taskTools.get(taskId));
    if (taskId !== undefined && toolId !== undefined) this.taskTools.set(taskId, toolId);
    const info = toolId === undefined ? undefined : this.tools.get(toolId);
    const description = fieldStr(rec, "description");
    let status: string;
    let output: string | undefined;
    let elapsedMs: number | undefined;
    if (subtype === "task_started") {
      status = description === undefined ? "task started" : `task started: ${description}`;
      if (toolId !== undefined && (info?.kind === "subagent" || fieldStr(rec, "subagent_type") !== undefined)) {
        this.childOf(
          toolId,
          rec,
          out,
          compact({
            taskId,
            description,
            subagentType: fieldStr(rec, "subagent_type"),
            taskType: fieldStr(rec, "task_type"),
            prompt: fieldStr(rec, "prompt"),
          }),
        );
      }
    } else if (subtype === "task_progress") {
      const last = fieldStr(rec, "last_tool_name");
      status = last === undefined ? (description ?? "task running") : `task running: ${last}`;
      elapsedMs = nonNegative(fieldNum(fieldObj(rec, "usage"), "duration_ms"));
    } else if (subtype === "task_updated") {
      status = `task ${fieldStr(fieldObj(rec, "patch"), "status") ?? "updated"}`;
    } else if (subtype === "task_notification") {
      status = `task ${fieldStr(rec, "status") ?? "notification"}`;
      output = fieldStr(rec, "summary");
    } else status = subtype.replace("_", " ");
    if (toolId !== undefined && info?.open === true) {
      out.push(compact({ type: "tool.progress" as const, toolCallId: toolId, status, output, elapsedMs, sessionId: info.sessionId }));
    } else {
      out.push(this.notice("task", taskId === undefined ? status : `${status} (${taskId})`, sessionId, rest(rec, ENVELOPE_SKIP)));
    }
    // Claude Code 2.1.198 completes a background Agent call at launch (async_launched); we end its subagent at the task_notification.
    if (subtype === "task_notification" && toolId !== undefined && info?.open !== true) {
      const ended = taskStatus(fieldStr(rec, "status"));
      if (ended !== undefined) {
        this.completeChild(
          toolId,
          ended,
          {
            finalText: ended === "success" ? fieldStr(rec, "summary") : undefined,
            error: ended === "success" ? undefined : (fieldStr(rec, "summary") ?? `task ${fieldStr(rec, "status")}`),
            durationMs: nonNegative(fieldNum(fieldObj(rec, "usage"), "duration_ms")),
            details: compact({ taskId, outputFile: fieldStr(rec, "output_file"), usage: fieldObj(rec, "usage") }),
          },
          out,
        );
      }
    }
  }

  system(rec: Wire<SystemRecord>, context: DecodeContext, out: AgentEventDraft[]): void {
    const subtype = fieldStr(rec, "subtype") ?? "";
    if (subtype === "init") {
      this.init(rec, out);
      return;
    }
    const sessionId = this.sessionOf(rec, out);
    switch (subtype) {
      case "status": {
        const status = fieldStr(rec, "status");
        out.push(this.notice("status", status === undefined ? "status cleared" : `status: ${status}`, sessionId, rest(rec, SYSTEM_SKIP)));
        return;
      }
      case "api_retry": {
        const attempt = count(field(rec, "attempt")) ?? 0;
        const maxAttempts = count(field(rec, "max_retries")) ?? undefined;
        const status = fieldNum(rec, "error_status");
        const reason = fieldStr(rec, "error") ?? fieldStr(asWire<ApiErrorObject>(field(rec, "error")), "message");
        const error = status === undefined ? reason : reason === undefined ? `HTTP ${status}` : `${status} ${reason}`;
        out.push(
          compact({
            type: "retry" as const,
            attempt,
            maxAttempts,
            delayMs: nonNegative(fieldNum(rec, "retry_delay_ms")),
            error,
            sessionId,
          }),
        );
        return;
      }
      case "thinking_tokens": {
        const estimate = fieldNum(rec, "estimated_tokens");
        out.push(
          compact({
            type: "metric" as const,
            name: "thinking_tokens",
            text: estimate === undefined ? undefined : `~${estimate} thinking tokens`,
            values: rest(rec, SYSTEM_SKIP) ?? {},
            sessionId,
          }),
        );
        return;
      }
      case "compact_boundary": {
        const meta = fieldObj(rec, "compact_metadata");
        const trigger = fieldStr(meta, "trigger");
        const before = fieldNum(meta, "pre_tokens");
        const text = `conversation compacted${trigger === undefined ? "" : ` (${trigger})`}${before === undefined ? "" : `, ${before} tokens before`}`;
        out.push(this.notice("compact_boundary", text, sessionId, rest(rec, SYSTEM_SKIP)));
        return;
      }
      case "keep_alive":
        out.push(compact({ type: "heartbeat" as const, sessionId }));
        return;
      default:
        break;
    }
    if (subtype.startsWith("hook_")) {
      this.hook(rec, subtype, sessionId, out);
      return;
    }
    if (subtype.startsWith("task_")) {
      this.task(rec, subtype, sessionId, out);
      return;
    }
    if (!INFO_SUBTYPES.has(subtype))
      context.report({
        code: "unknown-record",
        severity: "info",
        message: `system subtype "${subtype}" is not in the documented list; kept as a notice`,
      });
    const text = fieldStr(rec, "message") ?? fieldStr(rec, "summary") ?? fieldStr(rec, "content") ?? `system/${subtype}`;
    out.push(this.notice(subtype === "" ? "system" : subtype, text, sessionId, rest(rec, SYSTEM_SKIP)));
  }

  assistant(rec: Wire<AssistantRecord>, context: DecodeContext, out: AgentEventDraft[]): void {
    const sessionId = this.sessionOf(rec, out);
    const message = fieldObj(rec, "message");
    const content = field(message, "content");
    const blocks: JsonValue[] = typeof content === "string" ? [{ type: "text", text: content }] : (arr(content) ?? []);
    const errorCode = fieldStr(rec, "error");
    if (fieldBool(rec, "is_api_error_message") === true || (errorCode !== undefined && fieldStr(message, "model") === "<synthetic>")) {
      // Claude Code 2.x reports API failures as a synthetic assistant message (model "<synthetic>"); we emit an api error, not assistant text.
      const text = blocks
        .map((b) => fieldStr(asWire<ContentBlock>(b), "text"))
        .filter((t): t is string => t !== undefined)
        .join("\n");
      this.lastApiError = nonEmpty(text) ?? errorCode ?? "API error";
      out.push(compact({ type: "error" as const, scope: "api" as const, message: this.lastApiError, code: errorCode, sessionId }));
      return;
    }
    if (fieldBool(rec, "aborted") === true) this.aborted = true;
    const apiId = fieldStr(message, "id") ?? this.state.nextId("msg");
    const m = this.apiMessage(apiId);
    const options = { sessionId };
    for (const item of blocks) {
      const block = asWire<ContentBlock>(item);
      const type = fieldStr(block, "type") ?? "";
      const late = this.lateLine(m, type);
      if (late !== undefined) {
        // Final at its stop, shown as streamed: the line adds nothing (ralph: streamed content is never shown again).
        const text = fieldStr(block, type === "thinking" ? "thinking" : "text") ?? "";
        if (text !== "" && text !== late.text)
          context.report({
            code: "out-of-order",
            severity: "info",
            message: `the assistant line for block ${late.index} of message "${apiId}" came after the block ended, with other text (${text.length} characters, ${late.text.length} streamed); the streamed text stands`,
          });
        continue;
      }
      const index = this.blockIndex(m, type);
      const messageId = `${apiId}#${index}`;
      if (type === "text") {
        out.push(...this.state.complete(messageId, fieldStr(block, "text") ?? "", "assistant", "text", options));
      } else if (type === "thinking") {
        const text = fieldStr(block, "thinking") ?? "";
        // Claude Code 2.1.x (sonnet-5) sends thinking blocks with empty text and only a signature; we call them redacted_reasoning.
        const signature = nonEmpty(fieldStr(block, "signature")) ?? m.streamed.get(index)?.signature;
        const kind: MessageKind = text === "" && signature !== undefined ? "redacted_reasoning" : "reasoning";
        out.push(...this.state.complete(messageId, text, "assistant", kind, { sessionId, signature }));
      } else if (type === "redacted_thinking") {
        out.push(
          ...this.state.complete(messageId, "", "assistant", "redacted_reasoning", {
            sessionId,
            signature: nonEmpty(fieldStr(block, "data")),
          }),
        );
      } else if (TOOL_USE_BLOCKS.has(type)) {
        const id = fieldStr(block, "id") ?? this.state.nextId("tool");
        const name = fieldStr(block, "name") ?? "";
        const input = field(block, "input");
        this.startTool(id, name, type, block, input, sessionId, out);
        if (name === "TodoWrite" || name === "todo_write") this.todoList(input, sessionId, out);
      } else if (type.endsWith("_tool_result")) {
        const id = fieldStr(block, "tool_use_id") ?? "";
        const result = field(block, "content");
        const isError = (fieldStr(asWire<ContentBlock>(result), "type") ?? "").endsWith("_error");
        this.completeTool(id, { output: contentText(result), result }, isError, sessionId, out);
      } else {
        context.report({ code: "unknown-record", message: `assistant content block of type "${type}" is not understood` });
        out.push(unknownIn(item, `unknown assistant content block "${type}"`, sessionId));
      }
    }
    if (this.variant.perMessageUsage) {
      const usage = usageOf(field(message, "usage"));
      if (usage !== undefined)
        out.push(compact({ type: "usage" as const, usage, scope: "delta" as const, model: fieldStr(message, "model"), sessionId }));
    }
  }

  toolResult(
    block: Wire<ContentBlock> | undefined,
    rich: JsonValue | undefined,
    sessionId: string | undefined,
    context: DecodeContext,
    out: AgentEventDraft[],
  ): void {
    const id = fieldStr(block, "tool_use_id");
    if (id === undefined) {
      out.push(this.notice("tool_result", "tool_result without tool_use_id", sessionId, obj(block)));
      return;
    }
    const isError = fieldBool(block, "is_error") === true;
    const richFields = asWire<ToolUseResult>(rich);
    const known = this.tools.get(id);
    const raw = contentText(field(block, "content"));
    // A long output may be a held string (`passesHeldStrings`): it passes through as it is, and is read as
    // its text only where this decoder reads the text.
    const readsText = known?.kind === "subagent" || known?.kind === "todo" || (isError && known?.kind === "command");
    const text = readsText && context.heldText !== undefined ? context.heldText(raw) : raw;
    const output = known?.kind === "subagent" && text !== undefined ? subagentText(text) : text;
    let exitCode = count(field(richFields, "exitCode")) ?? count(field(richFields, "exit_code")) ?? undefined;
    if (exitCode === undefined && isError && known?.kind === "command") {
      // Claude Code 2.1.x Bash reports a failure only as text ("Exit code 1\n…", tool_use_result "Error: Exit code 1…"); we read the code from it.
      const m = /^(?:Error: )?Exit code (\d+)/.exec(output ?? (typeof rich === "string" ? rich : ""));
      if (m !== null) exitCode = Number(m[1]);
    }
    const durationMs = nonNegative(
      fieldNum(richFields, "durationMs") ?? fieldNum(richFields, "totalDurationMs") ?? fieldNum(richFields, "duration_ms"),
    );
    const info = this.completeTool(id, { output, result: rich, exitCode, durationMs }, isError, sessionId, out);
    if (info === undefined) return;
    const toolSession = info.sessionId ?? sessionId;
    if (!isError && (info.kind === "file_write" || info.kind === "file_edit") && info.name !== "undo_edit")
      this.fileChange(id, info, rich, toolSession, out);
    if (!isError && info.kind === "todo") this.taskListChange(info, output, rich, toolSession, out);
    if (info.kind === "subagent" && fieldStr(richFields, "status") !== "async_launched") {
      const content = contentText(field(richFields, "content"));
      const answer = (context.heldText === undefined ? content : context.heldText(content)) ?? output;
      this.completeChild(
        id,
        isError ? "error" : "success",
        {
          finalText: isError ? undefined : answer,
          error: isError ? (answer ?? "the subagent failed") : undefined,
          usage: usageOf(field(richFields, "usage")),
          durationMs: nonNegative(fieldNum(richFields, "totalDurationMs")),
          details: compact({
            agentId: fieldStr(richFields, "agentId"),
            totalTokens: fieldNum(richFields, "totalTokens"),
            totalToolUseCount: fieldNum(richFields, "totalToolUseCount"),
          }),
        },
        out,
      );
    }
  }

  user(rec: Wire<UserRecord>, context: DecodeContext, out: AgentEventDraft[]): void {
    const sessionId = this.sessionOf(rec, out);
    const content = field(fieldObj(rec, "message"), "content");
    const baseId = fieldStr(rec, "uuid") ?? this.state.nextId("user");
    if (typeof content === "string") {
      out.push(...this.state.complete(`${baseId}#0`, content, "user", "text", { sessionId }));
      return;
    }
    const blocks = arr(content) ?? [];
    const rich = field(rec, "tool_use_result");
    const results = blocks.reduce<number>((n, b) => (fieldStr(asWire<ContentBlock>(b), "type") === "tool_result" ? n + 1 : n), 0);
    blocks.forEach((item, i) => {
      const block = asWire<ContentBlock>(item);
      const type = fieldStr(block, "type") ?? "";
      if (type === "text") out.push(...this.state.complete(`${baseId}#${i}`, fieldStr(block, "text") ?? "", "user", "text", { sessionId }));
      // tool_use_result belongs to the line; with several tool_result blocks we cannot tell whose it is.
      else if (type === "tool_result") this.toolResult(block, results === 1 ? rich : undefined, sessionId, context, out);
      else if (type === "image" || type === "document")
        out.push(
          this.notice("attachment", `[${type}]`, sessionId, compact({ mediaType: fieldStr(fieldObj(block, "source"), "media_type") })),
        );
      else {
        context.report({ code: "unknown-record", message: `user content block of type "${type}" is not understood` });
        out.push(unknownIn(item, `unknown user content block "${type}"`, sessionId));
      }
    });
  }

  /** The API message being streamed on `key` (a fresh id when its message_start was not seen). */
  streamingMessage(key: string): string {
    let id = this.streaming.get(key);
    if (id === undefined) {
      id = this.state.nextId("msg");
      this.streaming.set(key, id);
    }
    return id;
  }

  streamEvent(rec: Wire<StreamEventRecord>, context: DecodeContext, out: AgentEventDraft[]): void {
    const sessionId = this.sessionOf(rec, out);
    const event = fieldObj(rec, "event");
    const type = fieldStr(event, "type");
    const key = nonEmpty(fieldStr(rec, "parent_tool_use_id")) ?? "";
    switch (type) {
      case "message_start": {
        const id = fieldStr(fieldObj(event, "message"), "id") ?? this.state.nextId("msg");
        this.streaming.set(key, id);
        // An id seen again after its message_stop (a replayed or concatenated stream) begins afresh; a
        // start repeated mid-message (GLM behind Claude Code) keeps the blocks so far.
        if (this.apiMessages.get(id)?.stopped === true) this.apiMessages.delete(id);
        this.apiMessage(id);
        this.openTurns.set(id, sessionId);
        out.push(compact({ type: "turn.started" as const, turnId: id, sessionId }));
        return;
      }
      case "content_block_start":
        this.blockStart(event, this.streamingMessage(key), sessionId, out);
        return;
      case "content_block_delta":
        this.blockDelta(rec, event, this.streamingMessage(key), sessionId, context, out);
        return;
      case "content_block_stop": {
        // Claude Code writes the whole-block `assistant` line before this, and it completed the block. A
        // proxy that writes none (GLM) leaves the streamed block open: it is final here (ralph's contract).
        const apiId = this.streaming.get(key);
        if (apiId !== undefined) this.finishStreamedBlock(apiId, count(field(event, "index")) ?? 0, sessionId, out);
        return;
      }
      case "message_delta": {
        const stopReason = fieldStr(fieldObj(event, "delta"), "stop_reason");
        const usage = fieldObj(event, "usage");
        // Per-message usage is never summed (the result has the session's totals); we keep it as a metric.
        out.push(
          compact({
            type: "metric" as const,
            name: "message_delta",
            text: stopReason === undefined ? undefined : `stop_reason: ${stopReason}`,
            values: compact({ messageId: this.streaming.get(key), stopReason, usage }),
            sessionId,
          }),
        );
        return;
      }
      case "message_stop": {
        const id = this.streaming.get(key);
        this.streaming.delete(key);
        const stopped = id === undefined ? undefined : this.apiMessages.get(id);
        if (stopped !== undefined) {
          stopped.stopped = true;
          // A block whose content_block_stop never came is final with its message.
          for (const index of stopped.streamed.keys()) this.finishStreamedBlock(id as string, index, sessionId, out);
        }
        if (id !== undefined && this.openTurns.has(id)) {
          this.openTurns.delete(id);
          out.push(compact({ type: "turn.completed" as const, turnId: id, sessionId }));
        }
        return;
      }
      case "ping":
        out.push(compact({ type: "heartbeat" as const, sessionId }));
        return;
      case "error":
        out.push(
          compact({
            type: "error" as const,
            scope: "api" as const,
            message: fieldStr(fieldObj(event, "error"), "message") ?? "stream error",
            code: fieldStr(fieldObj(event, "error"), "type"),
            sessionId,
          }),
        );
        return;
      case "goal_state": {
        // Qwen Code 0.25 sends its goal tracker as a stream_event that is not an Anthropic event; we keep it as a notice.
        const goal = fieldObj(event, "goal_state");
        out.push(
          this.notice(
            "goal_state",
            `goal: ${fieldStr(goal, "goal") ?? "none"}, activity: ${fieldStr(goal, "activity") ?? "?"}`,
            sessionId,
            goal,
          ),
        );
        return;
      }
      default:
        context.report({ code: "unknown-record", message: `stream_event of type "${type ?? "?"}" is not understood` });
        out.push(unknownIn(rec, `unknown stream_event type "${type ?? "?"}"`, sessionId));
    }
  }

  /**
   * Completes a streamed text or thinking block that no `assistant` line completed, with the text
   * streamed (a message is final at its stop, whether or not a whole-block line follows).
   */
  finishStreamedBlock(apiId: string, index: number, sessionId: string | undefined, out: AgentEventDraft[]): void {
    const m = this.apiMessages.get(apiId);
    const block = m?.streamed.get(index);
    if (m === undefined || block === undefined || m.done.has(index)) return;
    if (block.type !== "text" && block.type !== "thinking") return;
    const messageId = `${apiId}#${index}`;
    const text = this.state.streamedText(messageId);
    // Nothing streamed: a text block has no message; a thinking block with only a signature is withheld reasoning.
    if (text === undefined && (block.type === "text" || block.signature === undefined)) return;
    const kind: MessageKind = block.type === "text" ? "text" : text === undefined ? "redacted_reasoning" : "reasoning";
    const options = block.type === "thinking" ? { sessionId, signature: block.signature } : { sessionId };
    out.push(...this.state.complete(messageId, text ?? "", "assistant", kind, options));
    m.done.add(index);
    m.final ??= new Map();
    m.final.set(index, text ?? "");
  }

  /**
   * A whole-block `assistant` line written after its block was final (Qwen: after `message_stop`):
   * the index of that block, forgotten once matched; undefined when the line is not late.
   */
  lateLine(m: ApiMessageState, type: string): { index: number; text: string } | undefined {
    if (m.final === undefined) return undefined;
    for (const [index, text] of m.final) {
      if (m.streamed.get(index)?.type !== type) continue;
      m.final.delete(index);
      return { index, text };
    }
    return undefined;
  }

  /** A content block opens: a tool call starts, text or thinking begins (some agents put the first text in the start). */
  blockStart(event: Wire<StreamEvent> | undefined, apiId: string, sessionId: string | undefined, out: AgentEventDraft[]): void {
    const index = count(field(event, "index")) ?? 0;
    const block = fieldObj(event, "content_block");
    const blockType = fieldStr(block, "type") ?? "";
    const streamed: StreamedBlock = { type: blockType, toolId: undefined, signature: nonEmpty(fieldStr(block, "signature")) };
    this.apiMessage(apiId).streamed.set(index, streamed);
    const messageId = `${apiId}#${index}`;
    if (TOOL_USE_BLOCKS.has(blockType)) {
      streamed.toolId = fieldStr(block, "id") ?? this.state.nextId("tool");
      // The input streams as input_json_delta; the start block's `input: {}` is a placeholder, so tool.started carries none.
      this.startTool(streamed.toolId, fieldStr(block, "name") ?? "", blockType, block, undefined, sessionId, out);
    } else if (blockType === "text")
      out.push(...this.state.delta(messageId, fieldStr(block, "text") ?? "", "assistant", "text", { sessionId }));
    else if (blockType === "thinking")
      out.push(...this.state.delta(messageId, fieldStr(block, "thinking") ?? "", "assistant", "reasoning", { sessionId }));
  }

  /** A piece of an open content block: text, thinking, a signature, tool input or a citation. */
  blockDelta(
    rec: Wire<StreamEventRecord>,
    event: Wire<StreamEvent> | undefined,
    apiId: string,
    sessionId: string | undefined,
    context: DecodeContext,
    out: AgentEventDraft[],
  ): void {
    const index = count(field(event, "index")) ?? 0;
    const delta = fieldObj(event, "delta");
    const deltaType = fieldStr(delta, "type");
    const messageId = `${apiId}#${index}`;
    // Text and thinking are most of a stream: their drafts go straight to `out`.
    if (deltaType === "text_delta")
      pushAll(out, this.state.delta(messageId, fieldStr(delta, "text") ?? "", "assistant", "text", { sessionId }));
    else if (deltaType === "thinking_delta")
      pushAll(out, this.state.delta(messageId, fieldStr(delta, "thinking") ?? "", "assistant", "reasoning", { sessionId }));
    else this.otherBlockDelta(rec, delta, deltaType, this.apiMessages.get(apiId)?.streamed.get(index), messageId, sessionId, context, out);
  }

  /** A signature, tool input, a citation, or a delta type we do not know. */
  otherBlockDelta(
    rec: Wire<StreamEventRecord>,
    delta: Wire<NonNullable<StreamEvent["delta"]>> | undefined,
    deltaType: string | undefined,
    streamed: StreamedBlock | undefined,
    messageId: string,
    sessionId: string | undefined,
    context: DecodeContext,
    out: AgentEventDraft[],
  ): void {
    if (deltaType === "signature_delta") {
      // Claude Code 2.1.218 sends the signature on content_block_start and again whole in one signature_delta; we keep the latest.
      if (streamed !== undefined) streamed.signature = nonEmpty(fieldStr(delta, "signature")) ?? streamed.signature;
    } else if (deltaType === "input_json_delta") {
      const text = fieldStr(delta, "partial_json") ?? "";
      if (text === "") return;
      if (streamed?.toolId !== undefined)
        out.push(compact({ type: "tool.input.delta" as const, toolCallId: streamed.toolId, text, sessionId }));
      else
        out.push(
          this.notice(
            "input_json_delta",
            "tool input for a block that is not a tool call",
            sessionId,
            compact({ messageId, partialJson: text }),
            "warning",
          ),
        );
    } else if (deltaType === "citations_delta") {
      out.push(
        this.notice(
          "citation",
          fieldStr(fieldObj(delta, "citation"), "cited_text") ?? "citation",
          sessionId,
          compact({ messageId, citation: field(delta, "citation") }),
        ),
      );
    } else {
      context.report({ code: "unknown-record", message: `stream_event delta of type "${deltaType ?? "?"}" is not understood` });
      out.push(unknownIn(rec, `unknown content_block_delta type "${deltaType ?? "?"}"`, sessionId));
    }
  }

  result(rec: Wire<ResultRecord>, out: AgentEventDraft[]): void {
    const sessionId = this.rootOf(rec);
    const subtype = fieldStr(rec, "subtype");
    const isError = fieldBool(rec, "is_error") === true;
    const terminal = fieldStr(rec, "terminal_reason");
    const apiStatus = fieldNum(rec, "api_error_status");
    const text = fieldStr(rec, "result");
    const errors = fieldArr(rec, "errors")?.filter((e): e is string => typeof e === "string");
    let status: SessionStatus;
    if (terminal !== undefined && /^(aborted|interrupt)/.test(terminal)) status = "interrupted";
    else if (terminal === undefined && this.aborted && subtype === "error_during_execution") status = "interrupted";
    // Claude Code 2.1.x ends API failures with subtype "success" and is_error true; we decide from is_error, terminal_reason and api_error_status.
    // A terminal_reason we do not know (newer versions) is not an error by itself: is_error and subtype decide.
    else if (
      isError ||
      (subtype !== undefined && subtype !== "success") ||
      (terminal !== undefined && ERROR_TERMINAL_REASONS.has(terminal)) ||
      apiStatus !== undefined
    )
      status = "error";
    else status = "success";
    const listed = errors !== undefined && errors.length > 0 ? errors.join("\n") : undefined;
    // The error_* subtypes explain themselves in `errors`; the API-error trap (subtype "success") puts the message in `result`.
    const reason = subtype === undefined || subtype === "success" ? (nonEmpty(text) ?? listed) : (listed ?? nonEmpty(text));
    const error = status === "success" ? undefined : (reason ?? this.lastApiError ?? terminal ?? subtype ?? "error");
    const turns = count(field(rec, "num_turns")) ?? undefined;
    out.push(
      compact({
        type: "session.completed" as const,
        status,
        error,
        finalText: status === "success" ? text : undefined,
        usage: usageOf(field(rec, "usage")),
        costUsd: nonNegative(fieldNum(rec, "total_cost_usd") ?? fieldNum(rec, "total_cost")),
        durationMs: nonNegative(fieldNum(rec, "duration_ms")),
        turns,
        details: rest(rec, RESULT_SKIP),
        sessionId,
      }),
    );
    this.lastApiError = undefined;
    this.aborted = false;
  }

  rateLimit(rec: Wire<RateLimitRecord>, out: AgentEventDraft[]): void {
    const info = fieldObj(rec, "rate_limit_info");
    out.push(
      compact({
        type: "rate_limit" as const,
        status: fieldStr(info, "status") ?? "unknown",
        resetsAt: isoFromEpochSeconds(fieldNum(info, "resetsAt")),
        limit: fieldStr(info, "rateLimitType"),
        details: rest(info, RATE_LIMIT_SKIP),
        sessionId: this.rootOf(rec),
      }),
    );
  }

  toolProgress(rec: Wire<ToolProgressRecord>, out: AgentEventDraft[]): void {
    const sessionId = this.sessionOf(rec, out);
    const id = fieldStr(rec, "tool_use_id");
    const seconds = nonNegative(fieldNum(rec, "elapsed_time_seconds"));
    const elapsedMs = seconds === undefined ? undefined : seconds * 1000;
    if (id !== undefined && this.tools.get(id)?.open === true)
      out.push(compact({ type: "tool.progress" as const, toolCallId: id, elapsedMs, status: "running", sessionId }));
    else
      out.push(
        this.notice(
          "tool_progress",
          `${fieldStr(rec, "tool_name") ?? "tool"} running${seconds === undefined ? "" : ` for ${seconds}s`}`,
          sessionId,
          rest(rec, ENVELOPE_SKIP),
        ),
      );
  }

  authStatus(rec: Wire<AuthStatusRecord>, out: AgentEventDraft[]): void {
    const error = fieldStr(rec, "error");
    const lines = fieldArr(rec, "output")?.filter((l): l is string => typeof l === "string") ?? [];
    out.push(
      this.notice(
        "auth_status",
        error ?? (lines.join("\n") || "authenticating"),
        this.rootOf(rec),
        rest(rec, ENVELOPE_SKIP),
        error === undefined ? "info" : "warning",
      ),
    );
  }

  control(rec: Wire<OtherRecord>, type: string, out: AgentEventDraft[]): void {
    const subtype = fieldStr(fieldObj(rec, "request"), "subtype");
    out.push(this.notice("control", `${type}${subtype === undefined ? "" : `: ${subtype}`}`, this.rootOf(rec), rest(rec, ENVELOPE_SKIP)));
  }

  decodeRecord(rec: Wire<Envelope>, context: DecodeContext): AgentEventDraft[] {
    const out: AgentEventDraft[] = [];
    const type = fieldStr(rec, "type");
    if (type === undefined || !dispatch(recordHandlers, type, rec, this, out, context)) {
      context.report({ code: "unknown-record", message: `record type "${type ?? "(none)"}" is not understood` });
      out.push(unknownRecord(rec, type === undefined ? "record has no type" : `unknown record type "${type}"`));
    }
    const time = fieldStr(rec, "timestamp");
    return time === undefined ? out : out.map((e) => (e.time === undefined ? { ...e, time } : e));
  }
}

/** Claude stream-json record types (the SDK's `SDKMessage` union as printed), one handler each. */
type RecordType =
  | "system"
  | "assistant"
  | "user"
  | "stream_event"
  | "result"
  | "rate_limit_event"
  | "tool_progress"
  | "auth_status"
  | "tool_use_summary"
  | "prompt_suggestion"
  | "control_request"
  | "control_response"
  | "control_cancel_request"
  | "keep_alive";

const recordHandlers = handlers<RecordType, JsonObject, ClaudeStream>({
  system: (rec, s, out, context) => s.system(rec, context, out),
  assistant: (rec, s, out, context) => s.assistant(rec, context, out),
  user: (rec, s, out, context) => s.user(rec, context, out),
  stream_event: (rec, s, out, context) => s.streamEvent(rec, context, out),
  result: (rec, s, out) => s.result(rec, out),
  rate_limit_event: (rec, s, out) => s.rateLimit(rec, out),
  tool_progress: (rec, s, out) => s.toolProgress(rec, out),
  auth_status: (rec, s, out) => s.authStatus(rec, out),
  tool_use_summary: (rec: Wire<OtherRecord>, s, out) => {
    out.push(s.notice("tool_use_summary", fieldStr(rec, "summary") ?? "tool use summary", s.rootOf(rec), rest(rec, ENVELOPE_SKIP)));
  },
  prompt_suggestion: (rec: Wire<OtherRecord>, s, out) => {
    out.push(s.notice("prompt_suggestion", fieldStr(rec, "suggestion") ?? "prompt suggestion", s.rootOf(rec), rest(rec, ENVELOPE_SKIP)));
  },
  control_request: (rec, s, out) => s.control(rec, "control_request", out),
  control_response: (rec, s, out) => s.control(rec, "control_response", out),
  control_cancel_request: (rec, s, out) => s.control(rec, "control_cancel_request", out),
  keep_alive: (rec, s, out) => {
    out.push(compact({ type: "heartbeat" as const, sessionId: s.rootOf(rec) }));
  },
});

/** True when a system/init (or any record) carries an Amp thread id (`T-<uuid>`). */
export function isAmpThreadId(value: string | undefined): boolean {
  return value !== undefined && /^T-[0-9a-f]{8}-[0-9a-f]{4}-/i.test(value);
}

/** Anthropic SSE event types that Claude Code wraps in `stream_event`. */
const SSE_TYPES = new Set([
  "message_start",
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
  "ping",
  "error",
]);

/** Claude Code stream-json, with and without `--include-partial-messages`. */
export const claude: Dialect = {
  name: "claude",
  description: "Claude Code: claude -p --output-format stream-json --verbose [--include-partial-messages]",
  detect(record) {
    if (record.kind !== "json") return false;
    const v = record.value;
    const sessionId = str(v, "session_id");
    // Session transcripts (claude-session) use camelCase sessionId and parentUuid; Amp uses T-<uuid> thread ids.
    if (sessionId === undefined || isAmpThreadId(sessionId) || get(v, "parentUuid") !== undefined) return false;
    switch (str(v, "type")) {
      case "system": {
        const subtype = str(v, "subtype");
        if (typeof get(v, "qwen_code_version") === "string" || get(v, "permission_mode") !== undefined) return false;
        // Cursor's init has neither claude_code_version nor a tools list (and no uuid on its system lines).
        if (subtype === "init") return typeof get(v, "claude_code_version") === "string" || arr(v, "tools") !== undefined;
        if (subtype?.startsWith("hook_") === true) return str(v, "hook_id") !== undefined || str(v, "hook_event") !== undefined;
        return subtype !== undefined && subtype !== "session_start" && str(v, "uuid") !== undefined;
      }
      case "stream_event":
        return SSE_TYPES.has(str(at(v, "event", "type")) ?? "");
      case "assistant":
      case "user":
        // Main-agent lines carry an explicit `parent_tool_use_id: null`; Cursor's have none.
        return Object.hasOwn(v, "parent_tool_use_id") && obj(v, "message") !== undefined;
      case "result":
        return num(v, "num_turns") !== undefined || num(v, "total_cost_usd") !== undefined;
      case "rate_limit_event":
        return obj(v, "rate_limit_info") !== undefined;
      case "tool_progress":
        return str(v, "tool_use_id") !== undefined;
      default:
        return false;
    }
  },
  createDecoder: () => createClaudeDecoder(CLAUDE_CODE),
  startsSession: claudeStreamOpening,
  // The `user` records carry the tool results; their decoder reads a held output's text through `heldText`.
  passesHeldStrings: (value) => str(value, "type") === "user",
};

/**
 * A subagent's result as its text: Claude Code appends an `agentId: … (use SendMessage …)` line
 * and a `<usage>subagent_tokens: …</usage>` block for the model; the figures travel in the
 * subagent's own session.completed, so people see the answer only.
 */
function subagentText(text: string): string {
  return text
    .replace(/<usage>[\s\S]*?<\/usage>/g, "")
    .replace(/^agentId: [^\n]*$/gm, "")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * How a Claude-style stream opens (Claude Code, and the Amp, Qwen and Cursor CLIs that copy it):
 * SessionStart hooks (Claude 2.1+), then `system/init`. Both come again with the same session_id
 * for a background agent or a compaction, so the same id continues the session until its result.
 */
export function claudeStreamOpening(record: InputRecord): SessionOpening | undefined {
  if (record.kind !== "json" || str(record.value, "type") !== "system") return undefined;
  const subtype = str(record.value, "subtype");
  if (subtype !== "init" && !(subtype === "hook_started" && str(record.value, "hook_event") === "SessionStart")) return undefined;
  const sessionId = str(record.value, "session_id");
  return sessionId === undefined ? {} : { sessionId };
}
