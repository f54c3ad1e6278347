// Source of truth: the real `codex exec --json` stream (0.44+): openai/codex `codex-rs/exec/src/exec_events.rs`, its
// TypeScript mirror in @openai/codex-sdk (`dist/index.d.ts`: ThreadEvent, ThreadItem, Usage) and the captures in
// ../shared/fixtures/codex/. Mapping, choices and round-trip losses: docs/formats/codex.md.
import type { AgentEvent, EventOf, FileChange, JsonValue, PlanItem, SessionCompletedEvent, ToolKind, Usage } from "../../model/events.ts";
import { createDispatch } from "../../encoding/dispatch.ts";
import { addUsage, emptyUsage, isUsageEmpty } from "../../model/usage.ts";
import type { RecordEncoder } from "../../encoding/record-encoder.ts";
import { isJsonObject } from "../../model/lossless-integer.ts";
import { stringifyRecord } from "../../framing/stringify.ts";
import type { CodexItem, CodexRecord, CodexUsage, ToolItemType } from "./wire.ts";

/** Placeholder thread id (a UUIDv7 shape) for sources that name no session, so tools that parse ids still work. */
export const PLACEHOLDER_THREAD_ID = "00000000-0000-7000-8000-000000000000";

/** The Codex item type a tool call becomes, by its kind: commands, file edits and web searches have their own items; everything else is an MCP call. */
export function codexItemTypeFor(kind: ToolKind | undefined): ToolItemType {
  switch (kind) {
    case "command":
      return "command_execution";
    case "file_edit":
    case "file_write":
      return "file_change";
    case "web_search":
      return "web_search";
    default:
      return "mcp_tool_call";
  }
}

// ---------------------------------------------------------------------------------------------
// Writer state
// ---------------------------------------------------------------------------------------------

/** A tool call on its way to becoming one Codex item. */
interface ToolItem {
  readonly toolCallId: string;
  readonly itemId: string;
  readonly type: ToolItemType;
  readonly name: string;
  readonly kind: ToolKind | undefined;
  readonly server: string | undefined;
  input: JsonValue | undefined;
  /** `tool.input.delta` fragments, joined and parsed once when the item starts. */
  inputText: string[] | undefined;
  /** `tool.progress` output, the fallback when `tool.completed` carries none. */
  output: string[];
  /** Changes a `file.changed` reported for this call (they replace the ones read from the input). */
  changes: readonly FileChange[] | undefined;
  started: boolean;
  done: boolean;
}

/** A message whose deltas came but whose `message.completed` has not (yet). */
interface OpenMessage {
  readonly role: string;
  readonly kind: string;
  readonly channel: string | undefined;
  readonly root: boolean;
  readonly chunks: string[];
}

/** The running usage figure, folded exactly as the session summary folds it (src/summary/summarize.ts). */
interface UsageFold {
  turnSum: Usage;
  deltaSum: Usage;
  cumulative: Usage | undefined;
}

/** The streaming encoder for `--to codex`: our events as the `codex exec --json` records a Codex tool expects. */
export function createCodexEncoder(): RecordEncoder<CodexRecord> {
  const encoder = new CodexEncoderState();
  return {
    encode(event) {
      if (encoder.heldFileChange !== undefined) {
        if (event.type === "file.changed" && event.toolCallId === encoder.heldFileChange.tool.toolCallId) {
          encoder.heldFileChange.tool.changes = event.changes;
          encoder.flushHeld();
          return encoder.take();
        }
        encoder.flushHeld();
      }
      if (event.type !== "tool.input.delta" && encoder.awaitingInput.length > 0) encoder.flushAwaitingInput();
      // The first session id we see names the thread (a stream may say it before its session.started).
      if (!encoder.threadStarted && event.type !== "session.started" && event.sessionId !== undefined && encoder.isRoot(event))
        encoder.startThread(event.sessionId);
      encoder.handle(event);
      return encoder.take();
    },
    end() {
      encoder.flushAwaitingInput();
      encoder.flushHeld();
      if (encoder.turnOpen)
        encoder.closeTurn(encoder.turnFatal === undefined ? { final: true } : { final: true, failure: encoder.turnFatal });
      if (encoder.beforeThread.length > 0) encoder.startThread(undefined);
      return encoder.take();
    },
  };
}

