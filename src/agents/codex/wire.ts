// The wire types of the Codex family: `codex exec --json` (0.44+), `--experimental-json` (0.40–0.43), the legacy `{id,msg}` protocol stream; rollout.ts shares the usage and patch shapes.
import type { JsonObject, JsonValue } from "../../model/events.ts";

// ---------------------------------------------------------------------------------------------
// Wire types: current format (0.44+) and `--experimental-json` (0.40–0.43)
// ---------------------------------------------------------------------------------------------

/** One line of `codex exec --json` (exec_events.rs `ThreadEvent`), or of 0.40–0.42 `--experimental-json`. */
export interface ThreadEvent {
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
export interface CodexUsage {
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
export interface ThreadItem {
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
  changes?: ItemFileChange[];
  /** mcp_tool_call. */
  server?: string;
  tool?: string;
  arguments?: JsonValue;
  /** `is_error` is not in exec_events.rs; read in case a build sends it. */
  result?: { content: JsonValue[]; structured_content?: JsonValue; is_error?: boolean } | null;
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
  agents_states?: Record<string, CollabAgentState>;
}

/** A file_change item's change; `kind` may be an object `{type, move_path}` in app-server-era builds; `diff` is newer. */
export interface ItemFileChange {
  path: string;
  kind: string | PatchKind;
  diff?: string;
}

/** The object form of a file change's `kind`. */
export interface PatchKind {
  type: string;
  move_path?: string | null;
}

/** One agent's state in a collab_tool_call. */
export interface CollabAgentState {
  status: string;
  message?: string | null;
}

/** A Codex `rate_limits` object: up to two windows, plus account fields kept as details. */
export interface CodexRateLimits {
  primary?: RateLimitWindow | null;
  secondary?: RateLimitWindow | null;
  limit_id?: string;
  limit_name?: string;
  plan_type?: string;
  credits?: JsonValue;
  rate_limit_reached_type?: string;
  individual_limit?: JsonValue;
  spend_control_reached?: boolean;
}

/** One rate-limit window; `resets_in_seconds` in older builds, `resets_at` (epoch seconds) in newer. */
interface RateLimitWindow {
  used_percent?: number;
  window_minutes?: number;
  resets_at?: number;
  resets_in_seconds?: number;
}

/** A patch `changes` map entry: `{add: {content}}` / `{delete: {content?}}` / `{update: {unified_diff, move_path}}`, or tagged `{type, ...}`. */
export interface PatchChange extends PatchChangeBody {
  type?: string;
  add?: PatchChangeBody;
  delete?: PatchChangeBody;
  update?: PatchChangeBody;
}

/** The fields of one patch change. */
export interface PatchChangeBody {
  content?: string;
  unified_diff?: string;
  move_path?: string | null;
}

/** A Rust `Duration` as serde writes it. */
export interface RustDuration {
  secs: number;
  nanos: number;
}

/** One `update_plan` / `plan_update` step (`text` in some builds). */
export interface PlanStep {
  step?: string;
  text?: string;
  status?: string;
}

/** An MCP `CallToolResult`. */
interface McpCallToolResult {
  content?: JsonValue[];
  structuredContent?: JsonValue;
  structured_content?: JsonValue;
  isError?: boolean;
  is_error?: boolean;
}

/** An MCP tool call's `result`: a serde Result `{Ok: CallToolResult}` / `{Err: "message"}`, or (some builds) the CallToolResult itself. */
export type McpToolCallResult = McpCallToolResult & { Ok?: McpCallToolResult; Err?: JsonValue };

export type ItemType =
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
export interface LegacyConfigSummary {
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
export interface LegacyPrompt {
  prompt: string;
}

/** A protocol `Event`: `{"id": <submission id>, "msg": {"type": <EventMsg>, ...}}`. */
export interface LegacyEvent {
  id: string;
  msg: LegacyMsg;
}

/** The EventMsg fields we read, by `type`. */
export interface LegacyMsg {
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
  duration?: RustDuration | string;
  /** patch_apply_begin: `{path: {add:{content}} | {delete:{}} | {update:{unified_diff, move_path}}}`. */
  changes?: Record<string, JsonValue>;
  auto_approved?: boolean;
  /** patch_apply_end. */
  success?: boolean;
  /** mcp_tool_call_*. */
  invocation?: { server: string; tool: string; arguments?: JsonValue };
  result?: McpToolCallResult;
  /** web_search_*. */
  query?: string;
  /** token_count, flat (early) or nested (later). */
  input_tokens?: number;
  output_tokens?: number;
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

/** The legacy msg types the decoder reads (others become notices or `unknown` records). */
export type LegacyMsgType =
  | "session_configured"
  | "task_started"
  | "agent_message_delta"
  | "agent_message"
  | "agent_reasoning_delta"
  | "agent_reasoning"
  | "agent_reasoning_raw_content_delta"
  | "agent_reasoning_raw_content"
  | "agent_reasoning_section_break"
  | "user_message"
  | "exec_command_begin"
  | "exec_command_output_delta"
  | "exec_command_end"
  | "patch_apply_begin"
  | "patch_apply_end"
  | "mcp_tool_call_begin"
  | "mcp_tool_call_end"
  | "web_search_begin"
  | "web_search_end"
  | "view_image_tool_call"
  | "token_count"
  | "plan_update"
  | "task_complete"
  | "turn_aborted"
  | "error"
  | "stream_error";
