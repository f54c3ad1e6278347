// Source: `codex exec --json` (0.44+), `codex exec --experimental-json` (0.40–0.43) and the legacy `codex exec --json` / `codex proto` `{id,msg}` stream; versions and quirks: docs/dialects/codex.md
import type { AgentEventDraft, FileChange, JsonObject, JsonValue, PlanItem, SessionStatus, Usage } from "../../model/events.ts";
import { usageFrom } from "../../model/usage.ts";
import type { DecodeContext, Dialect } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { arr, at, bool, compact, get, num, obj, str, textOf } from "../../dialect/json.ts";
import { createStreamState } from "../../dialect/messages.ts";

// ---------------------------------------------------------------------------------------------
// Wire types: current format (0.44+) and `--experimental-json` (0.40–0.43)
// ---------------------------------------------------------------------------------------------

/** One line of `codex exec --json` (exec_events.rs `ThreadEvent`), or of 0.40–0.42 `--experimental-json`. */
interface ThreadEvent {
  type:
    | "thread.started"
    | "turn.started"
    | "turn.completed"
    | "turn.failed"
    | "item.started"
    | "item.updated"
    | "item.completed"
    | "item.plan.delta"
    | "request_user_input"
    | "error"
    /** 0.40–0.42 only: the session id line. */
    | "session.created";
  /** thread.started. */
  thread_id?: string;
  /** session.created (0.40–0.42). */
  session_id?: string;
  /** turn.completed: the thread's running total, not the turn's own figure. */
  usage?: CodexUsage;
  /** turn.failed. */
  error?: { message: string };
  /** item.*. */
  item?: ThreadItem;
  /** item.plan.delta. */
  item_id?: string;
  delta?: string;
  /** error. */
  message?: string;
  /** request_user_input. */
  id?: string;
  call_id?: string;
  questions?: { id: string; header?: string; question: string; options?: { label: string; description?: string }[] }[];
}

/** Token counts (OpenAI semantics: `input_tokens` includes `cached_input_tokens`, `output_tokens` includes `reasoning_output_tokens`). */
interface CodexUsage {
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  /** 0.149+. */
  cache_write_input_tokens?: number;
  /** 0.149+ (and every `token_count`). */
  reasoning_output_tokens?: number;
  total_tokens?: number;
}

/** An item: `{id, type, ...fields}`; 0.40–0.43 name the tag `item_type` and call the answer `assistant_message`. */
interface ThreadItem {
  id: string;
  type?: ItemType;
  item_type?: ItemType | "assistant_message";
  /** agent_message, reasoning (a summary), plan. */
  text?: string;
  /** command_execution: the wrapped shell string (`/bin/bash -lc '…'`). */
  command?: string;
  aggregated_output?: string;
  /** Absent (0.46) or null while running. */
  exit_code?: number | null;
  status?: "in_progress" | "completed" | "failed" | "declined";
  /** file_change; `kind` may be an object `{type, move_path}` in app-server-era builds; `diff` is newer. */
  changes?: { path: string; kind: string | { type: string; move_path?: string | null }; diff?: string }[];
  /** mcp_tool_call. */
  server?: string;
  tool?: string;
  arguments?: JsonValue;
  result?: { content: JsonValue[]; structured_content?: JsonValue } | null;
  error?: { message: string } | null;
  /** web_search (started: `query:""`, `action:{type:"other"}`). */
  query?: string;
  action?: { type: string; query?: string; queries?: string[] };
  /** todo_list. */
  items?: { text: string; completed: boolean }[];
  /** error item: a warning, not a failure. */
  message?: string;
  /** collab_tool_call. */
  sender_thread_id?: string;
  receiver_thread_ids?: string[];
  prompt?: string | null;
  agents_states?: Record<string, { status: string; message?: string | null }>;
}

type ItemType =
  | "agent_message"
  | "reasoning"
  | "plan"
  | "command_execution"
  | "file_change"
  | "mcp_tool_call"
  | "collab_tool_call"
  | "web_search"
  | "todo_list"
  | "error";

// ---------------------------------------------------------------------------------------------
// Wire types: legacy `codex exec --json` (≤ ~0.41) and `codex proto`
// ---------------------------------------------------------------------------------------------

/** The first line of legacy exec --json: the config summary (keys with spaces, string values). */
interface LegacyConfigSummary {
  model?: string;
  provider?: string;
  approval?: string;
  sandbox?: string;
  workdir?: string;
  "reasoning effort"?: string;
  "reasoning summaries"?: string;
  "session id"?: string;
}

/** Second line of legacy exec --json. */
interface LegacyPrompt {
  prompt: string;
}

/** A protocol `Event`: `{"id": <submission id>, "msg": {"type": <EventMsg>, ...}}`. */
interface LegacyEvent {
  id: string;
  msg: LegacyMsg;
}