/** What one Codex writer remembers (the thread, the open turn, items and usage), and one method per event type. */
class CodexEncoderState {
  out: CodexRecord[] = [];
  threadStarted = false;
  turnOpen = false;
  /** Whether the open turn has produced an item (a user message only ends a turn that did something). */
  turnHasItems = false;
  /** A fatal error since the open turn began: a stream that ends there ends with turn.failed. */
  turnFatal: string | undefined;
  /** The last error a turn reported (`turn.completed{status:"error"}`): the fallback reason for turn.failed. */
  lastTurnError: string | undefined;
  itemCount = 0;
  agentName: string | undefined;
  rootId: string | undefined;
  rootSeen = false;
  readonly childSessions = new Set<string>();
  readonly tools = new Map<string, ToolItem>();
  /** Started items not yet complete: what a turn end must close (kept apart so a close never walks every call). */
  readonly running = new Set<ToolItem>();
  /** Tool calls whose item.started waits for their streamed input. */
  readonly awaitingInput: ToolItem[] = [];
  /** A finished file edit, held for one event in case its `file.changed` follows. */
  heldFileChange: { tool: ToolItem; failed: boolean } | undefined;
  readonly messages = new Map<string, OpenMessage>();
  /** Open todo_list items of this turn by plan id (`""` for plans without one): Codex completes them when the turn ends. */
  readonly plans = new Map<string, { itemId: string; items: readonly PlanItem[] }>();
  lastAgentText: string | undefined;
  lastRootAssistantText: string | undefined;
  lastRootCompleted: SessionCompletedEvent | undefined;
  readonly usage: UsageFold = { turnSum: emptyUsage(), deltaSum: emptyUsage(), cumulative: undefined };

  /** Lines written before the thread id is known (warnings before session.started): they follow thread.started. */
  beforeThread: CodexRecord[] = [];

  line(record: CodexRecord): void {
    (this.threadStarted ? this.out : this.beforeThread).push(record);
  }

  nextItemId(): string {
    return `item_${this.itemCount++}`;
  }

  isRoot(event: AgentEvent): boolean {
    return event.sessionId === undefined || this.rootId === undefined || !this.childSessions.has(event.sessionId);
  }

  startThread(threadId: string | undefined): void {
    if (this.threadStarted) return;
    this.threadStarted = true;
    this.line({ type: "thread.started", thread_id: threadId ?? PLACEHOLDER_THREAD_ID });
    this.out.push(...this.beforeThread);
    this.beforeThread = [];
  }

  ensureTurn(): void {
    this.startThread(undefined);
    if (this.turnOpen) return;
    this.turnOpen = true;
    this.turnHasItems = false;
    this.turnFatal = undefined;
    this.line({ type: "turn.started" });
  }

  item(phase: "item.started" | "item.updated" | "item.completed", value: CodexItem): void {
    // Warnings (error items) may come outside a turn, as Codex writes them before turn.started.
    if (value.type !== "error") {
      this.ensureTurn();
      this.turnHasItems = true;
    }
    this.line({ type: phase, item: value });
  }

  // ----- usage -----

  currentUsage(): Usage {
    const completed = this.lastRootCompleted?.usage;
    if (completed !== undefined && !isUsageEmpty(completed)) return completed;
    return this.usage.cumulative ?? addUsage(this.usage.turnSum, this.usage.deltaSum);
  }

  // ----- messages -----

  messageItem(role: string, kind: string, channel: string | undefined, root: boolean, text: string): void {
    if (role !== "assistant" || text.trim() === "") return; // Codex never echoes prompts; it drops empty summaries
    if (kind !== "text") {
      this.item("item.completed", { id: this.nextItemId(), type: "reasoning", text });
      return;
    }
    if (root) this.lastRootAssistantText = text;
    if (channel === "plan") {
      this.item("item.completed", { id: this.nextItemId(), type: "plan", text });
      return;
    }
    this.lastAgentText = text;
    this.item("item.completed", { id: this.nextItemId(), type: "agent_message", text });
  }

  // ----- tools -----

