// Source: Codex CLI rollout files `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (and `~/.codex/archived_sessions/`); versions and quirks: docs/dialects/codex-session.md
import type {
  AgentEventDraft,
  FileChange,
  JsonObject,
  JsonValue,
  MessageKind,
  MessageRole,
  SessionStatus,
  ToolKind,
  Usage,
} from "../../model/events.ts";
import type { DecodeContext, Dialect, DialectDecoder } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { compact, obj, str, textOf } from "../../dialect/json.ts";
import { asWire, field, fieldArr, fieldBool, fieldItems, fieldNum, fieldObj, fieldStr, type Wire } from "../../dialect/wire.ts";
import { createStreamState } from "../../dialect/messages.ts";
import { type Handler, dispatch, handlers } from "../../dialect/handlers.ts";
import { codexDurationMs, codexPatchChanges, codexPlanItems, codexRateLimits, codexReconnect, codexUsage, joinOutput } from "./exec.ts";
import type { McpToolCallResult } from "./wire.ts";
import { codexRunningTotal, codexUsageKey } from "../../model/usage-keys.ts";

// ---------------------------------------------------------------------------------------------
// Wire types (codex-rs protocol `RolloutLine` / `RolloutItem`)
// ---------------------------------------------------------------------------------------------

/** Every line: `{timestamp, ordinal?, type, payload}` (`ordinal` from about 0.154). */
interface RolloutLine {
  timestamp: string;
  ordinal?: number;
  type: RolloutType;
  payload: JsonObject;
}

type RolloutType =
  | "session_meta"
  | "response_item"
  | "event_msg"
  | "turn_context"
  | "compacted"
  | "world_state"
  | "token_usage_record"
  | "inter_agent_communication"
  | "inter_agent_communication_metadata";

/** session_meta payload (the first line; a forked session repeats its source's meta after it). */
interface SessionMetaPayload {
  id: string;
  /** 0.154+: same as `id`. */
  session_id?: string;
  timestamp?: string;
  cwd?: string;
  originator?: "codex_exec" | "codex-tui" | "codex_cli_rs" | string;
  cli_version?: string;
  /** `exec`, `cli`, `vscode`, or `{subagent: {thread_spawn: {parent_thread_id, depth, agent_role}}}`. */
  source?: JsonValue;
  model_provider?: string;
  /** Newer versions name the model here. */
  model?: string;
  instructions?: string | null;
  base_instructions?: { text: string; provenance?: { type: string; model?: string } };
  git?: { commit_hash?: string; branch?: string; repository_url?: string };
  forked_from_id?: string;
  history_mode?: "legacy" | "paginated";
}

/** response_item payload: the model-visible history (Responses API items). */
interface ResponseItemPayload {
  type:
    | "message"
    | "reasoning"
    | "function_call"
    | "function_call_output"
    | "custom_tool_call"
    | "custom_tool_call_output"
    | "local_shell_call"
    | "web_search_call"
    | "image_generation_call"
    | "tool_search_call"
    | "tool_search_output"
    | "ghost_snapshot"
    | "compaction"
    | "compaction_summary"
    | "other";
  id?: string;
  /** message. */
  role?: "assistant" | "user" | "developer" | "system";
  content?: { type: "input_text" | "output_text" | "input_image" | "reasoning_text" | "text"; text?: string }[] | null;
  /** message: `commentary` | `final_answer` (newer). */
  phase?: string;
  /** reasoning. */
  summary?: { type: "summary_text"; text: string }[];
  encrypted_content?: string | null;
  /** function_call / custom_tool_call / local_shell_call / *_output. */
  call_id?: string;
  name?: string;
  /** function_call: JSON text. */
  arguments?: string;
  /** custom_tool_call: free text (apply_patch's patch, exec's code). */
  input?: string;
  /** *_output: a string, `{content, success}`, or content items. */
  output?: JsonValue;
  status?: string;
  /** local_shell_call / web_search_call. */
  action?: CallAction;
  /** image_generation_call. */
  revised_prompt?: string;
}

/** response_item `action` (local_shell_call, web_search_call) and event_msg web_search_end `action`. */
interface CallAction {
  type?: string;
  query?: string;
  command?: JsonValue;
}

/** A function_call's parsed `arguments` (only the fields the decoder reads). */
interface ToolArguments {
  /** apply_patch. */
  input?: string;
  patch?: string;
  /** update_plan. */
  plan?: JsonValue;
}

/** A tool output object: `{content, success}`. */
interface ToolOutputObject {
  content?: JsonValue;
  success?: boolean;
}

/** Codex ≤ ~0.4x shell output: JSON text. */
interface LegacyShellOutput {
  output?: string;
  metadata?: { exit_code?: number; duration_seconds?: number };
}