/** The EventMsg fields we read, by `type`. */
interface LegacyMsg {
  type: string;
  /** session_configured. */
  session_id?: string;
  model?: string;
  /** agent_message. */
  message?: string;
  /** *_delta. */
  delta?: string;
  /** agent_reasoning, agent_reasoning_raw_content. */
  text?: string;
  /** exec_command_*, patch_apply_*, mcp_tool_call_*, web_search_*. */
  call_id?: string;
  /** exec_command_begin: argv. */
  command?: string[];
  cwd?: string;
  /** exec_command_output_delta: base64 text (or a byte array). */
  stream?: "stdout" | "stderr";
  chunk?: string | number[];
  /** exec_command_end. */
  stdout?: string;
  stderr?: string;
  aggregated_output?: string;
  exit_code?: number;
  duration?: { secs: number; nanos: number } | string;
  /** patch_apply_begin: `{path: {add:{content}} | {delete:{}} | {update:{unified_diff, move_path}}}`. */
  changes?: Record<string, JsonValue>;
  auto_approved?: boolean;
  /** patch_apply_end. */
  success?: boolean;
  /** mcp_tool_call_*. */
  invocation?: { server: string; tool: string; arguments?: JsonValue };
  result?: { Ok: { content: JsonValue[]; isError?: boolean; structuredContent?: JsonValue } } | { Err: string };
  /** token_count, flat (early) or nested (later). */
  input_tokens?: number;
  info?: { total_token_usage: CodexUsage; last_token_usage: CodexUsage; model_context_window?: number } | null;
  rate_limits?: JsonObject | null;
  /** task_complete. */
  last_agent_message?: string | null;
  /** turn_aborted. */
  reason?: string;
  /** plan_update. */
  plan?: { step: string; status: string }[];
  explanation?: string | null;
  /** turn_diff. */
  unified_diff?: string;
  /** view_image_tool_call. */
  path?: string;
}

// ---------------------------------------------------------------------------------------------
// Helpers shared with codex-session.ts
// ---------------------------------------------------------------------------------------------

/** Codex token counts as a Usage (input includes cached; output includes reasoning). */
export function codexUsage(value: JsonValue | undefined): Usage | undefined {
  const u = obj(value);
  if (u === undefined) return undefined;
  return usageFrom({
    inputTokens: get(u, "input_tokens"),
    outputTokens: get(u, "output_tokens"),
    cacheReadTokens: get(u, "cached_input_tokens"),
    cacheWriteTokens: get(u, "cache_write_input_tokens"),
    reasoningTokens: get(u, "reasoning_output_tokens"),
  });
}

/** True when two usages carry the same figures. */
export function sameUsage(a: Usage | undefined, b: Usage | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  return (
    a.inputTokens === b.inputTokens &&
    a.outputTokens === b.outputTokens &&
    a.cacheReadTokens === b.cacheReadTokens &&
    a.cacheWriteTokens === b.cacheWriteTokens &&
    a.reasoningTokens === b.reasoningTokens
  );
}

/** `rate_limit` drafts for a Codex `rate_limits` object (one per window: primary, secondary). */
export function codexRateLimits(rateLimits: JsonValue | undefined, recordTime?: string): AgentEventDraft[] {
  const limits = obj(rateLimits);
  if (limits === undefined) return [];
  const out: AgentEventDraft[] = [];
  for (const window of ["primary", "secondary"] as const) {
    const w = obj(limits, window);
    if (w === undefined) continue;
    const used = num(w, "used_percent");
    let resetsAt: string | undefined;
    const resetsAtSec = num(w, "resets_at");
    const resetsIn = num(w, "resets_in_seconds");
    if (resetsAtSec !== undefined) resetsAt = isoFromEpochSeconds(resetsAtSec);
    else if (resetsIn !== undefined && recordTime !== undefined) {
      const base = Date.parse(recordTime);
      if (Number.isFinite(base)) resetsAt = isoFromEpochSeconds(base / 1000 + resetsIn);
    }
    const details: JsonObject = { ...w };
    for (const key of ["limit_id", "limit_name", "plan_type", "credits", "rate_limit_reached_type", "individual_limit", "spend_control_reached"]) {
      const v = get(limits, key);
      if (v !== undefined) details[key] = v;
    }
    // Codex reports a usage percentage, not a status; we say "rejected" at 100% or more, else "allowed".
    out.push(compact({ type: "rate_limit" as const, status: used !== undefined && used >= 100 ? "rejected" : "allowed", resetsAt, limit: window, details }));
  }
  return out;
}

function isoFromEpochSeconds(seconds: number): string | undefined {
  const d = new Date(seconds * 1000);
  return Number.isFinite(d.getTime()) ? d.toISOString() : undefined;
}

/** A retry draft for Codex's `Reconnecting... n/m (…)` messages, else undefined. */
export function codexReconnect(message: string): AgentEventDraft | undefined {
  const m = /^Reconnecting\.\.\.\s*(\d+)\/(\d+)/.exec(message);
  if (m === null) return undefined;
  return { type: "retry", attempt: Number(m[1]), maxAttempts: Number(m[2]), error: message };
}

/** Legacy / rollout patch `changes` map (`{path: {add|delete|update}}` or `{path: {type, ...}}`) as FileChanges. */
export function codexPatchChanges(changes: JsonValue | undefined): FileChange[] {
  const map = obj(changes);
  if (map === undefined) return [];
  const out: FileChange[] = [];
  for (const path of Object.keys(map)) {
    const change = obj(map, path);
    if (change === undefined) continue;
    const tagged = str(change, "type");
    const kind = tagged ?? (obj(change, "add") ? "add" : obj(change, "delete") ? "delete" : obj(change, "update") ? "update" : undefined);
    const body = tagged !== undefined ? change : obj(change, kind ?? "");
    if (kind === "add") out.push(compact({ path, kind: "add" as const, diff: str(body, "content") }));
    else if (kind === "delete") out.push(compact({ path, kind: "delete" as const, diff: str(body, "content") }));
    else {
      const movePath = str(body, "move_path");
      const diff = str(body, "unified_diff");
      out.push(movePath !== undefined ? compact({ path, kind: "rename" as const, newPath: movePath, diff }) : compact({ path, kind: "update" as const, diff }));
    }
  }
  return out;
}