  toolItem(
    tool: ToolItem,
    status: string,
    failed: boolean,
    completion?: { output?: string; result?: JsonValue; exitCode?: number },
  ): CodexItem {
    const base = { id: tool.itemId, type: tool.type };
    const output = completion?.output ?? (tool.output.length > 0 ? tool.output.join("") : undefined);
    switch (tool.type) {
      case "command_execution": {
        // Key order as Codex writes it; exit_code is null while running and absent when the source did not say it.
        const exitCode = status === "in_progress" ? null : completion?.exitCode;
        const value: CodexItem = { ...base, command: commandText(tool.input), aggregated_output: output ?? "" };
        if (exitCode !== undefined) value.exit_code = exitCode;
        value.status = status;
        return value;
      }
      case "file_change":
        return { ...base, changes: codexChanges(tool.changes ?? changesFromInput(tool.input, tool.kind)), status };
      case "web_search":
        return { ...base, query: queryText(tool.input) };
      case "mcp_tool_call": {
        const value: CodexItem = {
          ...base,
          server: tool.server ?? this.agentName ?? "agentstream",
          tool: tool.name,
          arguments: tool.input ?? null,
          result: null,
          error: null,
          status,
        };
        if (status === "in_progress") return value;
        if (failed) value.error = { message: output !== undefined && output !== "" ? output : "tool call failed" };
        else
          value.result = {
            content: output === undefined ? [] : [{ type: "text", text: output }],
            structured_content: completion?.result ?? null,
          };
        return value;
      }
    }
  }

  startItem(tool: ToolItem): void {
    if (tool.started) return;
    tool.started = true;
    if (tool.inputText !== undefined && tool.input === undefined) tool.input = parseInput(tool.inputText.join(""));
    tool.inputText = undefined;
    this.running.add(tool);
    this.item("item.started", this.toolItem(tool, "in_progress", false));
  }

  flushAwaitingInput(): void {
    for (const tool of this.awaitingInput.splice(0)) this.startItem(tool);
  }

  completeFileChange(tool: ToolItem, failed: boolean): void {
    this.item("item.completed", this.toolItem(tool, failed ? "failed" : "completed", failed));
  }

  flushHeld(): void {
    if (this.heldFileChange === undefined) return;
    const { tool, failed } = this.heldFileChange;
    this.heldFileChange = undefined;
    this.completeFileChange(tool, failed);
  }

  newTool(
    toolCallId: string,
    name: string,
    kind: ToolKind | undefined,
    server: string | undefined,
    input: JsonValue | undefined,
  ): ToolItem {
    const tool: ToolItem = {
      toolCallId,
      itemId: this.nextItemId(),
      type: codexItemTypeFor(kind),
      name,
      kind,
      server,
      input,
      inputText: undefined,
      output: [],
      changes: undefined,
      started: false,
      done: false,
    };
    this.tools.set(toolCallId, tool);
    return tool;
  }

  standaloneFileChange(changes: readonly FileChange[], failed: boolean): void {
    // An edit no file tool made (Aider, or a change reported after its call was written): its own file_change item.
    this.item("item.completed", {
      id: this.nextItemId(),
      type: "file_change",
      changes: codexChanges(changes),
      status: failed ? "failed" : "completed",
    });
  }

  // ----- turns -----

  /** Ends the open turn: finishes what is still open, makes sure the final answer comes last, then turn.completed or turn.failed. */
  closeTurn(ending: { final: boolean; failure?: string }): void {
    this.flushAwaitingInput();
    this.flushHeld();
    for (const [id, message] of this.messages) {
      this.messages.delete(id);
      this.messageItem(message.role, message.kind, message.channel, message.root, message.chunks.join(""));
    }
    for (const tool of this.running) {
      // Codex completes every item before the turn ends; a call the source never finished ends as failed.
      this.running.delete(tool);
      tool.done = true;
      if (tool.type === "file_change") this.completeFileChange(tool, true);
      else this.item("item.completed", this.toolItem(tool, "failed", true, { output: "the tool call did not complete" }));
    }
    for (const [key, plan] of this.plans) {
      this.plans.delete(key);
      this.item("item.completed", { id: plan.itemId, type: "todo_list", items: todoItems(plan.items) });
    }
    if (ending.final) {
      // The SDK's finalResponse is the last agent_message: repeat the final answer if something else came after it.
      const finalText = this.lastRootCompleted?.finalText ?? this.lastRootAssistantText;
      if (finalText !== undefined && finalText !== this.lastAgentText) {
        this.lastAgentText = finalText;
        this.item("item.completed", { id: this.nextItemId(), type: "agent_message", text: finalText });
      }
    }
    this.ensureTurn();
    if (ending.failure !== undefined) this.line({ type: "turn.failed", error: { message: ending.failure } });
    else this.line({ type: "turn.completed", usage: codexUsage(this.currentUsage()) });
    this.turnOpen = false;
    this.turnFatal = undefined;
  }