/** event_msg payload: the UI event stream, in part (the persisted subset). */
interface EventMsgPayload {
  type: string;
  turn_id?: string;
  /** user_message, agent_message, error, warning, stream_error. */
  message?: string;
  phase?: string;
  /** agent_reasoning, agent_reasoning_raw_content. */
  text?: string;
  /** token_count. */
  info?: { total_token_usage: JsonObject; last_token_usage: JsonObject; model_context_window?: number } | null;
  rate_limits?: JsonObject | null;
  /** task_complete. */
  last_agent_message?: string | null;
  duration_ms?: number;
  time_to_first_token_ms?: number;
  /** turn_aborted. */
  reason?: string;
  /** exec_command_end, patch_apply_end, mcp_tool_call_end, web_search_end, view_image_tool_call. */
  call_id?: string;
  exit_code?: number;
  stdout?: string;
  stderr?: string;
  aggregated_output?: string;
  formatted_output?: string;
  duration?: JsonValue;
  success?: boolean;
  changes?: JsonObject;
  invocation?: { server: string; tool: string; arguments?: JsonValue };
  result?: McpToolCallResult;
  query?: string;
  /** web_search_end. */
  action?: CallAction;
  path?: string;
  /** exec_command_begin / _end. */
  command?: JsonValue;
  cwd?: string;
  status?: string;
  /** plan_update. */
  plan?: JsonValue;
  /** notices: context_compacted and others, turn_diff. */
  summary?: string;
  unified_diff?: string;
  /** error. */
  codex_error_info?: JsonValue;
}

/** compacted payload: the summary that replaced the history. */
interface CompactedPayload {
  message?: string;
  replacement_history?: JsonValue[];
}

/** token_usage_record payload (0.152+): per-response, per-turn and per-thread usage. */
interface TokenUsageRecordPayload {
  thread_id?: string;
  turn_id?: string;
  response_id?: string;
  usage?: JsonObject;
  turn_token_usage?: JsonObject;
  thread_token_usage?: JsonObject;
}

/** turn_context payload: the settings of a turn. */
interface TurnContextPayload {
  turn_id?: string;
  cwd?: string;
  model?: string;
  approval_policy?: string;
  sandbox_policy?: { type: string };
  effort?: string;
  summary?: string;
}

// ---------------------------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------------------------

const ROLLOUT_TYPES: ReadonlySet<string> = new Set<RolloutType>([
  "session_meta",
  "response_item",
  "event_msg",
  "turn_context",
  "compacted",
  "world_state",
  "token_usage_record",
  "inter_agent_communication",
  "inter_agent_communication_metadata",
]);

/** event_msg types that carry nothing beyond a notice, with their level. */
const EVENT_NOTICES: Record<string, "info" | "warning"> = {
  warning: "warning",
  deprecation_notice: "warning",
  model_reroute: "warning",
  context_compacted: "info",
  entered_review_mode: "info",
  exited_review_mode: "info",
  thread_rolled_back: "info",
  undo_started: "info",
  undo_completed: "info",
  shutdown_complete: "info",
  background_event: "info",
  thread_name_updated: "info",
  thread_settings_applied: "info",
  session_configured: "info",
  mcp_startup_update: "info",
  mcp_startup_complete: "info",
  turn_diff: "info",
  item_started: "info",
  item_completed: "info",
  request_user_input: "warning",
  exec_approval_request: "warning",
  apply_patch_approval_request: "warning",
  elicitation_request: "warning",
  image_generation_begin: "info",
  image_generation_end: "info",
  collab_agent_spawn_begin: "info",
  collab_agent_spawn_end: "info",
  collab_agent_interaction_begin: "info",
  collab_agent_interaction_end: "info",
  collab_waiting_begin: "info",
  collab_waiting_end: "info",
  collab_close_begin: "info",
  collab_close_end: "info",
};

/** response_item types that carry nothing beyond a notice. */
const ITEM_NOTICES: Record<string, string> = {
  ghost_snapshot: "ghost_snapshot",
  compaction: "compact_boundary",
  compaction_summary: "compact_boundary",
  tool_search_call: "tool_search",
  tool_search_output: "tool_search",
  other: "other",
};

/** What a Codex tool does, by the name the model calls it. */
function toolKindOf(name: string): { kind: ToolKind; server?: string } {
  const mcp = /^(?:mcp__)?([^_].*?)__(.+)$/.exec(name);
  if (mcp !== null && mcp[1] !== undefined) return { kind: "mcp", server: mcp[1] };
  switch (name) {
    case "shell":
    case "shell_command":
    case "container.exec":
    case "exec_command":
    case "write_stdin":
    case "local_shell":
    case "unified_exec":
      return { kind: "command" };
    case "apply_patch":
      return { kind: "file_edit" };
    case "update_plan":
      return { kind: "todo" };
    case "view_image":
    case "read_file":
      return { kind: "file_read" };
    case "list_dir":
    case "grep_files":
      return { kind: "search" };
    case "web_search":
      return { kind: "web_search" };
    case "spawn_agent":
    case "send_input":
    case "wait":
    case "close_agent":
      return { kind: "subagent" };
    default:
      return { kind: "other" };
  }
}