/** Milliseconds of a Rust `Duration` as serde writes it (`{secs, nanos}`), or of a `"1.5s"` / `"120ms"` string. */
export function codexDurationMs(value: JsonValue | undefined): number | undefined {
  const d = obj(value);
  if (d !== undefined) {
    const secs = num(d, "secs");
    if (secs === undefined) return undefined;
    return Math.round(secs * 1000 + (num(d, "nanos") ?? 0) / 1e6);
  }
  const s = str(value);
  if (s === undefined) return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s)$/.exec(s.trim());
  if (m === null) return undefined;
  return Math.round(Number(m[1]) * (m[2] === "s" ? 1000 : 1));
}

/** stdout and stderr as one text, without gluing two lines together. */
export function joinOutput(stdout: string | undefined, stderr: string | undefined): string | undefined {
  if (stdout === undefined || stdout === "") return stderr ?? stdout;
  if (!stderr) return stdout;
  return stdout.endsWith("\n") ? stdout + stderr : `${stdout}\n${stderr}`;
}

/** A plan step status as the model names it (`pending|in_progress|completed`, with common variants). */
export function planStatus(value: string | undefined): PlanItem["status"] {
  if (value === "completed" || value === "done") return "completed";
  if (value === "in_progress" || value === "inProgress" || value === "running") return "in_progress";
  return "pending";
}

/** `update_plan` arguments / `plan_update` payload (`{explanation?, plan: [{step, status}]}`) as plan items. */
export function codexPlanItems(plan: JsonValue | undefined): PlanItem[] {
  const items: PlanItem[] = [];
  for (const step of arr(plan) ?? []) {
    const text = str(step, "step") ?? str(step, "text");
    if (text !== undefined) items.push({ text, status: planStatus(str(step, "status")) });
  }
  return items;
}

// ---------------------------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------------------------

const TURN_TYPES = new Set(["turn.started", "turn.completed", "turn.failed"]);

function isLegacyConfig(v: JsonObject): boolean {
  // Legacy exec --json line 1: `{"model":…,"provider":…,"approval":…,"sandbox":…,"workdir":…}`.
  return get(v, "type") === undefined && str(v, "workdir") !== undefined && str(v, "model") !== undefined && (str(v, "sandbox") !== undefined || str(v, "approval") !== undefined);
}

function isLegacyPrompt(v: JsonObject): boolean {
  const keys = Object.keys(v);
  return keys.length === 1 && str(v, "prompt") !== undefined;
}

function isLegacyEvent(v: JsonObject): boolean {
  return typeof get(v, "id") === "string" && str(obj(v, "msg"), "type") !== undefined;
}

function detect(record: Parameters<Dialect["detect"]>[0]): boolean {
  if (record.kind !== "json") return false;
  const v = record.value;
  // codex-thread (the dev-agent --stream-json design) numbers its events with `sequence`; real Codex never does.
  if (Object.hasOwn(v, "sequence")) return false;
  const type = str(v, "type");
  if (type === undefined) return isLegacyEvent(v) || isLegacyConfig(v) || isLegacyPrompt(v);
  if (type === "thread.started") return str(v, "thread_id") !== undefined;
  if (type === "session.created") return str(v, "session_id") !== undefined && get(v, "session") === undefined;
  if (TURN_TYPES.has(type)) return true;
  if (type === "item.started" || type === "item.updated" || type === "item.completed") {
    const item = obj(v, "item");
    return item !== undefined && (str(item, "type") !== undefined || str(item, "item_type") !== undefined);
  }
  return type === "item.plan.delta" && str(v, "item_id") !== undefined;
}

// ---------------------------------------------------------------------------------------------
// Decoder
// ---------------------------------------------------------------------------------------------

const LEGACY_NOTICES: Record<string, "info" | "warning"> = {
  exec_approval_request: "warning",
  apply_patch_approval_request: "warning",
  background_event: "info",
  turn_diff: "info",
  shutdown_complete: "info",
  get_history_entry_response: "info",
  mcp_list_tools_response: "info",
  list_custom_prompts_response: "info",
  conversation_path: "info",
  entered_review_mode: "info",
  exited_review_mode: "info",
  session_meta: "info",
};

