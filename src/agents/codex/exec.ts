// Source: `codex exec --json` (0.44+), `codex exec --experimental-json` (0.40–0.43) and the legacy `codex exec --json` / `codex proto` `{id,msg}` stream; versions and quirks: docs/dialects/codex.md
import type { AgentEventDraft, FileChange, JsonObject, JsonValue, PlanItem, SessionStatus, Usage } from "../../model/events.ts";
import { usageFrom } from "../../model/usage.ts";
import type { DecodeContext, Dialect } from "../../dialect/dialect.ts";
import { unknownRecord } from "../../dialect/dialect.ts";
import { arr, compact, obj, str, textOf } from "../../dialect/json.ts";
import { createStreamState } from "../../dialect/messages.ts";
import { dispatch, handlers } from "../../dialect/handlers.ts";
import { type Wire, asWire, field, fieldArr, fieldBool, fieldItems, fieldNum, fieldObj, fieldStr } from "../../dialect/wire.ts";
import type {
  CodexRateLimits,
  CodexUsage,
  CollabAgentState,
  ItemFileChange,
  ItemType,
  LegacyConfigSummary,
  LegacyEvent,
  LegacyMsg,
  LegacyMsgType,
  LegacyPrompt,
  PatchChange,
  PatchChangeBody,
  PatchKind,
  PlanStep,
  RustDuration,
  ThreadEvent,
  ThreadItem,
} from "./wire.ts";

// ---------------------------------------------------------------------------------------------
// Helpers shared with codex-session.ts
// ---------------------------------------------------------------------------------------------

/** Codex token counts as a Usage (input includes cached; output includes reasoning). */
export function codexUsage(value: JsonValue | undefined): Usage | undefined {
  const u = asWire<CodexUsage>(value);
  if (u === undefined) return undefined;
  return usageFrom({
    inputTokens: field(u, "input_tokens"),
    outputTokens: field(u, "output_tokens"),
    cacheReadTokens: field(u, "cached_input_tokens"),
    cacheWriteTokens: field(u, "cache_write_input_tokens"),
    reasoningTokens: field(u, "reasoning_output_tokens"),
  });
}

/** `rate_limit` drafts for a Codex `rate_limits` object (one per window: primary, secondary). */
export function codexRateLimits(rateLimits: JsonValue | undefined, recordTime?: string): AgentEventDraft[] {
  const limits = asWire<CodexRateLimits>(rateLimits);
  if (limits === undefined) return [];
  const out: AgentEventDraft[] = [];
  for (const window of ["primary", "secondary"] as const) {
    const w = fieldObj(limits, window);
    if (w === undefined) continue;
    const used = fieldNum(w, "used_percent");
    let resetsAt: string | undefined;
    const resetsAtSec = fieldNum(w, "resets_at");
    const resetsIn = fieldNum(w, "resets_in_seconds");
    if (resetsAtSec !== undefined) resetsAt = isoFromEpochSeconds(resetsAtSec);
    else if (resetsIn !== undefined && recordTime !== undefined) {
      const base = Date.parse(recordTime);
      if (Number.isFinite(base)) resetsAt = isoFromEpochSeconds(base / 1000 + resetsIn);
    }
    const details: JsonObject = { ...w };
    for (const key of [
      "limit_id",
      "limit_name",
      "plan_type",
      "credits",
      "rate_limit_reached_type",
      "individual_limit",
      "spend_control_reached",
    ] as const) {
      const v = field(limits, key);
      if (v !== undefined) details[key] = v;
    }
    // Codex reports a usage percentage, not a status; we say "rejected" at 100% or more, else "allowed".
    out.push(
      compact({
        type: "rate_limit" as const,
        status: used !== undefined && used >= 100 ? "rejected" : "allowed",
        resetsAt,
        limit: window,
        details,
      }),
    );
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
    const change = asWire<PatchChange>(map[path]);
    if (change === undefined) continue;
    const tagged = fieldStr(change, "type");
    const untagged = fieldObj(change, "add")
      ? "add"
      : fieldObj(change, "delete")
        ? "delete"
        : fieldObj(change, "update")
          ? "update"
          : undefined;
    const kind = tagged ?? untagged;
    const body: Wire<PatchChangeBody> | undefined =
      tagged !== undefined ? change : untagged === undefined ? undefined : fieldObj(change, untagged);
    if (kind === "add") out.push(compact({ path, kind: "add" as const, diff: fieldStr(body, "content") }));
    else if (kind === "delete") out.push(compact({ path, kind: "delete" as const, diff: fieldStr(body, "content") }));
    else {
      const movePath = fieldStr(body, "move_path");
      const diff = fieldStr(body, "unified_diff");
      out.push(
        movePath !== undefined
          ? compact({ path, kind: "rename" as const, newPath: movePath, diff })
          : compact({ path, kind: "update" as const, diff }),
      );
    }
  }
  return out;
}