/** The files an apply_patch patch (`*** Add File: p` / `*** Update File: p` / `*** Delete File: p` / `*** Move to: q`) touches. */
function patchTextChanges(patch: string): FileChange[] {
  const changes: { path: string; kind: FileChange["kind"]; newPath?: string; lines: string[] }[] = [];
  for (const line of patch.split("\n")) {
    const header = /^\*\*\* (Add|Update|Delete) File: (.+)$/.exec(line);
    if (header !== null && header[1] !== undefined && header[2] !== undefined) {
      changes.push({ path: header[2].trim(), kind: header[1] === "Add" ? "add" : header[1] === "Delete" ? "delete" : "update", lines: [] });
      continue;
    }
    const current = changes[changes.length - 1];
    if (current === undefined) continue;
    const move = /^\*\*\* Move to: (.+)$/.exec(line);
    if (move !== null && move[1] !== undefined) {
      current.kind = "rename";
      current.newPath = move[1].trim();
    } else if (line !== "*** End Patch" && line !== "*** End of File") current.lines.push(line);
  }
  return changes.map((c) =>
    compact({ path: c.path, kind: c.kind, newPath: c.newPath, diff: c.lines.length > 0 ? c.lines.join("\n") : undefined }),
  );
}

/** A tool output as the model saw it: text, plus the exit code and duration when the text or the wrapper says them. */
function parseOutput(
  raw: JsonValue | undefined,
  isCommand: boolean,
): { output?: string; exitCode?: number; durationMs?: number; success?: boolean } {
  const o = obj(raw);
  if (o !== undefined) {
    const wrapper: Wire<ToolOutputObject> = o;
    return compact({ output: textOf(field(wrapper, "content")), success: fieldBool(wrapper, "success") });
  }
  if (Array.isArray(raw)) return compact({ output: textOf(raw) });
  const text = str(raw);
  if (text === undefined) return {};
  if (isCommand && text.startsWith("{")) {
    // Codex ≤ ~0.4x shell output was JSON text `{"output": …, "metadata": {"exit_code", "duration_seconds"}}`; we unwrap it.
    try {
      const parsed = asWire<LegacyShellOutput>(JSON.parse(text) as JsonValue);
      const inner = fieldStr(parsed, "output");
      if (inner !== undefined) {
        const metadata = fieldObj(parsed, "metadata");
        const seconds = fieldNum(metadata, "duration_seconds");
        return compact({
          output: inner,
          exitCode: fieldNum(metadata, "exit_code"),
          durationMs: seconds === undefined ? undefined : Math.round(seconds * 1000),
        });
      }
    } catch {
      // not JSON: plain text below
    }
  }
  if (!isCommand) return { output: text };
  const code = /^(?:Process exited with code|Exit code:) (-?\d+)/m.exec(text);
  return compact({ output: text, exitCode: code?.[1] === undefined ? undefined : Number(code[1]) });
}