  // ----- events -----

  readonly handle = createDispatch<void>(
    {
      "session.started": this.onSessionStarted.bind(this),
      "session.completed": this.onSessionCompleted.bind(this),
      "turn.started": this.onTurnStarted.bind(this),
      "turn.completed": this.onTurnCompleted.bind(this),
      "message.started": this.onMessageStarted.bind(this),
      "message.delta": this.onMessageDelta.bind(this),
      "message.completed": this.onMessageCompleted.bind(this),
      "tool.started": this.onToolStarted.bind(this),
      "tool.input.delta": this.onToolInputDelta.bind(this),
      "tool.progress": this.onToolProgress.bind(this),
      "tool.completed": this.onToolCompleted.bind(this),
      "file.changed": this.onFileChanged.bind(this),
      "plan.updated": this.onPlanUpdated.bind(this),
      usage: this.onUsage.bind(this),
      error: this.onError.bind(this),
      retry: this.onRetry.bind(this),
      notice: this.onNotice.bind(this),
      rate_limit: this.onRateLimit.bind(this),
    },
    // metric, heartbeat, text, repair, unknown and what Codex has no record for: nothing to write.
    () => {},
  );

  onSessionStarted(event: EventOf<"session.started">): void {
    this.agentName ??= event.agent;
    if (event.parentSessionId !== undefined || event.parentToolCallId !== undefined) {
      if (event.sessionId !== undefined && event.sessionId !== this.rootId) this.childSessions.add(event.sessionId);
      return;
    }
    if (!this.rootSeen) {
      this.rootSeen = true;
      this.rootId = event.sessionId;
      this.agentName = event.agent;
    }
    // One thread per output: a second root session continues it (as `codex exec resume` would).
    this.startThread(event.sessionId);
  }

  onSessionCompleted(event: EventOf<"session.completed">): void {
    if (!this.isRoot(event)) return;
    this.lastRootCompleted = event;
    const failure =
      event.status === "success" ? undefined : (event.error ?? this.lastTurnError ?? this.turnFatal ?? `session ${event.status}`);
    this.closeTurn(failure === undefined ? { final: true } : { final: true, failure });
  }

  onTurnStarted(event: EventOf<"turn.started">): void {
    if (this.isRoot(event)) this.ensureTurn();
  }

  onTurnCompleted(event: EventOf<"turn.completed">): void {
    if (event.usage !== undefined) this.usage.turnSum = addUsage(this.usage.turnSum, event.usage);
    if (this.isRoot(event) && event.status === "error") this.lastTurnError = event.error ?? "turn failed";
  }

  onMessageStarted(event: EventOf<"message.started">): void {
    this.messages.set(event.messageId, {
      role: event.role,
      kind: event.kind,
      channel: event.channel,
      root: this.isRoot(event),
      chunks: [],
    });
  }

  onMessageDelta(event: EventOf<"message.delta">): void {
    let message = this.messages.get(event.messageId);
    if (message === undefined) {
      // A delta for a message that never started: we take it for assistant text.
      message = { role: "assistant", kind: "text", channel: undefined, root: this.isRoot(event), chunks: [] };
      this.messages.set(event.messageId, message);
    }
    message.chunks.push(event.text);
  }

  onMessageCompleted(event: EventOf<"message.completed">): void {
    this.messages.delete(event.messageId);
    const root = this.isRoot(event);
    if (event.role === "user" && event.kind === "text" && root) {
      // A new prompt: the previous turn is over (Codex turns are prompt → answer).
      if (this.turnOpen && this.turnHasItems) this.closeTurn({ final: false });
      return;
    }
    this.messageItem(event.role, event.kind, event.channel, root, event.text);
  }