/** Codex CLI `exec --json` in all three formats. */
export const codex: Dialect = {
  name: "codex",
  description: "Codex CLI: codex exec --json (current, 0.40-0.43 experimental, and legacy {id,msg})",
  detect,
  startsSession(record) {
    if (record.kind !== "json") return undefined;
    // Legacy exec opens with its config line (the prompt line follows it).
    if (isLegacyConfig(record.value)) return {};
    const type = str(record.value, "type");
    if (type !== "thread.started" && type !== "session.created") return undefined;
    const sessionId = str(record.value, "thread_id") ?? str(record.value, "session_id");
    return sessionId === undefined ? {} : { sessionId };
  },
  createDecoder() {
    const state = createStreamState();
    let started = false;
    /** The open turn, if any. */
    let turnId: string | undefined;
    /** How the last finished turn ended. */
    let lastTurn: { status: SessionStatus; error?: string } | undefined;
    /** Legacy: an `error` msg inside the open turn (legacy exec ends there, with no turn record). */
    let pendingError: string | undefined;
    let finalText: string | undefined;
    /** Whether an assistant text message completed in the open turn (legacy task_complete fallback). */
    let turnHadAnswer = false;
    let cumulative: Usage | undefined;
    const toolsSeen = new Set<string>();
    /** Last aggregated output per running item, for item.updated snapshots. */
    const progress = new Map<string, string>();
    /** Legacy patch_apply_begin changes by call id; legacy output-delta decoders by call id. */
    const patches = new Map<string, FileChange[]>();
    const chunkDecoders = new Map<string, TextDecoder>();
    /** Legacy messages without ids: a queue per stream so `*_delta` and the full event share an id. */
    const legacyStreams = new Map<string, { queue: string[]; current: string | undefined }>();

    const ensureStarted = (out: AgentEventDraft[]): void => {
      if (started) return;
      started = true;
      out.push({ type: "session.started", agent: "codex" });
    };

    const unknown = (out: AgentEventDraft[], context: DecodeContext, raw: JsonObject, reason: string): void => {
      out.push(unknownRecord(raw, reason));
      context.report({ code: "unknown-record", message: reason });
    };

    const startTool = (out: AgentEventDraft[], draft: Extract<AgentEventDraft, { type: "tool.started" }>): void => {
      if (toolsSeen.has(draft.toolCallId)) return;
      toolsSeen.add(draft.toolCallId);
      state.toolStarted(draft.toolCallId, draft.name);
      out.push(draft);
    };

    const completeTool = (out: AgentEventDraft[], draft: Extract<AgentEventDraft, { type: "tool.completed" }>): void => {
      if (state.toolCompleted(draft.toolCallId)) out.push(draft);
      // A second completion for the same id (never seen in captures): kept as a notice, not a second tool.completed.
      else out.push({ type: "notice", kind: "tool_repeat", level: "info", text: `tool call ${draft.toolCallId} reported done again`, details: { toolCallId: draft.toolCallId } });
    };

    const closeOpenTools = (out: AgentEventDraft[], reason: string): void => {
      // A failed or aborted turn ends its running tool calls; we close them as errors with the turn's reason.
      for (const id of toolsSeen) {
        if (state.toolCompleted(id)) out.push({ type: "tool.completed", toolCallId: id, name: state.toolName(id) ?? "tool", isError: true, output: reason });
      }
    };

    // ----- current format -----

    const messageItem = (out: AgentEventDraft[], phase: string, id: string, text: string | undefined, kind: "text" | "reasoning", channel?: string): void => {
      const options = channel === undefined ? undefined : { channel };
      if (phase === "item.completed") {
        if (kind === "text" && channel === undefined && text !== undefined && text.trim() !== "") finalText = text;
        out.push(...state.complete(id, text, "assistant", kind, options));
        return;
      }
      out.push(...state.start(id, "assistant", kind, options));
      // item.updated carries a snapshot (reported by third parties only); we emit the part beyond what streamed so far.
      const sofar = state.streamedText(id) ?? "";
      if (text !== undefined && text.length > sofar.length && text.startsWith(sofar)) out.push(...state.delta(id, text.slice(sofar.length), "assistant", kind, options));
    };

    const outputProgress = (out: AgentEventDraft[], id: string, output: string | undefined, status: string | undefined): void => {
      const before = progress.get(id) ?? "";
      let added: string | undefined;
      if (output !== undefined) {
        progress.set(id, output);
        added = output.startsWith(before) ? output.slice(before.length) : output;
      }
      if (added || status !== undefined) out.push(compact({ type: "tool.progress" as const, toolCallId: id, output: added || undefined, status }));
    };

    const item = (out: AgentEventDraft[], context: DecodeContext, phase: string, record: JsonObject, it: JsonObject): void => {
      const id = str(it, "id") ?? state.nextId("item");
      let itemType = str(it, "type") ?? str(it, "item_type");
      // 0.40–0.43 call the answer `assistant_message`; 0.44 renamed it `agent_message`.
      if (itemType === "assistant_message") itemType = "agent_message";
      const status = str(it, "status");
      switch (itemType as ItemType | undefined) {
        case "agent_message":
          messageItem(out, phase, id, str(it, "text"), "text");
          if (phase === "item.completed") turnHadAnswer = true;
          return;
        case "reasoning":
          messageItem(out, phase, id, str(it, "text"), "reasoning");
          return;
        case "plan":
          messageItem(out, phase, id, str(it, "text"), "text", "plan");
          return;
        case "command_execution": {
          // Named "shell", the name people know it by (and Cursor's); the item type is an implementation word.
          startTool(out, compact({ type: "tool.started" as const, toolCallId: id, name: "shell", kind: "command" as const, input: compact({ command: str(it, "command") }) }));
          if (phase === "item.updated") return outputProgress(out, id, str(it, "aggregated_output"), status);
          if (phase !== "item.completed") return;
          progress.delete(id);
          const exitCode = num(it, "exit_code");
          const isError = status === "failed" || status === "declined" || (exitCode !== undefined && exitCode !== 0);
          completeTool(out, compact({ type: "tool.completed" as const, toolCallId: id, name: "shell", output: str(it, "aggregated_output"), exitCode, isError }));
          return;
        }
        case "file_change": {
          const changes = itemChanges(arr(it, "changes"));
          startTool(out, { type: "tool.started", toolCallId: id, name: "file_change", kind: "file_edit", input: { changes: arr(it, "changes") ?? [] } });
          if (phase === "item.updated") return outputProgress(out, id, undefined, status);
          if (phase !== "item.completed") return;
          const isError = status === "failed";
          completeTool(out, { type: "tool.completed", toolCallId: id, name: "file_change", isError });
          if (changes.length > 0) out.push({ type: "file.changed", changes, toolCallId: id, status: isError ? "error" : "success" });
          return;
        }
        case "mcp_tool_call": {
          const name = str(it, "tool") ?? "mcp_tool_call";
          startTool(out, compact({ type: "tool.started" as const, toolCallId: id, name, kind: "mcp" as const, input: get(it, "arguments"), server: str(it, "server") }));
          if (phase === "item.updated") return outputProgress(out, id, undefined, status);
          if (phase !== "item.completed") return;
          const result = obj(it, "result");
          const errorMessage = str(at(it, "error", "message"));
          const structured = get(result, "structured_content");
          const isError = status === "failed" || errorMessage !== undefined || bool(result, "is_error") === true;
          completeTool(
            out,
            compact({
              type: "tool.completed" as const,
              toolCallId: id,
              name,
              output: errorMessage ?? textOf(arr(result, "content")),
              result: structured === null ? undefined : structured,
              isError,
            }),
          );
          return;
        }
        case "web_search": {
          // Codex 0.155 writes `id` twice in web_search items; framing keeps the last (JSON.parse) and reports it, and started/completed still pair.
          startTool(out, compact({ type: "tool.started" as const, toolCallId: id, name: "web_search", kind: "web_search" as const, input: compact({ query: str(it, "query"), action: obj(it, "action") }) }));
          if (phase !== "item.completed") return;
          const action = obj(it, "action");
          completeTool(out, compact({ type: "tool.completed" as const, toolCallId: id, name: "web_search", output: str(action, "query") ?? (str(it, "query") || undefined), result: action, isError: status === "failed" }));
          return;
        }
        case "collab_tool_call": {
          const name = str(it, "tool") ?? "collab_tool_call";
          const input = compact({ prompt: str(it, "prompt"), receiver_thread_ids: arr(it, "receiver_thread_ids"), sender_thread_id: str(it, "sender_thread_id") });
          startTool(out, { type: "tool.started", toolCallId: id, name, kind: "subagent", input });
          if (phase === "item.updated") return outputProgress(out, id, undefined, status);
          if (phase !== "item.completed") return;
          const states = obj(it, "agents_states");
          const messages = Object.values(states ?? {})
            .map((s) => str(s, "message"))
            .filter((m): m is string => m !== undefined);
          completeTool(out, compact({ type: "tool.completed" as const, toolCallId: id, name, output: messages.length > 0 ? messages.join("\n") : undefined, result: states, isError: status === "failed" }));
          return;
        }
        case "todo_list": {
          const items: PlanItem[] = [];
          for (const entry of arr(it, "items") ?? []) {
            const text = str(entry, "text");
            if (text !== undefined) items.push({ text, status: bool(entry, "completed") === true ? "completed" : "pending" });
          }
          out.push({ type: "plan.updated", items, planId: id });
          return;
        }
        case "error":
          // Codex 0.143+ uses error items for warnings (config, hooks, model metadata), often before turn.started; we emit a warning notice.
          out.push({ type: "notice", kind: "warning", level: "warning", text: str(it, "message") ?? "", details: { itemId: id } });
          return;
        default:
          unknown(out, context, record, `unknown codex item type ${JSON.stringify(itemType ?? null)}`);
      }
    };

    const current = (out: AgentEventDraft[], context: DecodeContext, type: string, v: JsonObject): void => {
      switch (type as ThreadEvent["type"]) {
        case "thread.started":
        case "session.created": {
          const sessionId = str(v, type === "thread.started" ? "thread_id" : "session_id");
          if (!started) {
            started = true;
            out.push(compact({ type: "session.started" as const, agent: "codex", sessionId }));
          } else out.push(compact({ type: "notice" as const, kind: "thread_started", level: "info" as const, text: `another ${type} in the same stream: ${sessionId ?? "?"}`, details: compact({ sessionId }) }));
          return;
        }
        case "turn.started":
          ensureStarted(out);
          turnId = state.nextId("turn");
          turnHadAnswer = false;
          out.push({ type: "turn.started", turnId });
          return;
        case "turn.completed": {
          ensureStarted(out);
          // turn.completed.usage is the thread's running total (cumulative across resumes); we emit it once as a cumulative usage event.
          const usage = codexUsage(get(v, "usage"));
          if (usage !== undefined) {
            cumulative = usage;
            out.push({ type: "usage", usage, scope: "cumulative" });
          }
          out.push({ type: "turn.completed", turnId: turnId ?? state.nextId("turn"), status: "success" });
          turnId = undefined;
          lastTurn = { status: "success" };
          return;
        }
        case "turn.failed": {
          ensureStarted(out);
          const error = str(at(v, "error", "message")) ?? "turn failed";
          closeOpenTools(out, error);
          out.push({ type: "turn.completed", turnId: turnId ?? state.nextId("turn"), status: "error", error });
          turnId = undefined;
          lastTurn = { status: "error", error };
          return;
        }
        case "item.started":
        case "item.updated":
        case "item.completed": {
          ensureStarted(out);
          const it = obj(v, "item");
          if (it === undefined) return unknown(out, context, v, `${type} without an item`);
          item(out, context, type, v, it);
          return;
        }
        case "item.plan.delta": {
          ensureStarted(out);
          const id = str(v, "item_id") ?? "plan";
          out.push(...state.delta(id, str(v, "delta") ?? "", "assistant", "text", { channel: "plan" }));
          return;
        }
        case "request_user_input": {
          ensureStarted(out);
          const questions = (arr(v, "questions") ?? []).map((q) => str(q, "question")).filter((q): q is string => q !== undefined);
          out.push({ type: "notice", kind: "request_user_input", level: "warning", text: questions.join("\n") || "the model asks for input", details: { ...v } });
          return;
        }
        case "error": {
          ensureStarted(out);
          const message = str(v, "message") ?? "";
          // Codex's top-level error is non-fatal in practice ("Reconnecting... n/5"); only turn.failed ends the turn.
          out.push(codexReconnect(message) ?? { type: "error", scope: "stream", message });
          return;
        }
        default:
          unknown(out, context, v, `unknown codex event type ${JSON.stringify(type)}`);
      }
    };

    // ----- legacy {id,msg} format -----

    const legacyStream = (name: string): { queue: string[]; current: string | undefined } => {
      let s = legacyStreams.get(name);
      if (s === undefined) {
        s = { queue: [], current: undefined };
        legacyStreams.set(name, s);
      }
      return s;
    };

    const legacyDelta = (out: AgentEventDraft[], name: string, text: string, kind: "text" | "reasoning", channel?: string): void => {
      const s = legacyStream(name);
      if (s.current === undefined) {
        s.current = state.nextId(name);
        s.queue.push(s.current);
      }
      out.push(...state.delta(s.current, text, "assistant", kind, channel === undefined ? undefined : { channel }));
    };

    const legacyFull = (out: AgentEventDraft[], name: string, text: string | undefined, kind: "text" | "reasoning", channel?: string): void => {
      // The full event completes the oldest message its deltas opened (one per reasoning section), so ids match.
      const s = legacyStream(name);
      const id = s.queue.shift() ?? state.nextId(name);
      if (s.current === id) s.current = undefined;
      out.push(...state.complete(id, text, "assistant", kind, channel === undefined ? undefined : { channel }));
    };

    const legacy = (out: AgentEventDraft[], context: DecodeContext, v: JsonObject, msg: JsonObject): void => {
      const type = str(msg, "type") ?? "";
      const callId = str(msg, "call_id") ?? "";
      if (type !== "session_configured") ensureStarted(out);
      switch (type) {
        case "session_configured": {
          const details: JsonObject = { ...msg };
          delete details.type;
          delete details.session_id;
          delete details.model;
          if (!started) {
            started = true;
            out.push(compact({ type: "session.started" as const, agent: "codex", sessionId: str(msg, "session_id"), model: str(msg, "model"), details }));
          } else out.push({ type: "notice", kind: "session_configured", level: "info", text: `session ${str(msg, "session_id") ?? "?"} configured`, details: { ...msg } });
          return;
        }
        case "task_started": {
          const subId = str(v, "id");
          turnId = subId !== undefined && subId !== "" ? subId : state.nextId("turn");
          turnHadAnswer = false;
          pendingError = undefined;
          out.push({ type: "turn.started", turnId });
          return;
        }
        case "agent_message_delta":
          return legacyDelta(out, "msg", str(msg, "delta") ?? "", "text");
        case "agent_message": {
          const text = str(msg, "message");
          if (text !== undefined && text.trim() !== "") finalText = text;
          turnHadAnswer = true;
          return legacyFull(out, "msg", text, "text");
        }
        case "agent_reasoning_delta":
          return legacyDelta(out, "reasoning", str(msg, "delta") ?? "", "reasoning");
        case "agent_reasoning":
          return legacyFull(out, "reasoning", str(msg, "text"), "reasoning");
        case "agent_reasoning_raw_content_delta":
          return legacyDelta(out, "raw", str(msg, "delta") ?? "", "reasoning", "raw");
        case "agent_reasoning_raw_content":
          return legacyFull(out, "raw", str(msg, "text"), "reasoning", "raw");
        case "agent_reasoning_section_break":
          // A new reasoning section: the next delta opens a new message (the full agent_reasoning events come one per section).
          legacyStream("reasoning").current = undefined;
          return;
        case "user_message":
          out.push(...state.complete(state.nextId("user"), str(msg, "message") ?? "", "user", "text"));
          return;
        case "exec_command_begin": {
          const command = get(msg, "command");
          startTool(out, { type: "tool.started", toolCallId: callId, name: "exec_command", kind: "command", input: compact({ command, cwd: str(msg, "cwd") }) });
          return;
        }
        case "exec_command_output_delta": {
          startTool(out, { type: "tool.started", toolCallId: callId, name: "exec_command", kind: "command" });
          const text = decodeChunk(chunkDecoders, callId, get(msg, "chunk"));
          if (text) out.push({ type: "tool.progress", toolCallId: callId, output: text });
          return;
        }
        case "exec_command_end": {
          startTool(out, { type: "tool.started", toolCallId: callId, name: "exec_command", kind: "command" });
          chunkDecoders.delete(callId);
          const exitCode = num(msg, "exit_code");
          completeTool(
            out,
            compact({
              type: "tool.completed" as const,
              toolCallId: callId,
              name: "exec_command",
              output: str(msg, "aggregated_output") ?? joinOutput(str(msg, "stdout"), str(msg, "stderr")),
              exitCode,
              isError: exitCode !== undefined && exitCode !== 0,
              durationMs: codexDurationMs(get(msg, "duration")),
            }),
          );
          return;
        }
        case "patch_apply_begin": {
          const changes = codexPatchChanges(get(msg, "changes"));
          patches.set(callId, changes);
          startTool(out, compact({ type: "tool.started" as const, toolCallId: callId, name: "apply_patch", kind: "file_edit" as const, input: compact({ changes: get(msg, "changes"), auto_approved: get(msg, "auto_approved") }) }));
          return;
        }
        case "patch_apply_end": {
          startTool(out, { type: "tool.started", toolCallId: callId, name: "apply_patch", kind: "file_edit" });
          const success = bool(msg, "success") !== false;
          completeTool(out, compact({ type: "tool.completed" as const, toolCallId: callId, name: "apply_patch", output: joinOutput(str(msg, "stdout"), str(msg, "stderr")), isError: !success }));
          const changes = get(msg, "changes") !== undefined ? codexPatchChanges(get(msg, "changes")) : (patches.get(callId) ?? []);
          patches.delete(callId);
          if (changes.length > 0) out.push({ type: "file.changed", changes, toolCallId: callId, status: success ? "success" : "error" });
          return;
        }
        case "mcp_tool_call_begin": {
          const invocation = obj(msg, "invocation");
          startTool(out, compact({ type: "tool.started" as const, toolCallId: callId, name: str(invocation, "tool") ?? "mcp_tool_call", kind: "mcp" as const, input: get(invocation, "arguments"), server: str(invocation, "server") }));
          return;
        }
        case "mcp_tool_call_end": {
          const invocation = obj(msg, "invocation");
          const name = str(invocation, "tool") ?? state.toolName(callId) ?? "mcp_tool_call";
          startTool(out, compact({ type: "tool.started" as const, toolCallId: callId, name, kind: "mcp" as const, input: get(invocation, "arguments"), server: str(invocation, "server") }));
          const result = get(msg, "result");
          // The result is a serde Result: {"Ok": CallToolResult} or {"Err": "message"}.
          const ok = obj(result, "Ok") ?? (arr(result, "content") !== undefined ? obj(result) : undefined);
          const err = get(result, "Err");
          const structured = get(ok, "structuredContent") ?? get(ok, "structured_content");
          completeTool(
            out,
            compact({
              type: "tool.completed" as const,
              toolCallId: callId,
              name,
              output: err !== undefined ? textOf(err) : textOf(arr(ok, "content")),
              result: structured === null ? undefined : structured,
              isError: err !== undefined || bool(ok, "isError") === true || bool(ok, "is_error") === true,
              durationMs: codexDurationMs(get(msg, "duration")),
            }),
          );
          return;
        }
        case "web_search_begin":
          startTool(out, compact({ type: "tool.started" as const, toolCallId: callId, name: "web_search", kind: "web_search" as const, input: compact({ query: str(msg, "query") }) }));
          return;
        case "web_search_end":
          startTool(out, compact({ type: "tool.started" as const, toolCallId: callId, name: "web_search", kind: "web_search" as const, input: compact({ query: str(msg, "query") }) }));
          completeTool(out, compact({ type: "tool.completed" as const, toolCallId: callId, name: "web_search", output: str(msg, "query"), isError: false }));
          return;
        case "view_image_tool_call":
          startTool(out, { type: "tool.started", toolCallId: callId, name: "view_image", kind: "file_read", input: compact({ path: str(msg, "path") }) });
          completeTool(out, { type: "tool.completed", toolCallId: callId, name: "view_image", isError: false });
          return;
        case "token_count": {
          const info = obj(msg, "info");
          const produced = out.length;
          if (info !== undefined) {
            const total = codexUsage(get(info, "total_token_usage"));
            if (total !== undefined) {
              cumulative = total;
              out.push({ type: "usage", usage: total, scope: "cumulative" });
            }
          } else if (num(msg, "input_tokens") !== undefined || num(msg, "output_tokens") !== undefined) {
            // Early token_count was flat and per model response (the TUI added them up); we emit it as a delta.
            const usage = codexUsage(msg);
            if (usage !== undefined) out.push({ type: "usage", usage, scope: "delta" });
          }
          out.push(...codexRateLimits(get(msg, "rate_limits")));
          if (out.length === produced) out.push({ type: "notice", kind: "token_count", level: "info", text: "token count without figures" });
          return;
        }
        case "plan_update":
          out.push({ type: "plan.updated", items: codexPlanItems(get(msg, "plan")) });
          return;
        case "task_complete": {
          const last = str(msg, "last_agent_message");
          if (last !== undefined && last.trim() !== "") {
            // The answer's own agent_message may be missing (trimmed captures, exec without deltas); we keep last_agent_message as the message then.
            if (!turnHadAnswer) out.push(...state.complete(state.nextId("msg"), last, "assistant", "text"));
            finalText = last;
          }
          out.push({ type: "turn.completed", turnId: turnId ?? state.nextId("turn"), status: "success" });
          turnId = undefined;
          pendingError = undefined;
          lastTurn = { status: "success" };
          return;
        }
        case "turn_aborted": {
          const error = `turn aborted: ${str(msg, "reason") ?? "unknown reason"}`;
          closeOpenTools(out, error);
          out.push({ type: "turn.completed", turnId: turnId ?? state.nextId("turn"), status: "error", error });
          turnId = undefined;
          lastTurn = { status: "interrupted", error };
          return;
        }
        case "error": {
          const message = str(msg, "message") ?? "";
          // Legacy exec ends on an error msg with no turn record; we close the turn as failed at the end if nothing follows.
          pendingError = message;
          if (turnId === undefined) lastTurn = { status: "error", error: message };
          out.push(compact({ type: "error" as const, scope: "turn" as const, message, turnId }));
          return;
        }
        case "stream_error": {
          const message = str(msg, "message") ?? "";
          out.push(codexReconnect(message) ?? { type: "error", scope: "stream", message });
          return;
        }
        default: {
          const level = LEGACY_NOTICES[type];
          if (level === undefined) return unknown(out, context, v, `unknown codex event msg type ${JSON.stringify(type)}`);
          const text = str(msg, "message") ?? str(msg, "unified_diff") ?? str(msg, "reason") ?? type;
          const details: JsonObject = { ...msg };
          delete details.type;
          out.push({ type: "notice", kind: type, level, text, details });
        }
      }
    };

    return {
      decode(record, context) {
        if (record.kind !== "json") return [];
        const v = record.value;
        const out: AgentEventDraft[] = [];
        const type = str(v, "type");
        if (type !== undefined) {
          current(out, context, type, v);
          return out;
        }
        const msg = obj(v, "msg");
        if (msg !== undefined) legacy(out, context, v, msg);
        else if (isLegacyConfig(v)) {
          const c: JsonObject = v; // LegacyConfigSummary
          const details: JsonObject = { ...v };
          for (const key of ["model", "workdir", "sandbox", "session id"]) delete details[key];
          if (!started) {
            started = true;
            out.push(compact({ type: "session.started" as const, agent: "codex", model: str(c, "model"), cwd: str(c, "workdir"), permissionMode: str(c, "sandbox"), sessionId: str(c, "session id"), details }));
          } else out.push({ type: "notice", kind: "config", level: "info", text: "codex configuration", details: { ...v } });
        } else if (isLegacyPrompt(v)) {
          ensureStarted(out);
          const prompt: LegacyPrompt = { prompt: str(v, "prompt") ?? "" };
          out.push(...state.complete(state.nextId("user"), prompt.prompt, "user", "text"));
        } else unknown(out, context, v, "unknown codex record (no type, no msg)");
        return out;
      },
      end() {
        const out: AgentEventDraft[] = [];
        if (turnId !== undefined && pendingError !== undefined) closeOpenTools(out, pendingError);
        out.push(...state.closeAll());
        if (turnId !== undefined && pendingError !== undefined) {
          out.push({ type: "turn.completed", turnId, status: "error", error: pendingError });
          turnId = undefined;
          lastTurn = { status: "error", error: pendingError };
        }
        // Codex exec has no session-end record: the last turn's end stands for it; a stream cut mid-turn gets none.
        if (turnId === undefined && lastTurn !== undefined) {
          out.push(compact({ type: "session.completed" as const, status: lastTurn.status, error: lastTurn.error, finalText, usage: cumulative }));
        }
        return out;
      },
    };
  },
};