function detect(record: Parameters<Dialect["detect"]>[0]): boolean {
  if (record.kind !== "json") return false;
  const type = str(record.value, "type");
  return type !== undefined && ROLLOUT_TYPES.has(type) && obj(record.value, "payload") !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Decoder
// ---------------------------------------------------------------------------------------------

type Source = "response_item" | "event_msg";

/** Codex rollout files. */
export const codexSession: Dialect = {
  name: "codex-session",
  description: "Codex rollout files (~/.codex/sessions/**/rollout-*.jsonl)",
  detect,
  createDecoder: createRolloutDecoder,
};

function createRolloutDecoder(): DialectDecoder {
  const decoding = new RolloutStream();
  return {
    decode(record, context) {
      if (record.kind !== "json") return [];
      const v: Wire<RolloutLine> = record.value;
      const type = fieldStr(v, "type") as RolloutLine["type"] | undefined;
      // Each payload is read as the wire type of its line type, below.
      const payload: JsonObject | undefined = fieldObj(v, "payload");
      const out: AgentEventDraft[] = [];
      if (type === undefined || payload === undefined || !ROLLOUT_TYPES.has(type)) {
        decoding.unknown(out, context, v, `unknown codex rollout record ${JSON.stringify(type ?? null)}`);
        return out;
      }
      if (type !== "session_meta") decoding.ensureStarted(out);
      switch (type) {
        case "session_meta":
          decoding.sessionMeta(out, payload);
          break;
        case "response_item":
          decoding.responseItem(out, context, v, payload);
          break;
        case "event_msg":
          decoding.eventMsg(out, context, v, payload);
          break;
        case "turn_context":
          decoding.turnContext(out, payload);
          break;
        case "token_usage_record":
          decoding.tokenUsageRecord(out, payload);
          break;
        case "compacted": {
          const compacted: Wire<CompactedPayload> = payload;
          out.push({
            type: "notice",
            kind: "compact_boundary",
            level: "info",
            text: fieldStr(compacted, "message") || "history compacted",
            details: compact({ replacedItems: fieldArr(compacted, "replacement_history")?.length }),
          });
          break;
        }
        default:
          out.push({ type: "notice", kind: type, level: "info", text: type.replace(/_/g, " "), details: { ...payload } });
      }
      const time = fieldStr(v, "timestamp");
      if (time === undefined) return out;
      decoding.sawTimestamp = true;
      return out.map((draft) => (draft.time === undefined ? { ...draft, time } : draft));
    },
    end() {
      const out: AgentEventDraft[] = [];
      if (decoding.turnId !== undefined && decoding.pendingError !== undefined)
        decoding.endTurn(out, "error", { status: "error", error: decoding.pendingError });
      out.unshift(...decoding.state.closeAll());
      // A rollout has no session-end record: the last turn's end stands for it; a file cut (or still being written) mid-turn gets none.
      if (decoding.turnId === undefined && decoding.lastTurn !== undefined) {
        // With timestamps, `summary` takes the span of the rollout (docs/events.md); without, the turns' own durations add up.
        const durationMs = decoding.sawTimestamp ? undefined : decoding.turnDurationMs;
        out.push(
          compact({
            type: "session.completed" as const,
            status: decoding.lastTurn.status,
            error: decoding.lastTurn.error,
            finalText: decoding.finalText,
            usage: decoding.cumulative,
            durationMs,
          }),
        );
      }
      return out;
    },
  };
}

/** One stream's decoding state, and the handlers that read and update it. */
class RolloutStream {
  readonly state = createStreamState();
  started = false;
  turnId: string | undefined;
  lastTurn: { status: SessionStatus; error?: string } | undefined;
  pendingError: string | undefined;
  finalText: string | undefined;
  /** Sum of task_complete.duration_ms, the session's duration when the records carry no timestamps. */
  turnDurationMs: number | undefined;
  sawTimestamp = false;
  turnHadAnswer = false;
  cumulative: Usage | undefined;
  /** The running total last emitted (`codexUsageKey`). */
  cumulativeKey: string | undefined;
  model: string | undefined;
  /** Messages told once by response_item and once by event_msg: the first copy is the message, the second pairs with it. */
  readonly copies: { key: string; text: string; source: Source; messageId: string }[] = [];
  readonly calls = new Map<string, { name: string; kind: ToolKind; patch?: string; fileChanged: boolean }>();
  readonly usedIds = new Set<string>();

  unknown(out: AgentEventDraft[], context: DecodeContext, raw: JsonObject, reason: string): void {
    out.push(unknownRecord(raw, reason));
    context.report({ code: "unknown-record", message: reason });
  }

  ensureStarted(out: AgentEventDraft[]): void {
    if (this.started) return;
    this.started = true;
    out.push({ type: "session.started", agent: "codex" });
  }

  // ----- messages -----

  message(
    out: AgentEventDraft[],
    source: Source,
    record: string,
    role: MessageRole,
    kind: MessageKind,
    text: string,
    options: { id?: string | undefined; channel?: string | undefined; signature?: string | undefined; parts?: string[] } = {},
  ): void {
    const key = `${role}/${kind}/${options.channel === "raw" ? "raw" : ""}`;
    const parts = (options.parts ?? [text]).map((p) => p.trim()).filter((p) => p !== "");
    // Rollouts tell each message twice (response_item and event_msg); the second copy becomes an info notice so the text is not doubled.
    if (parts.length > 0 && parts.every((p) => this.copies.some((c) => c.key === key && c.source !== source && c.text === p))) {
      const ids: string[] = [];
      for (const p of parts) {
        const index = this.copies.findIndex((c) => c.key === key && c.source !== source && c.text === p);
        const [twin] = this.copies.splice(index, 1);
        if (twin !== undefined && !ids.includes(twin.messageId)) ids.push(twin.messageId);
      }
      out.push({
        type: "notice",
        kind: "duplicate",
        level: "info",
        text: `${record} repeats message ${ids.join(", ")}`,
        details: compact({ messageId: ids[0], record, phase: options.channel }),
      });
      return;
    }
    // Item ids are used once; a repeated one (a fork replays history) gets a fresh id so no message completes twice.
    const id =
      options.id !== undefined && !this.usedIds.has(options.id)
        ? options.id
        : this.state.nextId(role === "assistant" ? (kind === "text" ? "msg" : "reasoning") : role);
    this.usedIds.add(id);
    out.push(...this.state.complete(id, text, role, kind, compact({ channel: options.channel, signature: options.signature })));
    for (const p of parts) this.copies.push({ key, text: p, source, messageId: id });
    if (this.copies.length > 64) this.copies.splice(0, this.copies.length - 64);
    if (role === "assistant" && kind === "text" && options.channel !== "plan" && text.trim() !== "") this.turnHadAnswer = true;
  }

  // ----- tools -----

  startCall(out: AgentEventDraft[], id: string, name: string, input: JsonValue | undefined, patch?: string): void {
    if (this.calls.has(id)) return;
    const { kind, server } = toolKindOf(name);
    this.calls.set(id, compact({ name, kind, patch, fileChanged: false }));
    this.state.toolStarted(id, name);
    out.push(compact({ type: "tool.started" as const, toolCallId: id, name, kind, input, server }));
  }

  finishCall(
    out: AgentEventDraft[],
    id: string,
    record: string,
    fields: {
      output?: string | undefined;
      result?: JsonValue | undefined;
      exitCode?: number | undefined;
      durationMs?: number | undefined;
      isError: boolean;
    },
  ): void {
    const call = this.calls.get(id);
    if (this.state.toolCompleted(id)) {
      out.push(compact({ type: "tool.completed" as const, toolCallId: id, name: call?.name, ...fields }));
      if (call?.patch !== undefined && !call.fileChanged) {
        const changes = patchTextChanges(call.patch);
        call.fileChanged = true;
        if (changes.length > 0) out.push({ type: "file.changed", changes, toolCallId: id, status: fields.isError ? "error" : "success" });
      }
      return;
    }
    // A call ends twice in rollouts (exec_command_end / patch_apply_end, then the *_output item the model saw); the second is a notice.
    out.push({
      type: "notice",
      kind: "tool_output",
      level: "info",
      text: `${record} for tool call ${id}`,
      details: compact({ toolCallId: id, record, exitCode: fields.exitCode, isError: fields.isError }),
    });
  }

  // ----- turns -----

  endTurn(out: AgentEventDraft[], status: "success" | "error", outcome: { status: SessionStatus; error?: string }, id?: string): void {
    if (outcome.error !== undefined) {
      // An aborted or failed turn ends its running tool calls; we close them as errors with the turn's reason.
      for (const [callId, call] of this.calls) {
        if (this.state.toolCompleted(callId))
          out.push({ type: "tool.completed", toolCallId: callId, name: call.name, isError: true, output: outcome.error });
      }
    }
    const turn = this.turnId ?? id ?? this.state.nextId("turn");
    out.push(compact({ type: "turn.completed" as const, turnId: turn, status, error: outcome.error }));
    this.turnId = undefined;
    this.pendingError = undefined;
    this.lastTurn = outcome;
    this.copies.length = 0;
  }

  usageFigure(out: AgentEventDraft[], usage: Usage | undefined): boolean {
    // token_count and token_usage_record repeat the same thread total; we emit one cumulative usage per distinct figure.
    // One snapshot per running total, the rule `usage` counts by (src/model/usage-keys.ts).
    if (usage === undefined) return false;
    const key = codexUsageKey("", codexRunningTotal(undefined, usage.inputTokens ?? 0, usage.outputTokens ?? 0));
    if (key === this.cumulativeKey) return false;
    this.cumulativeKey = key;
    this.cumulative = usage;
    out.push(compact({ type: "usage" as const, usage, scope: "cumulative" as const, model: this.model }));
    return true;
  }

  // ----- record types -----

  sessionMeta(out: AgentEventDraft[], p: Wire<SessionMetaPayload>): void {
    const meta: Partial<SessionMetaPayload> = compact({
      id: fieldStr(p, "id") ?? fieldStr(p, "session_id"),
      cli_version: fieldStr(p, "cli_version"),
      cwd: fieldStr(p, "cwd"),
    });
    if (this.started) {
      // A forked rollout repeats its source session's meta after its own; we keep it as a notice.
      out.push({ type: "notice", kind: "session_meta", level: "info", text: `session ${meta.id ?? "?"} (fork source)`, details: { ...p } });
      return;
    }
    this.started = true;
    const details: JsonObject = { ...p };
    for (const key of ["id", "session_id", "cwd", "cli_version", "model"]) delete details[key];
    this.model = fieldStr(p, "model") ?? fieldStr(fieldObj(fieldObj(p, "base_instructions"), "provenance"), "model");
    // session_meta.timestamp is when the session was created, a little before the record was written; the session starts then.
    out.push(
      compact({
        type: "session.started" as const,
        agent: "codex",
        agentVersion: meta.cli_version,
        model: this.model,
        cwd: meta.cwd,
        sessionId: meta.id,
        details,
        time: fieldStr(p, "timestamp"),
      }),
    );
  }

  responseItem(out: AgentEventDraft[], context: DecodeContext, v: JsonObject, p: Wire<ResponseItemPayload>): void {
    const type = fieldStr(p, "type") as ResponseItemPayload["type"] | undefined;
    const callId = fieldStr(p, "call_id");
    switch (type) {
      case "message": {
        const role = fieldStr(p, "role");
        if (role !== "assistant" && role !== "user" && role !== "developer" && role !== "system")
          return this.unknown(out, context, v, `codex response_item message with role ${JSON.stringify(role ?? null)}`);
        const parts = fieldItems(p, "content")
          .map((c) => fieldStr(c, "text"))
          .filter((t): t is string => t !== undefined);
        const text = parts.join(role === "assistant" ? "" : "\n\n");
        this.message(out, "response_item", "response_item message", role, "text", text, {
          id: fieldStr(p, "id"),
          channel: fieldStr(p, "phase"),
        });
        return;
      }
      case "reasoning": {
        const summary = fieldItems(p, "summary")
          .map((s) => fieldStr(s, "text"))
          .filter((t): t is string => t !== undefined && t !== "");
        const raw = fieldItems(p, "content")
          .map((s) => fieldStr(s, "text"))
          .filter((t): t is string => t !== undefined && t !== "");
        const encrypted = fieldStr(p, "encrypted_content");
        if (summary.length > 0)
          this.message(out, "response_item", "response_item reasoning", "assistant", "reasoning", summary.join("\n\n"), {
            id: fieldStr(p, "id"),
            parts: summary,
            signature: encrypted,
          });
        if (raw.length > 0)
          this.message(out, "response_item", "response_item reasoning", "assistant", "reasoning", raw.join("\n\n"), {
            channel: "raw",
            parts: raw,
          });
        // Reasoning with only encrypted_content: the provider withheld it; we emit redacted_reasoning with the ciphertext as signature.
        if (summary.length === 0 && raw.length === 0) {
          const itemId = fieldStr(p, "id");
          const id = itemId !== undefined && !this.usedIds.has(itemId) ? itemId : this.state.nextId("reasoning");
          this.usedIds.add(id);
          out.push(
            ...this.state.complete(
              id,
              "",
              "assistant",
              encrypted !== undefined ? "redacted_reasoning" : "reasoning",
              compact({ signature: encrypted }),
            ),
          );
        }
        return;
      }
      case "function_call":
      case "custom_tool_call":
      case "local_shell_call": {
        const id = callId ?? fieldStr(p, "id") ?? this.state.nextId("call");
        const name = type === "local_shell_call" ? "local_shell" : (fieldStr(p, "name") ?? type);
        let input: JsonValue | undefined;
        let patch: string | undefined;
        if (type === "function_call") {
          const args = fieldStr(p, "arguments");
          try {
            input = args === undefined ? undefined : (JSON.parse(args) as JsonValue);
          } catch {
            input = args;
          }
          const toolArgs = asWire<ToolArguments>(input);
          if (name === "apply_patch") patch = fieldStr(toolArgs, "input") ?? fieldStr(toolArgs, "patch");
        } else if (type === "custom_tool_call") {
          input = field(p, "input");
          if (name === "apply_patch") patch = str(input);
        } else input = fieldObj(p, "action");
        this.startCall(out, id, name, input, patch);
        const planArgs = name === "update_plan" ? asWire<ToolArguments>(input) : undefined;
        if (planArgs !== undefined) out.push({ type: "plan.updated", items: codexPlanItems(field(planArgs, "plan")) });
        return;
      }
      case "function_call_output":
      case "custom_tool_call_output": {
        const id = callId ?? this.state.nextId("call");
        this.startCall(out, id, type === "function_call_output" ? "function_call" : "custom_tool_call", undefined);
        const call = this.calls.get(id);
        const parsed = parseOutput(field(p, "output"), call?.kind === "command");
        const isError = parsed.success === false || (parsed.exitCode !== undefined && parsed.exitCode !== 0);
        this.finishCall(out, id, `response_item ${type}`, {
          output: parsed.output,
          exitCode: parsed.exitCode,
          durationMs: parsed.durationMs,
          isError,
        });
        return;
      }
      case "web_search_call": {
        const id = fieldStr(p, "id") ?? callId ?? this.state.nextId("web_search");
        const action = fieldObj(p, "action");
        this.startCall(out, id, "web_search", action);
        this.finishCall(out, id, "response_item web_search_call", {
          output: fieldStr(action, "query"),
          isError: fieldStr(p, "status") === "failed",
        });
        return;
      }
      case "image_generation_call": {
        const id = fieldStr(p, "id") ?? callId ?? this.state.nextId("image");
        this.startCall(out, id, "image_generation", compact({ prompt: fieldStr(p, "revised_prompt") }));
        this.finishCall(out, id, "response_item image_generation_call", { isError: fieldStr(p, "status") === "failed" });
        return;
      }
      default: {
        const kind = type === undefined ? undefined : ITEM_NOTICES[type];
        if (kind === undefined) return this.unknown(out, context, v, `unknown codex response_item type ${JSON.stringify(type ?? null)}`);
        out.push({ type: "notice", kind, level: "info", text: `response_item ${type}`, details: { ...p } });
      }
    }
  }

  eventMsg(out: AgentEventDraft[], context: DecodeContext, v: Wire<RolloutLine>, p: Wire<EventMsgPayload>): void {
    const type = fieldStr(p, "type") ?? "";
    const callId = fieldStr(p, "call_id") ?? "";
    const record: EventMsgRecord = { v, p, callId, type };
    if (dispatch(eventMsgHandlers, type, record, this, out, context)) return;
    const level = EVENT_NOTICES[type];
    if (level === undefined) return this.unknown(out, context, v, `unknown codex event_msg type ${JSON.stringify(type)}`);
    const details: JsonObject = { ...p };
    delete details.type;
    const text =
      fieldStr(p, "message") ?? fieldStr(p, "summary") ?? fieldStr(p, "reason") ?? fieldStr(p, "unified_diff") ?? type.replace(/_/g, " ");
    out.push({ type: "notice", kind: type === "context_compacted" ? "compact_boundary" : type, level, text, details });
  }

  turnContext(out: AgentEventDraft[], p: Wire<TurnContextPayload>): void {
    const ctx: TurnContextPayload = compact({
      model: fieldStr(p, "model"),
      approval_policy: fieldStr(p, "approval_policy"),
      effort: fieldStr(p, "effort"),
    });
    const sandbox = fieldStr(fieldObj(p, "sandbox_policy"), "type");
    if (ctx.model !== undefined) this.model = ctx.model;
    const parts = [
      ctx.model !== undefined ? `model ${ctx.model}` : undefined,
      ctx.effort !== undefined ? `effort ${ctx.effort}` : undefined,
      ctx.approval_policy !== undefined ? `approval ${ctx.approval_policy}` : undefined,
      sandbox !== undefined ? `sandbox ${sandbox}` : undefined,
    ].filter((s): s is string => s !== undefined);
    // turn_context names the model (session_meta does not); we keep it as a notice and put the model on later usage events.
    out.push({ type: "notice", kind: "turn_context", level: "info", text: parts.join(", ") || "turn context", details: { ...p } });
  }

  tokenUsageRecord(out: AgentEventDraft[], p: Wire<TokenUsageRecordPayload>): void {
    const record: TokenUsageRecordPayload = compact({
      response_id: fieldStr(p, "response_id"),
      thread_token_usage: fieldObj(p, "thread_token_usage"),
    });
    if (this.usageFigure(out, codexUsage(record.thread_token_usage))) return;
    out.push({
      type: "notice",
      kind: "token_usage_record",
      level: "info",
      text: `token usage of ${record.response_id ?? "a response"}`,
      details: { ...p },
    });
  }
}

/** An `eventMsg` record as its handler sees it. */
interface EventMsgRecord {
  readonly v: Wire<RolloutLine>;
  readonly p: Wire<EventMsgPayload>;
  readonly callId: string;
  readonly type: string;
}

type EventMsgType =
  | "task_started"
  | "turn_started"
  | "task_complete"
  | "turn_complete"
  | "turn_aborted"
  | "user_message"
  | "agent_message"
  | "agent_reasoning"
  | "agent_reasoning_raw_content"
  | "token_count"
  | "error"
  | "stream_error"
  | "plan_update"
  | "exec_command_begin"
  | "exec_command_end"
  | "patch_apply_begin"
  | "patch_apply_end"
  | "mcp_tool_call_begin"
  | "mcp_tool_call_end"
  | "web_search_begin"
  | "web_search_end"
  | "view_image_tool_call";

const taskStarted: Handler<EventMsgRecord, RolloutStream> = (r, s, out) => {
  const { p } = r;
  s.turnId = fieldStr(p, "turn_id") ?? s.state.nextId("turn");
  s.turnHadAnswer = false;
  s.pendingError = undefined;
  out.push({ type: "turn.started", turnId: s.turnId });
  return;
};

const taskComplete: Handler<EventMsgRecord, RolloutStream> = (r, s, out) => {
  const { p } = r;
  const last = fieldStr(p, "last_agent_message");
  if (last !== undefined && last.trim() !== "") {
    // Filtered rollouts may keep no message for the answer; we keep last_agent_message as the message then.
    if (!s.turnHadAnswer) out.push(...s.state.complete(s.state.nextId("msg"), last, "assistant", "text"));
    s.finalText = last;
  }
  const durationMs = fieldNum(p, "duration_ms");
  if (durationMs !== undefined && durationMs >= 0) s.turnDurationMs = (s.turnDurationMs ?? 0) + durationMs;
  const ttft = fieldNum(p, "time_to_first_token_ms");
  if (durationMs !== undefined || ttft !== undefined) {
    out.push({
      type: "metric",
      name: "turn_timing",
      text: `turn ${fieldStr(p, "turn_id") ?? s.turnId ?? ""}`.trim(),
      values: compact({ duration_ms: durationMs, time_to_first_token_ms: ttft }),
    });
  }
  s.endTurn(out, "success", { status: "success" }, fieldStr(p, "turn_id"));
  return;
};

const mcpToolCallBegin: Handler<EventMsgRecord, RolloutStream> = (r, s, out) => {
  const { p, callId, type } = r;
  const invocation = fieldObj(p, "invocation");
  const tool = fieldStr(invocation, "tool");
  const server = fieldStr(invocation, "server");
  if (!s.calls.has(callId)) {
    s.calls.set(callId, { name: tool ?? "mcp_tool_call", kind: "mcp", fileChanged: false });
    s.state.toolStarted(callId, tool ?? "mcp_tool_call");
    out.push(
      compact({
        type: "tool.started" as const,
        toolCallId: callId,
        name: tool ?? "mcp_tool_call",
        kind: "mcp" as const,
        input: field(invocation, "arguments"),
        server,
      }),
    );
  } else if (type === "mcp_tool_call_begin") out.push({ type: "tool.progress", toolCallId: callId, status: "running" });
  if (type === "mcp_tool_call_begin") return;
  const result = fieldObj(p, "result");
  const ok = fieldObj(result, "Ok") ?? (fieldArr(result, "content") !== undefined ? result : undefined);
  const err = field(result, "Err");
  const structured = field(ok, "structuredContent") ?? field(ok, "structured_content");
  s.finishCall(out, callId, "event_msg mcp_tool_call_end", {
    output: err !== undefined ? textOf(err) : textOf(fieldArr(ok, "content")),
    result: structured === null ? undefined : structured,
    isError: err !== undefined || fieldBool(ok, "isError") === true || fieldBool(ok, "is_error") === true,
    durationMs: codexDurationMs(field(p, "duration")),
  });
  return;
};

const eventMsgHandlers = handlers<EventMsgType, EventMsgRecord, RolloutStream>({
  task_started: taskStarted,
  turn_started: taskStarted,
  task_complete: taskComplete,
  turn_complete: taskComplete,
  turn_aborted: (r, s, out) => {
    const { p } = r;
    const error = `turn aborted: ${fieldStr(p, "reason") ?? "unknown reason"}`;
    s.endTurn(out, "error", { status: "interrupted", error }, fieldStr(p, "turn_id"));
    return;
  },
  user_message: (r, s, out) => {
    const { p } = r;
    s.message(out, "event_msg", "event_msg user_message", "user", "text", fieldStr(p, "message") ?? "");
    return;
  },
  agent_message: (r, s, out) => {
    const { p } = r;
    s.message(out, "event_msg", "event_msg agent_message", "assistant", "text", fieldStr(p, "message") ?? "", {
      channel: fieldStr(p, "phase"),
    });
    return;
  },
  agent_reasoning: (r, s, out) => {
    const { p } = r;
    s.message(out, "event_msg", "event_msg agent_reasoning", "assistant", "reasoning", fieldStr(p, "text") ?? "");
    return;
  },
  agent_reasoning_raw_content: (r, s, out) => {
    const { p } = r;
    s.message(out, "event_msg", "event_msg agent_reasoning_raw_content", "assistant", "reasoning", fieldStr(p, "text") ?? "", {
      channel: "raw",
    });
    return;
  },
  token_count: (r, s, out) => {
    const { v, p } = r;
    const before = out.length;
    s.usageFigure(out, codexUsage(field(fieldObj(p, "info"), "total_token_usage")));
    out.push(...codexRateLimits(field(p, "rate_limits"), fieldStr(v, "timestamp")));
    if (out.length === before) out.push({ type: "notice", kind: "token_count", level: "info", text: "token count (no new figures)" });
    return;
  },
  error: (r, s, out) => {
    const { p } = r;
    const message = fieldStr(p, "message") ?? "";
    const info = field(p, "codex_error_info");
    const code = str(info) ?? Object.keys(obj(info) ?? {})[0];
    s.pendingError = message;
    if (s.turnId === undefined) s.lastTurn = { status: "error", error: message };
    out.push(compact({ type: "error" as const, scope: "turn" as const, message, code, turnId: s.turnId }));
    return;
  },
  stream_error: (r, _s, out) => {
    const { p } = r;
    const message = fieldStr(p, "message") ?? "";
    out.push(codexReconnect(message) ?? { type: "error", scope: "stream", message });
    return;
  },
  plan_update: (r, _s, out) => {
    const { p } = r;
    out.push({ type: "plan.updated", items: codexPlanItems(field(p, "plan")) });
    return;
  },
  exec_command_begin: (r, s, out) => {
    const { p, callId } = r;
    if (s.calls.has(callId)) out.push({ type: "tool.progress", toolCallId: callId, status: "running" });
    else s.startCall(out, callId, "exec_command", compact({ command: field(p, "command"), cwd: fieldStr(p, "cwd") }));
    return;
  },
  exec_command_end: (r, s, out) => {
    const { p, callId } = r;
    s.startCall(out, callId, "exec_command", compact({ command: field(p, "command"), cwd: fieldStr(p, "cwd") }));
    const exitCode = fieldNum(p, "exit_code");
    s.finishCall(out, callId, "event_msg exec_command_end", {
      output:
        fieldStr(p, "aggregated_output") ?? joinOutput(fieldStr(p, "stdout"), fieldStr(p, "stderr")) ?? fieldStr(p, "formatted_output"),
      exitCode,
      durationMs: codexDurationMs(field(p, "duration")),
      isError: (exitCode !== undefined && exitCode !== 0) || fieldStr(p, "status") === "failed" || fieldStr(p, "status") === "declined",
    });
    return;
  },
  patch_apply_begin: (r, s, out) => {
    const { p, callId } = r;
    if (s.calls.has(callId)) out.push({ type: "tool.progress", toolCallId: callId, status: "applying" });
    else s.startCall(out, callId, "apply_patch", compact({ changes: field(p, "changes") }));
    return;
  },
  patch_apply_end: (r, s, out) => {
    const { p, callId } = r;
    s.startCall(out, callId, "apply_patch", undefined);
    const success = fieldBool(p, "success") !== false;
    const call = s.calls.get(callId);
    const changes = codexPatchChanges(field(p, "changes"));
    if (changes.length > 0 && call !== undefined && !call.fileChanged) {
      call.fileChanged = true;
      out.push({ type: "file.changed", changes, toolCallId: callId, status: success ? "success" : "error" });
    }
    s.finishCall(out, callId, "event_msg patch_apply_end", {
      output: joinOutput(fieldStr(p, "stdout"), fieldStr(p, "stderr")),
      isError: !success,
    });
    return;
  },
  mcp_tool_call_begin: mcpToolCallBegin,
  mcp_tool_call_end: mcpToolCallBegin,
  web_search_begin: (r, s, out) => {
    const { p, callId } = r;
    s.startCall(out, callId, "web_search", compact({ query: fieldStr(p, "query") }));
    return;
  },
  web_search_end: (r, s, out) => {
    const { p, callId } = r;
    s.startCall(out, callId, "web_search", compact({ query: fieldStr(p, "query"), action: fieldObj(p, "action") }));
    s.finishCall(out, callId, "event_msg web_search_end", {
      output: fieldStr(p, "query") ?? fieldStr(fieldObj(p, "action"), "query"),
      isError: false,
    });
    return;
  },
  view_image_tool_call: (r, s, out) => {
    const { p, callId } = r;
    s.startCall(out, callId, "view_image", compact({ path: fieldStr(p, "path") }));
    s.finishCall(out, callId, "event_msg view_image_tool_call", { isError: false });
    return;
  },
});