/** Milliseconds of a Rust `Duration` as serde writes it (`{secs, nanos}`), or of a `"1.5s"` / `"120ms"` string. */
export function codexDurationMs(value: JsonValue | undefined): number | undefined {
  const d = asWire<RustDuration>(value);
  if (d !== undefined) {
    const secs = fieldNum(d, "secs");
    if (secs === undefined) return undefined;
    return Math.round(secs * 1000 + (fieldNum(d, "nanos") ?? 0) / 1e6);
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
function planStatus(value: string | undefined): PlanItem["status"] {
  if (value === "completed" || value === "done") return "completed";
  if (value === "in_progress" || value === "inProgress" || value === "running") return "in_progress";
  return "pending";
}

/** `update_plan` arguments / `plan_update` payload (`{explanation?, plan: [{step, status}]}`) as plan items. */
export function codexPlanItems(plan: JsonValue | undefined): PlanItem[] {
  const items: PlanItem[] = [];
  for (const entry of arr(plan) ?? []) {
    const step = asWire<PlanStep>(entry);
    const text = fieldStr(step, "step") ?? fieldStr(step, "text");
    if (text !== undefined) items.push({ text, status: planStatus(fieldStr(step, "status")) });
  }
  return items;
}

// ---------------------------------------------------------------------------------------------
// Detection
// ---------------------------------------------------------------------------------------------

const TURN_TYPES = new Set(["turn.started", "turn.completed", "turn.failed"]);

function isLegacyConfig(v: JsonObject): boolean {
  // Legacy exec --json line 1: `{"model":…,"provider":…,"approval":…,"sandbox":…,"workdir":…}`; it has no `type`.
  const c: Wire<LegacyConfigSummary & { type?: never }> = v;
  const has = (key: keyof LegacyConfigSummary): boolean => fieldStr(c, key) !== undefined;
  return field(c, "type") === undefined && has("workdir") && has("model") && (has("sandbox") || has("approval"));
}

function isLegacyPrompt(v: JsonObject): boolean {
  const keys = Object.keys(v);
  const p: Wire<LegacyPrompt> = v;
  return keys.length === 1 && fieldStr(p, "prompt") !== undefined;
}

function isLegacyEvent(v: JsonObject): boolean {
  const e: Wire<LegacyEvent> = v;
  return typeof field(e, "id") === "string" && fieldStr(fieldObj(e, "msg"), "type") !== undefined;
}

function detect(record: Parameters<Dialect["detect"]>[0]): boolean {
  if (record.kind !== "json") return false;
  const v: Wire<ThreadEvent & { session?: JsonValue }> = record.value;
  // codex-thread (the dev-agent --stream-json design) numbers its events with `sequence`; real Codex never does.
  if (Object.hasOwn(v, "sequence")) return false;
  const type = fieldStr(v, "type");
  if (type === undefined) return isLegacyEvent(v) || isLegacyConfig(v) || isLegacyPrompt(v);
  if (type === "thread.started") return fieldStr(v, "thread_id") !== undefined;
  // codex-thread's session.created carries a `session` object; Codex 0.40–0.42's carries only the id.
  if (type === "session.created") return fieldStr(v, "session_id") !== undefined && field(v, "session") === undefined;
  if (TURN_TYPES.has(type)) return true;
  if (type === "item.started" || type === "item.updated" || type === "item.completed") {
    const item = fieldObj(v, "item");
    return item !== undefined && (fieldStr(item, "type") !== undefined || fieldStr(item, "item_type") !== undefined);
  }
  return type === "item.plan.delta" && fieldStr(v, "item_id") !== undefined;
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
  // A completed command's `aggregated_output` becomes its output as it is. Not `item.updated` (its output is
  // compared with the last one) nor the legacy records (they join `stdout` and `stderr`).
  passesHeldStrings: (value) => str(value, "type") === "item.completed" && str(obj(value, "item"), "type") === "command_execution",
  startsSession(record) {
    if (record.kind !== "json") return undefined;
    // Legacy exec opens with its config line (the prompt line follows it).
    if (isLegacyConfig(record.value)) return {};
    const v: Wire<ThreadEvent> = record.value;
    const type = fieldStr(v, "type");
    if (type !== "thread.started" && type !== "session.created") return undefined;
    const sessionId = fieldStr(v, "thread_id") ?? fieldStr(v, "session_id");
    return sessionId === undefined ? {} : { sessionId };
  },
  createDecoder() {
    const s = new ExecState();
    return {
      decode(record, context) {
        if (record.kind !== "json") return [];
        const out: AgentEventDraft[] = [];
        decodeRecord(record.value, s, out, context);
        return out;
      },
      end() {
        return s.end();
      },
    };
  },
};

type ToolStarted = Extract<AgentEventDraft, { type: "tool.started" }>;
type ToolCompleted = Extract<AgentEventDraft, { type: "tool.completed" }>;
type MessageKind = "text" | "reasoning";

/** What one stream's decoder remembers across records, and the bookkeeping every handler shares. */
class ExecState {
  readonly messages = createStreamState();
  started = false;
  /** The open turn, if any. */
  turnId: string | undefined;
  /** How the last finished turn ended. */
  lastTurn: { status: SessionStatus; error?: string } | undefined;
  /** Legacy: an `error` msg inside the open turn (legacy exec ends there, with no turn record). */
  pendingError: string | undefined;
  finalText: string | undefined;
  /** Whether an assistant text message completed in the open turn (legacy task_complete fallback). */
  turnHadAnswer = false;
  cumulative: Usage | undefined;
  readonly toolsSeen = new Set<string>();
  /** Last aggregated output per running item, for item.updated snapshots. */
  readonly progress = new Map<string, string>();
  /** Legacy patch_apply_begin changes by call id; legacy output-delta decoders by call id. */
  readonly patches = new Map<string, FileChange[]>();
  readonly chunkDecoders = new Map<string, TextDecoder>();
  /** Legacy messages without ids: a queue per stream so `*_delta` and the full event share an id. */
  readonly legacyStreams = new Map<string, { queue: string[]; current: string | undefined }>();

  ensureStarted(out: AgentEventDraft[]): void {
    if (this.started) return;
    this.started = true;
    out.push({ type: "session.started", agent: "codex" });
  }

  /** The session's opening record: session.started the first time, a notice for a later one. */
  open(out: AgentEventDraft[], started: Extract<AgentEventDraft, { type: "session.started" }>, again: AgentEventDraft): void {
    if (this.started) {
      out.push(again);
      return;
    }
    this.started = true;
    out.push(started);
  }

  unknown(out: AgentEventDraft[], context: DecodeContext, raw: JsonObject, reason: string): void {
    out.push(unknownRecord(raw, reason));
    context.report({ code: "unknown-record", message: reason });
  }

  startTool(out: AgentEventDraft[], draft: ToolStarted): void {
    if (this.toolsSeen.has(draft.toolCallId)) return;
    this.toolsSeen.add(draft.toolCallId);
    this.messages.toolStarted(draft.toolCallId, draft.name);
    out.push(draft);
  }

  completeTool(out: AgentEventDraft[], draft: ToolCompleted): void {
    if (this.messages.toolCompleted(draft.toolCallId)) out.push(draft);
    // A second completion for the same id (never seen in captures): kept as a notice, not a second tool.completed.
    else
      out.push({
        type: "notice",
        kind: "tool_repeat",
        level: "info",
        text: `tool call ${draft.toolCallId} reported done again`,
        details: { toolCallId: draft.toolCallId },
      });
  }

  closeOpenTools(out: AgentEventDraft[], reason: string): void {
    // A failed or aborted turn ends its running tool calls; we close them as errors with the turn's reason.
    for (const id of this.toolsSeen) {
      if (this.messages.toolCompleted(id))
        out.push({ type: "tool.completed", toolCallId: id, name: this.messages.toolName(id) ?? "tool", isError: true, output: reason });
    }
  }

  startTurn(out: AgentEventDraft[], turnId: string): void {
    this.turnId = turnId;
    this.turnHadAnswer = false;
    out.push({ type: "turn.started", turnId });
  }

  /** Ends the open turn (or an unseen one) and remembers how, for session.completed. */
  endTurn(out: AgentEventDraft[], last: { status: SessionStatus; error?: string }): void {
    const turnId = this.turnId ?? this.messages.nextId("turn");
    out.push(
      last.error === undefined
        ? { type: "turn.completed", turnId, status: "success" }
        : { type: "turn.completed", turnId, status: "error", error: last.error },
    );
    this.turnId = undefined;
    this.lastTurn = last;
  }

  cumulativeUsage(out: AgentEventDraft[], usage: Usage | undefined): void {
    if (usage === undefined) return;
    this.cumulative = usage;
    out.push({ type: "usage", usage, scope: "cumulative" });
  }

  end(): AgentEventDraft[] {
    const out: AgentEventDraft[] = [];
    const failing = this.turnId !== undefined ? this.pendingError : undefined;
    if (failing !== undefined) this.closeOpenTools(out, failing);
    out.push(...this.messages.closeAll());
    if (failing !== undefined) this.endTurn(out, { status: "error", error: failing });
    // Codex exec has no session-end record: the last turn's end stands for it; a stream cut mid-turn gets none.
    if (this.turnId === undefined && this.lastTurn !== undefined) {
      out.push(
        compact({
          type: "session.completed" as const,
          status: this.lastTurn.status,
          error: this.lastTurn.error,
          finalText: this.finalText,
          usage: this.cumulative,
        }),
      );
    }
    return out;
  }
}

/** One record of any of the three formats: `{type}` (current), `{id,msg}` (legacy), or legacy's config and prompt lines. */
function decodeRecord(v: JsonObject, s: ExecState, out: AgentEventDraft[], context: DecodeContext): void {
  const event: Wire<ThreadEvent> = v;
  const type = fieldStr(event, "type");
  if (type !== undefined) {
    if (!dispatch(currentHandlers, type, event, s, out, context))
      s.unknown(out, context, v, `unknown codex event type ${JSON.stringify(type)}`);
    return;
  }
  const legacyEvent: Wire<LegacyEvent> = v;
  const msg = fieldObj(legacyEvent, "msg");
  if (msg !== undefined) legacyRecord(legacyEvent, msg, s, out, context);
  else if (isLegacyConfig(v)) legacyConfig(v, s, out);
  else if (isLegacyPrompt(v)) {
    s.ensureStarted(out);
    const prompt: Wire<LegacyPrompt> = v;
    out.push(...s.messages.complete(s.messages.nextId("user"), fieldStr(prompt, "prompt") ?? "", "user", "text"));
  } else s.unknown(out, context, v, "unknown codex record (no type, no msg)");
}

// ----- current format (0.40+) -----

const currentHandlers = handlers<ThreadEvent["type"], Wire<ThreadEvent>, ExecState>({
  "thread.started": (v, s, out) => threadStarted(out, s, "thread.started", fieldStr(v, "thread_id")),
  "session.created": (v, s, out) => threadStarted(out, s, "session.created", fieldStr(v, "session_id")),
  "turn.started": (_v, s, out) => {
    s.ensureStarted(out);
    s.startTurn(out, s.messages.nextId("turn"));
  },
  "turn.completed": (v, s, out) => {
    s.ensureStarted(out);
    // turn.completed.usage is the thread's running total (cumulative across resumes); we emit it once as a cumulative usage event.
    s.cumulativeUsage(out, codexUsage(field(v, "usage")));
    s.endTurn(out, { status: "success" });
  },
  "turn.failed": (v, s, out) => {
    s.ensureStarted(out);
    const error = fieldStr(fieldObj(v, "error"), "message") ?? "turn failed";
    s.closeOpenTools(out, error);
    s.endTurn(out, { status: "error", error });
  },
  "item.started": (v, s, out, context) => itemRecord("item.started", v, s, out, context),
  "item.updated": (v, s, out, context) => itemRecord("item.updated", v, s, out, context),
  "item.completed": (v, s, out, context) => itemRecord("item.completed", v, s, out, context),
  "item.plan.delta": (v, s, out) => {
    s.ensureStarted(out);
    const id = fieldStr(v, "item_id") ?? "plan";
    out.push(...s.messages.delta(id, fieldStr(v, "delta") ?? "", "assistant", "text", { channel: "plan" }));
  },
  request_user_input: (v, s, out) => {
    s.ensureStarted(out);
    const questions = fieldItems(v, "questions")
      .map((q) => fieldStr(q, "question"))
      .filter((q): q is string => q !== undefined);
    out.push({
      type: "notice",
      kind: "request_user_input",
      level: "warning",
      text: questions.join("\n") || "the model asks for input",
      details: { ...v },
    });
  },
  error: (v, s, out) => {
    s.ensureStarted(out);
    const message = fieldStr(v, "message") ?? "";
    // Codex's top-level error is non-fatal in practice ("Reconnecting... n/5"); only turn.failed ends the turn.
    out.push(codexReconnect(message) ?? { type: "error", scope: "stream", message });
  },
});

function threadStarted(out: AgentEventDraft[], s: ExecState, type: string, sessionId: string | undefined): void {
  s.open(
    out,
    compact({ type: "session.started" as const, agent: "codex", sessionId }),
    compact({
      type: "notice" as const,
      kind: "thread_started",
      level: "info" as const,
      text: `another ${type} in the same stream: ${sessionId ?? "?"}`,
      details: compact({ sessionId }),
    }),
  );
}

type ItemPhase = "item.started" | "item.updated" | "item.completed";

/** An item record as its handler sees it: the phase, the item, and the record (kept verbatim when the item type is unknown). */
interface ItemRecord {
  readonly phase: ItemPhase;
  readonly id: string;
  readonly status: string | undefined;
  readonly it: Wire<ThreadItem>;
}

function itemRecord(phase: ItemPhase, v: Wire<ThreadEvent>, s: ExecState, out: AgentEventDraft[], context: DecodeContext): void {
  s.ensureStarted(out);
  const it = fieldObj(v, "item");
  if (it === undefined) {
    s.unknown(out, context, v, `${phase} without an item`);
    return;
  }
  const id = fieldStr(it, "id") ?? s.messages.nextId("item");
  let itemType = fieldStr(it, "type") ?? fieldStr(it, "item_type");
  // 0.40–0.43 call the answer `assistant_message`; 0.44 renamed it `agent_message`.
  if (itemType === "assistant_message") itemType = "agent_message";
  const record: ItemRecord = { phase, id, status: fieldStr(it, "status"), it };
  if (itemType === undefined || !dispatch(itemHandlers, itemType, record, s, out, context))
    s.unknown(out, context, v, `unknown codex item type ${JSON.stringify(itemType ?? null)}`);
}

const itemHandlers = handlers<ItemType, ItemRecord, ExecState>({
  agent_message: (r, s, out) => {
    messageItem(out, s, r, "text");
    if (r.phase === "item.completed") s.turnHadAnswer = true;
  },
  reasoning: (r, s, out) => messageItem(out, s, r, "reasoning"),
  plan: (r, s, out) => messageItem(out, s, r, "text", "plan"),
  command_execution: (r, s, out) => {
    const { id, it, status } = r;
    // Named "shell", the name people know it by (and Cursor's); the item type is an implementation word.
    s.startTool(
      out,
      compact({
        type: "tool.started" as const,
        toolCallId: id,
        name: "shell",
        kind: "command" as const,
        input: compact({ command: fieldStr(it, "command") }),
      }),
    );
    if (r.phase === "item.updated") return outputProgress(out, s, id, fieldStr(it, "aggregated_output"), status);
    if (r.phase !== "item.completed") return;
    s.progress.delete(id);
    const exitCode = fieldNum(it, "exit_code");
    const isError = status === "failed" || status === "declined" || (exitCode !== undefined && exitCode !== 0);
    s.completeTool(
      out,
      compact({
        type: "tool.completed" as const,
        toolCallId: id,
        name: "shell",
        output: fieldStr(it, "aggregated_output"),
        exitCode,
        isError,
      }),
    );
  },
  file_change: (r, s, out) => {
    const { id, it, status } = r;
    const changes = itemChanges(fieldItems(it, "changes"));
    s.startTool(out, {
      type: "tool.started",
      toolCallId: id,
      name: "file_change",
      kind: "file_edit",
      input: { changes: fieldArr(it, "changes") ?? [] },
    });
    if (r.phase === "item.updated") return outputProgress(out, s, id, undefined, status);
    if (r.phase !== "item.completed") return;
    const isError = status === "failed";
    s.completeTool(out, { type: "tool.completed", toolCallId: id, name: "file_change", isError });
    if (changes.length > 0) out.push({ type: "file.changed", changes, toolCallId: id, status: isError ? "error" : "success" });
  },
  mcp_tool_call: (r, s, out) => {
    const { id, it, status } = r;
    const name = fieldStr(it, "tool") ?? "mcp_tool_call";
    s.startTool(
      out,
      compact({
        type: "tool.started" as const,
        toolCallId: id,
        name,
        kind: "mcp" as const,
        input: field(it, "arguments"),
        server: fieldStr(it, "server"),
      }),
    );
    if (r.phase === "item.updated") return outputProgress(out, s, id, undefined, status);
    if (r.phase !== "item.completed") return;
    const result = fieldObj(it, "result");
    const errorMessage = fieldStr(fieldObj(it, "error"), "message");
    const structured = field(result, "structured_content");
    const isError = status === "failed" || errorMessage !== undefined || fieldBool(result, "is_error") === true;
    s.completeTool(
      out,
      compact({
        type: "tool.completed" as const,
        toolCallId: id,
        name,
        output: errorMessage ?? textOf(fieldArr(result, "content")),
        result: structured === null ? undefined : structured,
        isError,
      }),
    );
  },
  web_search: (r, s, out) => {
    const { id, it } = r;
    // Codex 0.155 writes `id` twice in web_search items; framing keeps the last (JSON.parse) and reports it, and started/completed still pair.
    const action = fieldObj(it, "action");
    s.startTool(
      out,
      compact({
        type: "tool.started" as const,
        toolCallId: id,
        name: "web_search",
        kind: "web_search" as const,
        input: compact({ query: fieldStr(it, "query"), action }),
      }),
    );
    if (r.phase !== "item.completed") return;
    s.completeTool(
      out,
      compact({
        type: "tool.completed" as const,
        toolCallId: id,
        name: "web_search",
        output: fieldStr(action, "query") ?? (fieldStr(it, "query") || undefined),
        result: action,
        isError: r.status === "failed",
      }),
    );
  },
  collab_tool_call: (r, s, out) => {
    const { id, it, status } = r;
    const name = fieldStr(it, "tool") ?? "collab_tool_call";
    const input = compact({
      prompt: fieldStr(it, "prompt"),
      receiver_thread_ids: fieldArr(it, "receiver_thread_ids"),
      sender_thread_id: fieldStr(it, "sender_thread_id"),
    });
    s.startTool(out, { type: "tool.started", toolCallId: id, name, kind: "subagent", input });
    if (r.phase === "item.updated") return outputProgress(out, s, id, undefined, status);
    if (r.phase !== "item.completed") return;
    const states = fieldObj(it, "agents_states");
    const messages = Object.values(states ?? {})
      .map((state) => fieldStr(asWire<CollabAgentState>(state), "message"))
      .filter((m): m is string => m !== undefined);
    s.completeTool(
      out,
      compact({
        type: "tool.completed" as const,
        toolCallId: id,
        name,
        output: messages.length > 0 ? messages.join("\n") : undefined,
        result: states,
        isError: status === "failed",
      }),
    );
  },
  todo_list: (r, _s, out) => {
    const items: PlanItem[] = [];
    for (const entry of fieldItems(r.it, "items")) {
      const text = fieldStr(entry, "text");
      if (text !== undefined) items.push({ text, status: fieldBool(entry, "completed") === true ? "completed" : "pending" });
    }
    out.push({ type: "plan.updated", items, planId: r.id });
  },
  error: (r, _s, out) => {
    // Codex 0.143+ uses error items for warnings (config, hooks, model metadata), often before turn.started; we emit a warning notice.
    out.push({ type: "notice", kind: "warning", level: "warning", text: fieldStr(r.it, "message") ?? "", details: { itemId: r.id } });
  },
});

function messageItem(out: AgentEventDraft[], s: ExecState, r: ItemRecord, kind: MessageKind, channel?: string): void {
  const { id } = r;
  const text = fieldStr(r.it, "text");
  const options = channel === undefined ? undefined : { channel };
  if (r.phase === "item.completed") {
    if (kind === "text" && channel === undefined && text !== undefined && text.trim() !== "") s.finalText = text;
    out.push(...s.messages.complete(id, text, "assistant", kind, options));
    return;
  }
  out.push(...s.messages.start(id, "assistant", kind, options));
  // item.updated carries a snapshot (reported by third parties only); we emit the part beyond what streamed so far.
  const sofar = s.messages.streamedText(id) ?? "";
  if (text !== undefined && text.length > sofar.length && text.startsWith(sofar))
    out.push(...s.messages.delta(id, text.slice(sofar.length), "assistant", kind, options));
}

function outputProgress(out: AgentEventDraft[], s: ExecState, id: string, output: string | undefined, status: string | undefined): void {
  const before = s.progress.get(id) ?? "";
  let added: string | undefined;
  if (output !== undefined) {
    s.progress.set(id, output);
    added = output.startsWith(before) ? output.slice(before.length) : output;
  }
  if (added || status !== undefined)
    out.push(compact({ type: "tool.progress" as const, toolCallId: id, output: added || undefined, status }));
}

// ----- legacy {id,msg} format -----

/** A legacy record as its handler sees it. */
interface LegacyRecord {
  readonly v: Wire<LegacyEvent>;
  readonly msg: Wire<LegacyMsg>;
  readonly callId: string;
}

function legacyRecord(v: Wire<LegacyEvent>, msg: Wire<LegacyMsg>, s: ExecState, out: AgentEventDraft[], context: DecodeContext): void {
  const type = fieldStr(msg, "type") ?? "";
  if (type !== "session_configured") s.ensureStarted(out);
  const record: LegacyRecord = { v, msg, callId: fieldStr(msg, "call_id") ?? "" };
  if (dispatch(legacyHandlers, type, record, s, out, context)) return;
  const level = LEGACY_NOTICES[type];
  if (level === undefined) {
    s.unknown(out, context, v, `unknown codex event msg type ${JSON.stringify(type)}`);
    return;
  }
  const text = fieldStr(msg, "message") ?? fieldStr(msg, "unified_diff") ?? fieldStr(msg, "reason") ?? type;
  const details: JsonObject = { ...msg };
  delete details.type;
  out.push({ type: "notice", kind: type, level, text, details });
}

/** Legacy exec's first line: the config summary. */
function legacyConfig(v: JsonObject, s: ExecState, out: AgentEventDraft[]): void {
  const c: Wire<LegacyConfigSummary> = v;
  const details: JsonObject = { ...v };
  for (const key of ["model", "workdir", "sandbox", "session id"]) delete details[key];
  s.open(
    out,
    compact({
      type: "session.started" as const,
      agent: "codex",
      model: fieldStr(c, "model"),
      cwd: fieldStr(c, "workdir"),
      permissionMode: fieldStr(c, "sandbox"),
      sessionId: fieldStr(c, "session id"),
      details,
    }),
    { type: "notice", kind: "config", level: "info", text: "codex configuration", details: { ...v } },
  );
}

const legacyHandlers = handlers<LegacyMsgType, LegacyRecord, ExecState>({
  session_configured: ({ msg }, s, out) => {
    const details: JsonObject = { ...msg };
    delete details.type;
    delete details.session_id;
    delete details.model;
    s.open(
      out,
      compact({
        type: "session.started" as const,
        agent: "codex",
        sessionId: fieldStr(msg, "session_id"),
        model: fieldStr(msg, "model"),
        details,
      }),
      {
        type: "notice",
        kind: "session_configured",
        level: "info",
        text: `session ${fieldStr(msg, "session_id") ?? "?"} configured`,
        details: { ...msg },
      },
    );
  },
  task_started: ({ v }, s, out) => {
    const subId = fieldStr(v, "id");
    s.pendingError = undefined;
    s.startTurn(out, subId !== undefined && subId !== "" ? subId : s.messages.nextId("turn"));
  },
  agent_message_delta: ({ msg }, s, out) => legacyDelta(out, s, "msg", fieldStr(msg, "delta") ?? "", "text"),
  agent_message: ({ msg }, s, out) => {
    const text = fieldStr(msg, "message");
    if (text !== undefined && text.trim() !== "") s.finalText = text;
    s.turnHadAnswer = true;
    legacyFull(out, s, "msg", text, "text");
  },
  agent_reasoning_delta: ({ msg }, s, out) => legacyDelta(out, s, "reasoning", fieldStr(msg, "delta") ?? "", "reasoning"),
  agent_reasoning: ({ msg }, s, out) => legacyFull(out, s, "reasoning", fieldStr(msg, "text"), "reasoning"),
  agent_reasoning_raw_content_delta: ({ msg }, s, out) => legacyDelta(out, s, "raw", fieldStr(msg, "delta") ?? "", "reasoning", "raw"),
  agent_reasoning_raw_content: ({ msg }, s, out) => legacyFull(out, s, "raw", fieldStr(msg, "text"), "reasoning", "raw"),
  agent_reasoning_section_break: (_r, s) => {
    // A new reasoning section: the next delta opens a new message (the full agent_reasoning events come one per section).
    legacyStream(s, "reasoning").current = undefined;
  },
  user_message: ({ msg }, s, out) => {
    out.push(...s.messages.complete(s.messages.nextId("user"), fieldStr(msg, "message") ?? "", "user", "text"));
  },
  exec_command_begin: ({ msg, callId }, s, out) => {
    s.startTool(out, {
      type: "tool.started",
      toolCallId: callId,
      name: "exec_command",
      kind: "command",
      input: compact({ command: field(msg, "command"), cwd: fieldStr(msg, "cwd") }),
    });
  },
  exec_command_output_delta: ({ msg, callId }, s, out) => {
    s.startTool(out, { type: "tool.started", toolCallId: callId, name: "exec_command", kind: "command" });
    const text = decodeChunk(s.chunkDecoders, callId, field(msg, "chunk"));
    if (text) out.push({ type: "tool.progress", toolCallId: callId, output: text });
  },
  exec_command_end: ({ msg, callId }, s, out) => {
    s.startTool(out, { type: "tool.started", toolCallId: callId, name: "exec_command", kind: "command" });
    s.chunkDecoders.delete(callId);
    const exitCode = fieldNum(msg, "exit_code");
    const output = fieldStr(msg, "aggregated_output") ?? joinOutput(fieldStr(msg, "stdout"), fieldStr(msg, "stderr"));
    const isError = exitCode !== undefined && exitCode !== 0;
    s.completeTool(
      out,
      compact({
        type: "tool.completed" as const,
        toolCallId: callId,
        name: "exec_command",
        output,
        exitCode,
        isError,
        durationMs: codexDurationMs(field(msg, "duration")),
      }),
    );
  },
  patch_apply_begin: ({ msg, callId }, s, out) => {
    s.patches.set(callId, codexPatchChanges(field(msg, "changes")));
    const input = compact({ changes: field(msg, "changes"), auto_approved: field(msg, "auto_approved") });
    s.startTool(
      out,
      compact({ type: "tool.started" as const, toolCallId: callId, name: "apply_patch", kind: "file_edit" as const, input }),
    );
  },
  patch_apply_end: ({ msg, callId }, s, out) => {
    s.startTool(out, { type: "tool.started", toolCallId: callId, name: "apply_patch", kind: "file_edit" });
    const success = fieldBool(msg, "success") !== false;
    s.completeTool(
      out,
      compact({
        type: "tool.completed" as const,
        toolCallId: callId,
        name: "apply_patch",
        output: joinOutput(fieldStr(msg, "stdout"), fieldStr(msg, "stderr")),
        isError: !success,
      }),
    );
    const changes = field(msg, "changes") !== undefined ? codexPatchChanges(field(msg, "changes")) : (s.patches.get(callId) ?? []);
    s.patches.delete(callId);
    if (changes.length > 0) out.push({ type: "file.changed", changes, toolCallId: callId, status: success ? "success" : "error" });
  },
  mcp_tool_call_begin: ({ msg, callId }, s, out) => {
    const invocation = fieldObj(msg, "invocation");
    s.startTool(
      out,
      compact({
        type: "tool.started" as const,
        toolCallId: callId,
        name: fieldStr(invocation, "tool") ?? "mcp_tool_call",
        kind: "mcp" as const,
        input: field(invocation, "arguments"),
        server: fieldStr(invocation, "server"),
      }),
    );
  },
  mcp_tool_call_end: (r, s, out) => mcpToolCallEnd(r, s, out),
  web_search_begin: ({ msg, callId }, s, out) => {
    s.startTool(
      out,
      compact({
        type: "tool.started" as const,
        toolCallId: callId,
        name: "web_search",
        kind: "web_search" as const,
        input: compact({ query: fieldStr(msg, "query") }),
      }),
    );
  },
  web_search_end: ({ msg, callId }, s, out) => {
    s.startTool(
      out,
      compact({
        type: "tool.started" as const,
        toolCallId: callId,
        name: "web_search",
        kind: "web_search" as const,
        input: compact({ query: fieldStr(msg, "query") }),
      }),
    );
    s.completeTool(
      out,
      compact({ type: "tool.completed" as const, toolCallId: callId, name: "web_search", output: fieldStr(msg, "query"), isError: false }),
    );
  },
  view_image_tool_call: ({ msg, callId }, s, out) => {
    s.startTool(out, {
      type: "tool.started",
      toolCallId: callId,
      name: "view_image",
      kind: "file_read",
      input: compact({ path: fieldStr(msg, "path") }),
    });
    s.completeTool(out, { type: "tool.completed", toolCallId: callId, name: "view_image", isError: false });
  },
  token_count: ({ msg }, s, out) => {
    const info = fieldObj(msg, "info");
    const produced = out.length;
    if (info !== undefined) s.cumulativeUsage(out, codexUsage(field(info, "total_token_usage")));
    else if (fieldNum(msg, "input_tokens") !== undefined || fieldNum(msg, "output_tokens") !== undefined) {
      // Early token_count was flat and per model response (the TUI added them up); we emit it as a delta.
      const usage = codexUsage(msg);
      if (usage !== undefined) out.push({ type: "usage", usage, scope: "delta" });
    }
    out.push(...codexRateLimits(field(msg, "rate_limits")));
    if (out.length === produced) out.push({ type: "notice", kind: "token_count", level: "info", text: "token count without figures" });
  },
  plan_update: ({ msg }, _s, out) => {
    out.push({ type: "plan.updated", items: codexPlanItems(field(msg, "plan")) });
  },
  task_complete: ({ msg }, s, out) => {
    const last = fieldStr(msg, "last_agent_message");
    if (last !== undefined && last.trim() !== "") {
      // The answer's own agent_message may be missing (trimmed captures, exec without deltas); we keep last_agent_message as the message then.
      if (!s.turnHadAnswer) out.push(...s.messages.complete(s.messages.nextId("msg"), last, "assistant", "text"));
      s.finalText = last;
    }
    s.pendingError = undefined;
    s.endTurn(out, { status: "success" });
  },
  turn_aborted: ({ msg }, s, out) => {
    const error = `turn aborted: ${fieldStr(msg, "reason") ?? "unknown reason"}`;
    s.closeOpenTools(out, error);
    s.endTurn(out, { status: "error", error });
    s.lastTurn = { status: "interrupted", error };
  },
  error: ({ msg }, s, out) => {
    const message = fieldStr(msg, "message") ?? "";
    // Legacy exec ends on an error msg with no turn record; we close the turn as failed at the end if nothing follows.
    s.pendingError = message;
    if (s.turnId === undefined) s.lastTurn = { status: "error", error: message };
    out.push(compact({ type: "error" as const, scope: "turn" as const, message, turnId: s.turnId }));
  },
  stream_error: ({ msg }, _s, out) => {
    const message = fieldStr(msg, "message") ?? "";
    out.push(codexReconnect(message) ?? { type: "error", scope: "stream", message });
  },
});

function mcpToolCallEnd({ msg, callId }: LegacyRecord, s: ExecState, out: AgentEventDraft[]): void {
  const invocation = fieldObj(msg, "invocation");
  const name = fieldStr(invocation, "tool") ?? s.messages.toolName(callId) ?? "mcp_tool_call";
  s.startTool(
    out,
    compact({
      type: "tool.started" as const,
      toolCallId: callId,
      name,
      kind: "mcp" as const,
      input: field(invocation, "arguments"),
      server: fieldStr(invocation, "server"),
    }),
  );
  const result = fieldObj(msg, "result");
  // The result is a serde Result: {"Ok": CallToolResult} or {"Err": "message"}.
  const ok = fieldObj(result, "Ok") ?? (fieldArr(result, "content") !== undefined ? result : undefined);
  const err = field(result, "Err");
  const structured = field(ok, "structuredContent") ?? field(ok, "structured_content");
  s.completeTool(
    out,
    compact({
      type: "tool.completed" as const,
      toolCallId: callId,
      name,
      output: err !== undefined ? textOf(err) : textOf(fieldArr(ok, "content")),
      result: structured === null ? undefined : structured,
      isError: err !== undefined || fieldBool(ok, "isError") === true || fieldBool(ok, "is_error") === true,
      durationMs: codexDurationMs(field(msg, "duration")),
    }),
  );
}

function legacyStream(s: ExecState, name: string): { queue: string[]; current: string | undefined } {
  let stream = s.legacyStreams.get(name);
  if (stream === undefined) {
    stream = { queue: [], current: undefined };
    s.legacyStreams.set(name, stream);
  }
  return stream;
}

function legacyDelta(out: AgentEventDraft[], s: ExecState, name: string, text: string, kind: MessageKind, channel?: string): void {
  const stream = legacyStream(s, name);
  if (stream.current === undefined) {
    stream.current = s.messages.nextId(name);
    stream.queue.push(stream.current);
  }
  out.push(...s.messages.delta(stream.current, text, "assistant", kind, channel === undefined ? undefined : { channel }));
}

function legacyFull(
  out: AgentEventDraft[],
  s: ExecState,
  name: string,
  text: string | undefined,
  kind: MessageKind,
  channel?: string,
): void {
  // The full event completes the oldest message its deltas opened (one per reasoning section), so ids match.
  const stream = legacyStream(s, name);
  const id = stream.queue.shift() ?? s.messages.nextId(name);
  if (stream.current === id) stream.current = undefined;
  out.push(...s.messages.complete(id, text, "assistant", kind, channel === undefined ? undefined : { channel }));
}

/** Converts a FileChange list from current-format `changes[{path, kind, diff?}]`. */
function itemChanges(changes: Wire<ItemFileChange>[]): FileChange[] {
  const out: FileChange[] = [];
  for (const change of changes) {
    const path = fieldStr(change, "path");
    if (path === undefined) continue;
    const kindValue = field(change, "kind");
    const kindObject = asWire<PatchKind>(kindValue);
    const kind = str(kindValue) ?? fieldStr(kindObject, "type");
    const movePath = fieldStr(kindObject, "move_path");
    const diff = fieldStr(change, "diff");
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