  onToolStarted(event: EventOf<"tool.started">): void {
    const known = this.tools.get(event.toolCallId);
    if (known !== undefined) {
      if (!known.started && known.input === undefined && event.input !== undefined) known.input = event.input;
      return;
    }
    const tool = this.newTool(event.toolCallId, event.name, event.kind, event.server, event.input);
    this.ensureTurn();
    if (event.input === undefined) this.awaitingInput.push(tool);
    else this.startItem(tool);
  }

  onToolInputDelta(event: EventOf<"tool.input.delta">): void {
    const tool = this.tools.get(event.toolCallId);
    if (tool === undefined || tool.started) return;
    tool.inputText ??= [];
    tool.inputText.push(event.text);
  }

  onToolProgress(event: EventOf<"tool.progress">): void {
    const tool = this.tools.get(event.toolCallId);
    if (tool !== undefined && !tool.done && event.output !== undefined) tool.output.push(event.output);
  }

  onToolCompleted(event: EventOf<"tool.completed">): void {
    let tool = this.tools.get(event.toolCallId);
    // A call we force-closed at a turn end, or reported done twice: its item is already complete.
    if (tool?.done === true) return;
    tool ??= this.newTool(event.toolCallId, event.name ?? "tool", undefined, undefined, undefined);
    tool.done = true;
    this.running.delete(tool);
    if (tool.type === "file_change") {
      this.heldFileChange = { tool, failed: event.isError };
      return;
    }
    this.item(
      "item.completed",
      this.toolItem(
        tool,
        event.isError ? "failed" : "completed",
        event.isError,
        compactCompletion(event.output, event.result, event.exitCode),
      ),
    );
  }

  onFileChanged(event: EventOf<"file.changed">): void {
    const tool = event.toolCallId === undefined ? undefined : this.tools.get(event.toolCallId);
    if (tool !== undefined && tool.type === "file_change" && !tool.done) {
      tool.changes = event.changes;
      return;
    }
    this.standaloneFileChange(event.changes, event.status === "error");
  }

  onPlanUpdated(event: EventOf<"plan.updated">): void {
    const key = event.planId ?? "";
    const open = this.plans.get(key);
    if (open === undefined) {
      const itemId = this.nextItemId();
      this.plans.set(key, { itemId, items: event.items });
      this.item("item.started", { id: itemId, type: "todo_list", items: todoItems(event.items) });
    } else {
      open.items = event.items;
      this.item("item.updated", { id: open.itemId, type: "todo_list", items: todoItems(event.items) });
    }
  }

  onUsage(event: EventOf<"usage">): void {
    if (event.scope === "cumulative") this.usage.cumulative = event.usage;
    else this.usage.deltaSum = addUsage(this.usage.deltaSum, event.usage);
  }

  onError(event: EventOf<"error">): void {
    if (event.fatal === true || event.scope === "session") this.turnFatal = event.message;
    this.line({ type: "error", message: event.message });
  }

  onRetry(event: EventOf<"retry">): void {
    // Codex's own wording, so Codex tools (and our reader) see a reconnect, not a failure.
    const reason = event.error;
    const message =
      reason?.startsWith("Reconnecting...") === true
        ? reason
        : `Reconnecting... ${event.attempt}/${event.maxAttempts ?? event.attempt}${reason ? ` (${reason})` : ""}`;
    this.line({ type: "error", message });
  }

  onNotice(event: EventOf<"notice">): void {
    if (event.level === "warning") this.item("item.completed", { id: this.nextItemId(), type: "error", message: event.text });
  }

  onRateLimit(event: EventOf<"rate_limit">): void {
    if (!event.status.startsWith("allowed")) {
      const which = event.limit === undefined ? "" : ` (${event.limit})`;
      const until = event.resetsAt === undefined ? "" : ` until ${event.resetsAt}`;
      this.item("item.completed", { id: this.nextItemId(), type: "error", message: `rate limit ${event.status}${which}${until}` });
    }
  }

  take(): CodexRecord[] {
    const records = this.out;
    this.out = [];
    return records;
  }
}

// ---------------------------------------------------------------------------------------------
// Field helpers
// ---------------------------------------------------------------------------------------------