/** Converts a FileChange list from current-format `changes[{path, kind, diff?}]`. */
function itemChanges(changes: JsonValue[] | undefined): FileChange[] {
  const out: FileChange[] = [];
  for (const change of changes ?? []) {
    const path = str(change, "path");
    if (path === undefined) continue;
    const kindValue = get(change, "kind");
    const kind = str(kindValue) ?? str(kindValue, "type");
    const movePath = str(kindValue, "move_path");
    const diff = str(change, "diff");
    if (kind === "add" || kind === "delete") out.push(compact({ path, kind, diff }));
    else if (movePath !== undefined) out.push(compact({ path, kind: "rename" as const, newPath: movePath, diff }));
    // Any kind other than add/delete (update, or one we do not know) is an update.
    else out.push(compact({ path, kind: "update" as const, diff }));
  }
  return out;
}

/** Text of a legacy exec_command_output_delta chunk (base64 string or byte array), decoded as UTF-8 across chunks. */
function decodeChunk(decoders: Map<string, TextDecoder>, callId: string, chunk: JsonValue | undefined): string | undefined {
  let bytes: Uint8Array | undefined;
  if (typeof chunk === "string") {
    try {
      const binary = atob(chunk);
      bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    } catch {
      return chunk; // not base64: keep the text as it came
    }
  } else if (Array.isArray(chunk)) {
    bytes = Uint8Array.from(chunk.map((b) => (typeof b === "number" ? b & 0xff : 0)));
  }
  if (bytes === undefined) return undefined;
  let decoder = decoders.get(callId);
  if (decoder === undefined) {
    decoder = new TextDecoder("utf-8");
    decoders.set(callId, decoder);
  }
  return decoder.decode(bytes, { stream: true });
}