/** Our usage as Codex's: unknown figures become 0 (the SDK declares every field a number). */
function codexUsage(usage: Usage): CodexUsage {
  return {
    input_tokens: usage.inputTokens ?? 0,
    cached_input_tokens: usage.cacheReadTokens ?? 0,
    cache_write_input_tokens: usage.cacheWriteTokens ?? 0,
    output_tokens: usage.outputTokens ?? 0,
    reasoning_output_tokens: usage.reasoningTokens ?? 0,
  };
}

function compactCompletion(
  output: string | undefined,
  result: JsonValue | undefined,
  exitCode: number | undefined,
): { output?: string; result?: JsonValue; exitCode?: number } {
  const completion: { output?: string; result?: JsonValue; exitCode?: number } = {};
  if (output !== undefined) completion.output = output;
  if (result !== undefined) completion.result = result;
  if (exitCode !== undefined) completion.exitCode = exitCode;
  return completion;
}

/** Streamed arguments: JSON when they parse, else the text itself. */
function parseInput(text: string): JsonValue | undefined {
  if (text === "") return undefined;
  try {
    return JSON.parse(text) as JsonValue;
  } catch {
    return text;
  }
}

function field(input: JsonValue | undefined, keys: readonly string[]): JsonValue | undefined {
  if (!isJsonObject(input)) return undefined;
  for (const key of keys) {
    const value = input[key];
    if (value !== undefined && value !== null && value !== "") return value;
  }
  return undefined;
}

/** The command line Codex shows: a string as it is, argv joined with spaces, anything else as JSON. */
function commandText(input: JsonValue | undefined): string {
  if (input === undefined || input === null) return "";
  if (typeof input === "string") return input;
  const command = field(input, ["command", "cmd", "commandLine", "script"]);
  if (typeof command === "string") return command;
  if (Array.isArray(command) && command.every((part) => typeof part === "string")) return command.join(" ");
  return stringifyRecord(input);
}

function queryText(input: JsonValue | undefined): string {
  if (typeof input === "string") return input;
  const query = field(input, ["query", "q", "search_query", "searchQuery"]);
  if (typeof query === "string") return query;
  if (Array.isArray(query)) return query.filter((q) => typeof q === "string").join(" ");
  return "";
}

const PATH_KEYS = ["file_path", "path", "filePath", "absolute_path", "target_file", "notebook_path", "file"] as const;

/** The files a file tool's arguments name, before its own report (if any) arrives. */
function changesFromInput(input: JsonValue | undefined, kind: ToolKind | undefined): FileChange[] {
  const listed = field(input, ["changes"]);
  if (Array.isArray(listed)) {
    // Codex's own file_change arguments: [{path, kind}].
    const out: FileChange[] = [];
    for (const change of listed) {
      const path = field(change, ["path"]);
      if (typeof path === "string") out.push({ path, kind: changeKind(field(change, ["kind"])) });
    }
    return out;
  }
  if (typeof listed === "object" && listed !== null) {
    // Codex apply_patch: {path: {add|delete|update: …}}.
    return Object.entries(listed).map(
      ([path, change]): FileChange => ({
        path,
        kind: changeKind(typeof change === "object" && change !== null && !Array.isArray(change) ? (Object.keys(change)[0] ?? null) : null),
      }),
    );
  }
  const path = field(input, PATH_KEYS);
  if (typeof path !== "string") return [];
  // A write may create or overwrite; without the tool's own report we say "add" for writes, "update" for edits.
  return [{ path, kind: kind === "file_write" ? "add" : "update" }];
}

function changeKind(value: JsonValue | undefined): FileChange["kind"] {
  const kind =
    typeof value === "string" ? value : typeof field(value, ["type"]) === "string" ? (field(value, ["type"]) as string) : "update";
  return kind === "add" || kind === "delete" ? kind : "update";
}

/** FileChanges as Codex `changes`: kind add | delete | update (a rename is an update of its old path), with the diff when known. */
function codexChanges(changes: readonly FileChange[]): JsonValue[] {
  return changes.map((change) => {
    const value: { [key: string]: JsonValue } = { path: change.path, kind: change.kind === "rename" ? "update" : change.kind };
    if (change.diff !== undefined) value.diff = change.diff;
    return value;
  });
}

/** Plan items as Codex todo items (in progress is not done). */
function todoItems(items: readonly PlanItem[]): JsonValue[] {
  return items.map((entry) => ({ text: entry.text, completed: entry.status === "completed" }));
}
