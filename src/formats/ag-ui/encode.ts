/**
 * Encoder for `--to ag-ui`: AG-UI protocol events as records (framed as NDJSON, or as SSE `data:`
 * fields with `--sse`, by src/framing/).
 *
 * Source of truth: the zod `EventSchemas` and `verifyEvents` of @ag-ui/core and @ag-ui/client
 * 1.0.0 (protocol 1.0), summarised in ../shared/docs/ag-ui-order-rules.md. docs/formats/ag-ui.md
 * has the mapping table and what AG-UI cannot carry.
 *
 * AG-UI is strict about order (RUN_STARTED first, nothing after RUN_FINISHED, CONTENT only inside
 * its START..END, RUN_FINISHED only when every message, tool call, step, reasoning span and
 * subagent is closed), so this writer keeps a small state machine and repairs odd input instead of
 * passing it through: it opens what was never started, closes what was left open, and holds the
 * run's RUN_FINISHED back until the next run or the end so that trailing events fold into it.
 */
import type { AgentEvent, EventOf, JsonObject, JsonValue, MessageRole, Usage } from "../../model/events.ts";
import { isUnshown } from "../../encoding/final-text.ts";
import { QUIET_EVENT_TYPES } from "../../encoding/dispatch.ts";
import { UiStreamEncoder } from "../../encoding/ui-stream.ts";
import { compact, payloadOf } from "../../encoding/payload.ts";
import type { RecordEncoder } from "../../encoding/record-encoder.ts";
import { stringifyRecord } from "../../framing/stringify.ts";
import type { AgUiEvent } from "./wire.ts";

/** Thread id when the input never names its session. */
const DEFAULT_THREAD_ID = "agentstream-thread";

/** An open text or reasoning message. */
interface OpenMessage {
  readonly wireId: string;
  readonly kind: "text" | "reasoning" | "redacted_reasoning";
  readonly role: MessageRole;
  readonly lane: string | undefined;
  /** Text sent so far, to tell a completion that extends it from one that revises it. */
  streamed: string;
}

/** A tool call in the current run: `open` while its arguments may still stream. */
interface ToolState {
  state: "open" | "ended";
  readonly lane: string | undefined;
  argsSent: boolean;
  results: number;
}

/** The streaming encoder for `--to ag-ui`. */
export function createAgUiEncoder(): RecordEncoder<AgUiEvent> {
  const encoder = new AgUiEncoderState();
  return {
    encode(event) {
      encoder.handle(event);
      return encoder.take();
    },
    end() {
      if (encoder.preamble !== undefined && encoder.preamble.length > 0) encoder.releasePreamble(undefined, undefined);
      encoder.preamble = undefined;
      if (encoder.finishing !== undefined) encoder.finishRun();
      else if (encoder.runActive) encoder.endCutRun();
      return encoder.take();
    },
  };
}

/** What one AG-UI encoder remembers (the run, what is open in it, the subagent lanes), and its handlers. */
class AgUiEncoderState extends UiStreamEncoder<AgUiEvent> {
  // Run state. `finishing` is the root session.completed whose RUN_FINISHED is held back.
  runActive = false;
  runCount = 0;
  threadId: string | undefined;
  runId = "";
  finishing: Extract<AgentEvent, { type: "session.completed" }> | undefined;

  // Per-run state (cleared when a run finishes; everything in it is closed first).
  readonly messages = new Map<string, OpenMessage>();
  readonly completedIds = new Set<string>();
  readonly tools = new Map<string, ToolState>();
  readonly steps = new Map<string | undefined, Set<string>>();
  readonly activeSubagents = new Set<string>();
  readonly finishedSubagents = new Set<string>();
  /** Last assistant text message per lane in the current step: the parent of the tool calls that follow. */
  readonly lastTextMessage = new Map<string | undefined, string>();
  /** The root assistant's text messages in this run as shown, to tell whether the final answer is among them. */
  readonly shownTexts: string[] = [];
  // Across runs: which session ids are subagents (their events carry `subagentRunId`).
  readonly subagentSessions = new Set<string>();
  revisions = 0;

  /**
   * Writes one AG-UI event: its own fields, then the base fields every event may carry (the
   * subagent lane, a timestamp from the event's time, the source record) and our extras under
   * `metadata.agentstream`. Undefined fields are left out by JSON.stringify.
   */
  emit(
    type: string,
    fields: { readonly [key: string]: JsonValue | undefined },
    event?: AgentEvent,
    lane?: string,
    extra?: JsonObject,
  ): void {
    const record: AgUiEvent = { type, ...fields };
    if (lane !== undefined) record.subagentRunId = lane;
    if (event?.time !== undefined) {
      const ms = Date.parse(event.time);
      if (Number.isFinite(ms)) record.timestamp = ms;
    }
    if (event?.raw !== undefined && event.type !== "unknown") record.rawEvent = event.raw;
    if (extra !== undefined && Object.keys(extra).length > 0) record.metadata = { agentstream: extra };
    this.send(record);
  }

  laneOf(event: AgentEvent): string | undefined {
    return event.sessionId !== undefined && this.subagentSessions.has(event.sessionId) ? event.sessionId : undefined;
  }

  // ---- runs ----

  /** Opens run n+1: RUN_STARTED with the session's facts when a root session.started opens it. */
  startRun(session: Extract<AgentEvent, { type: "session.started" }> | undefined, threadHint: string | undefined): void {
    this.runActive = true;
    this.runCount++;
    this.runId = `run-${this.runCount}`;
    this.threadId = session?.sessionId ?? threadHint ?? this.threadId ?? DEFAULT_THREAD_ID;
    if (session === undefined) this.emit("RUN_STARTED", { threadId: this.threadId, runId: this.runId });
    else this.emit("RUN_STARTED", { threadId: this.threadId, runId: this.runId }, session, undefined, sessionExtras(session));
  }

  /** Writes the held RUN_FINISHED / RUN_ERROR and clears the run. */
  finishRun(): void {
    const done = this.finishing;
    this.finishing = undefined;
    if (done === undefined || !this.runActive) return;
    this.closeLane(undefined, true);
    const usage = tokenUsage(done.usage);
    const extra = compact({ costUsd: done.costUsd, durationMs: done.durationMs, turns: done.turns, details: done.details });
    if (done.status === "error") {
      this.emit(
        "RUN_ERROR",
        { message: done.error ?? "the session failed", usage },
        done,
        undefined,
        compact({ ...extra, finalText: done.finalText }),
      );
    } else {
      const outcome: JsonObject = done.status === "interrupted" ? { type: "cancelled" } : { type: "success" };
      this.emit(
        "RUN_FINISHED",
        { threadId: this.threadId ?? DEFAULT_THREAD_ID, runId: this.runId, result: done.finalText, outcome, usage },
        done,
        undefined,
        compact({ ...extra, error: done.error }),
      );
    }
    this.runActive = false;
    this.clearRun();
  }

  /**
   * An input that ends without its session end (a cut capture, a saved session log): close what is open and end
   * the run, or a client waiting for its end would hang. RUN_FINISHED with no outcome and no result claims neither
   * success nor failure (AG-UI has no "incomplete" outcome); `metadata.agentstream.incomplete` says what happened.
   */
  endCutRun(): void {
    this.closeLane(undefined, true);
    this.emit("RUN_FINISHED", { threadId: this.threadId ?? DEFAULT_THREAD_ID, runId: this.runId }, undefined, undefined, {
      incomplete: true,
    });
    this.runActive = false;
    this.clearRun();
  }

  clearRun(): void {
    this.messages.clear();
    this.completedIds.clear();
    this.tools.clear();
    this.steps.clear();
    this.activeSubagents.clear();
    this.finishedSubagents.clear();
    this.lastTextMessage.clear();
    this.shownTexts.length = 0;
  }

  /** Makes sure a run is open for `event`: finishes the held run first unless `event` can fold into it. */
  ensureRun(event: AgentEvent): void {
    if (this.finishing !== undefined && !QUIET_EVENT_TYPES.has(event.type)) this.finishRun();
    if (!this.runActive) this.startRun(undefined, event.sessionId);
  }

  // ---- closing ----

  /** Closes what is open in one lane (undefined: the root lane; `all`: every lane and every subagent). */
  closeLane(lane: string | undefined, all: boolean): void {
    for (const [id, message] of this.messages) {
      if (all || message.lane === lane) {
        this.endMessage(message, undefined);
        this.messages.delete(id);
        this.completedIds.add(id);
      }
    }
    for (const [id, tool] of this.tools) {
      if (tool.state === "open" && (all || tool.lane === lane)) this.endToolArgs(id, tool);
    }
    for (const [stepLane, names] of this.steps) {
      if (!all && stepLane !== lane) continue;
      for (const name of names) this.emit("STEP_FINISHED", { stepName: name }, undefined, stepLane);
      names.clear();
    }
    if (all) {
      for (const id of this.activeSubagents) this.emit("SUBAGENT_FINISHED", { subagentRunId: id });
      for (const id of this.activeSubagents) this.finishedSubagents.add(id);
      this.activeSubagents.clear();
    }
  }

  endMessage(message: OpenMessage, signature: string | undefined, event?: AgentEvent): void {
    if (message.kind === "text") {
      if (message.lane === undefined && message.role === "assistant") this.shownTexts.push(message.streamed);
      this.emit("TEXT_MESSAGE_END", { messageId: message.wireId }, event, message.lane);
      return;
    }
    this.emit("REASONING_MESSAGE_END", { messageId: message.wireId }, event, message.lane);
    if (signature !== undefined)
      this.emit(
        "REASONING_ENCRYPTED_VALUE",
        { subtype: "message", entityId: message.wireId, encryptedValue: signature },
        event,
        message.lane,
      );
    this.emit("REASONING_END", { messageId: message.wireId }, event, message.lane);
  }

  endToolArgs(id: string, tool: ToolState, event?: AgentEvent): void {
    this.emit("TOOL_CALL_END", { toolCallId: id }, event, tool.lane);
    tool.state = "ended";
  }

  // ---- messages ----

  /** The id a message goes out under: its own, or a fresh one when its own was already used and closed in this run. */
  wireIdFor(messageId: string): string {
    if (!this.completedIds.has(messageId)) return messageId;
    this.revisions++;
    return `${messageId}:revised-${this.revisions}`;
  }

  openMessage(
    messageId: string,
    wireId: string,
    role: MessageRole,
    kind: OpenMessage["kind"],
    event: AgentEvent,
    extra: JsonObject,
  ): OpenMessage {
    const lane = this.laneOf(event);
    const message: OpenMessage = { wireId, kind, role, lane, streamed: "" };
    this.messages.set(messageId, message);
    if (kind === "text") {
      this.emit("TEXT_MESSAGE_START", { messageId: wireId, role }, event, lane, extra);
      if (role === "assistant") this.lastTextMessage.set(lane, wireId);
    } else {
      this.emit("REASONING_START", { messageId: wireId }, event, lane, extra);
      this.emit("REASONING_MESSAGE_START", { messageId: wireId, role: "reasoning" }, event, lane);
    }
    return message;
  }

  sendContent(message: OpenMessage, text: string, event: AgentEvent): void {
    if (text === "") return; // an empty delta says nothing; some AG-UI versions reject it
    message.streamed += text;
    this.emit(
      message.kind === "text" ? "TEXT_MESSAGE_CONTENT" : "REASONING_MESSAGE_CONTENT",
      { messageId: message.wireId, delta: text },
      event,
      message.lane,
    );
  }

  onMessageStarted(event: Extract<AgentEvent, { type: "message.started" }>): void {
    if (this.messages.has(event.messageId)) return; // already open: the repair stage reports repeated starts
    this.openMessage(event.messageId, this.wireIdFor(event.messageId), event.role, event.kind, event, messageExtras(event));
  }

  onMessageDelta(event: Extract<AgentEvent, { type: "message.delta" }>): void {
    let message = this.messages.get(event.messageId);
    // A delta with no start: open it as assistant text, the only kind a bare delta can be shown as.
    message ??= this.openMessage(event.messageId, this.wireIdFor(event.messageId), "assistant", "text", event, {});
    this.sendContent(message, event.text, event);
  }

  onMessageCompleted(event: Extract<AgentEvent, { type: "message.completed" }>): void {
    const open = this.messages.get(event.messageId);
    const signature = event.signature;
    if (open !== undefined && event.text.startsWith(open.streamed)) {
      this.sendContent(open, event.text.slice(open.streamed.length), event);
      this.closeMessage(event.messageId, open, signature, event);
      return;
    }
    const extra = messageExtras(event);
    if (open !== undefined) {
      // AG-UI text is append-only: the streamed message stays as shown, the revision follows as a new message.
      this.closeMessage(event.messageId, open, undefined, event);
      this.revisions++;
      extra.revises = open.wireId;
      const revised = this.openMessage(
        event.messageId,
        `${event.messageId}:revised-${this.revisions}`,
        event.role,
        event.kind,
        event,
        extra,
      );
      this.sendContent(revised, event.text, event);
      this.closeMessage(event.messageId, revised, signature, event);
      return;
    }
    const message = this.openMessage(event.messageId, this.wireIdFor(event.messageId), event.role, event.kind, event, extra);
    this.sendContent(message, event.text, event);
    this.closeMessage(event.messageId, message, signature, event);
  }

  closeMessage(messageId: string, message: OpenMessage, signature: string | undefined, event: AgentEvent): void {
    this.endMessage(message, signature, event);
    this.messages.delete(messageId);
    this.completedIds.add(messageId);
  }

  // ---- tools ----

  startTool(id: string, name: string, event: AgentEvent, extra: JsonObject): ToolState {
    const lane = this.laneOf(event);
    const tool: ToolState = { state: "open", lane, argsSent: false, results: 0 };
    this.tools.set(id, tool);
    this.emit(
      "TOOL_CALL_START",
      { toolCallId: id, toolCallName: name, parentMessageId: this.lastTextMessage.get(lane) },
      event,
      lane,
      extra,
    );
    return tool;
  }

  sendArgs(id: string, tool: ToolState, text: string, event: AgentEvent): void {
    if (text === "") return;
    tool.argsSent = true;
    this.emit("TOOL_CALL_ARGS", { toolCallId: id, delta: text }, event, tool.lane);
  }

  onToolStarted(event: Extract<AgentEvent, { type: "tool.started" }>): void {
    const known = this.tools.get(event.toolCallId);
    if (known !== undefined) {
      // A repeat: complete arguments the first start lacked, otherwise keep it as a CUSTOM event.
      if (known.state === "open" && !known.argsSent && event.input !== undefined) {
        this.sendArgs(event.toolCallId, known, stringifyRecord(event.input), event);
        this.endToolArgs(event.toolCallId, known, event);
      } else {
        this.custom(event);
      }
      return;
    }
    const tool = this.startTool(
      event.toolCallId,
      event.name,
      event,
      compact({ kind: event.kind, server: event.server, description: event.description }),
    );
    if (event.input !== undefined) {
      this.sendArgs(event.toolCallId, tool, stringifyRecord(event.input), event);
      this.endToolArgs(event.toolCallId, tool, event);
    }
  }

  onToolInputDelta(event: Extract<AgentEvent, { type: "tool.input.delta" }>): void {
    const tool = this.tools.get(event.toolCallId) ?? this.startTool(event.toolCallId, "", event, {});
    if (tool.state === "open") this.sendArgs(event.toolCallId, tool, event.text, event);
    else this.custom(event); // arguments after TOOL_CALL_END cannot be ARGS
  }

  onToolProgress(event: Extract<AgentEvent, { type: "tool.progress" }>): void {
    const tool = this.tools.get(event.toolCallId);
    // A running tool has its arguments: close them so the call shows as complete.
    if (tool?.state === "open") this.endToolArgs(event.toolCallId, tool, event);
    this.custom(event);
  }

  onToolCompleted(event: Extract<AgentEvent, { type: "tool.completed" }>): void {
    const tool = this.tools.get(event.toolCallId) ?? this.startTool(event.toolCallId, event.name ?? "", event, {});
    if (tool.state === "open") this.endToolArgs(event.toolCallId, tool, event);
    tool.results++;
    const content = event.output ?? (event.result !== undefined ? stringifyRecord(event.result) : "");
    const resultId = tool.results === 1 ? `${event.toolCallId}:result` : `${event.toolCallId}:result-${tool.results}`;
    const extra = compact({
      isError: event.isError,
      exitCode: event.exitCode,
      durationMs: event.durationMs,
      result: event.output !== undefined ? event.result : undefined,
    });
    this.emit("TOOL_CALL_RESULT", { messageId: resultId, toolCallId: event.toolCallId, content, role: "tool" }, event, tool.lane, extra);
  }

  // ---- sessions, turns, everything else ----

  onSessionStarted(event: Extract<AgentEvent, { type: "session.started" }>): void {
    const id = event.sessionId;
    if (id === undefined || this.activeSubagents.has(id) || this.finishedSubagents.has(id)) {
      this.custom(event);
      return;
    }
    const parent =
      event.parentSessionId !== undefined && this.activeSubagents.has(event.parentSessionId) ? event.parentSessionId : undefined;
    this.subagentSessions.add(id);
    this.activeSubagents.add(id);
    this.emit(
      "SUBAGENT_STARTED",
      { subagentRunId: id, name: event.agent ?? "subagent", parentSubagentRunId: parent, parentToolCallId: event.parentToolCallId },
      event,
      undefined,
      sessionExtras(event),
    );
  }

  onSessionCompleted(event: Extract<AgentEvent, { type: "session.completed" }>): void {
    const lane = this.laneOf(event);
    if (lane === undefined) {
      // Close the content now (it is final); RUN_FINISHED waits so trailing events fold into this run.
      this.closeLane(undefined, true);
      this.showFinalText(event);
      this.finishing = event;
      return;
    }
    if (!this.activeSubagents.has(lane)) {
      this.custom(event);
      return;
    }
    this.closeLane(lane, false);
    this.activeSubagents.delete(lane);
    this.finishedSubagents.add(lane);
    const extra = compact({
      usage: event.usage === undefined ? undefined : usageJson(event.usage),
      costUsd: event.costUsd,
      durationMs: event.durationMs,
      turns: event.turns,
      details: event.details,
    });
    if (event.status === "success") {
      this.emit(
        "SUBAGENT_FINISHED",
        { subagentRunId: lane, result: event.finalText, outcome: { type: "success" } },
        event,
        undefined,
        extra,
      );
    } else {
      this.emit(
        "SUBAGENT_ERROR",
        { subagentRunId: lane, message: event.error ?? `the subagent ended: ${event.status}`, code: event.status },
        event,
        undefined,
        compact({ ...extra, finalText: event.finalText }),
      );
    }
  }

  /**
   * A chat UI shows messages, not RUN_FINISHED.result: when the final answer never came as a message (no deltas,
   * only the completion carries it), it goes out as an assistant text message of its own.
   */
  showFinalText(event: Extract<AgentEvent, { type: "session.completed" }>): void {
    const answer = event.finalText;
    if (answer === undefined || !isUnshown(answer, this.shownTexts)) return;
    const id = `${event.sessionId ?? "session"}:final-text`;
    const message = this.openMessage(id, this.wireIdFor(id), "assistant", "text", event, { finalText: true });
    this.sendContent(message, answer, event);
    this.closeMessage(id, message, undefined, event);
  }

  onTurnStarted(event: Extract<AgentEvent, { type: "turn.started" }>): void {
    const lane = this.laneOf(event);
    let open = this.steps.get(lane);
    if (open === undefined) {
      open = new Set();
      this.steps.set(lane, open);
    }
    this.lastTextMessage.delete(lane);
    if (open.has(event.turnId)) return; // already open: a step name may be open once
    open.add(event.turnId);
    this.emit("STEP_STARTED", { stepName: event.turnId }, event, lane);
  }

  onTurnCompleted(event: Extract<AgentEvent, { type: "turn.completed" }>): void {
    const lane = this.laneOf(event);
    const open = this.steps.get(lane);
    if (open?.has(event.turnId) !== true) {
      this.custom(event);
      return;
    }
    open.delete(event.turnId);
    // The model's response is complete: so are the arguments of the calls it made.
    for (const [id, tool] of this.tools) if (tool.state === "open" && tool.lane === lane) this.endToolArgs(id, tool, event);
    this.lastTextMessage.delete(lane);
    const extra = compact({
      status: event.status,
      error: event.error,
      usage: event.usage === undefined ? undefined : usageJson(event.usage),
      costUsd: event.costUsd,
    });
    this.emit("STEP_FINISHED", { stepName: event.turnId }, event, lane, extra);
  }

  onPlanUpdated(event: Extract<AgentEvent, { type: "plan.updated" }>): void {
    // The plan is the root agent's state; a subagent's plan would overwrite it, so it stays CUSTOM.
    if (this.laneOf(event) !== undefined) {
      this.custom(event);
      return;
    }
    const snapshot: JsonObject = { plan: event.items.map((item) => ({ text: item.text, status: item.status })) };
    if (event.planId !== undefined) snapshot.planId = event.planId;
    this.emit("STATE_SNAPSHOT", { snapshot }, event);
  }

  override onUnknown(event: EventOf<"unknown">): void {
    this.emit("RAW", { event: event.raw, source: event.source?.dialect }, event, this.laneOf(event), compact({ reason: event.reason }));
  }

  /** What AG-UI has no event for travels as CUSTOM `agentstream.<type>`. */
  onOther(event: AgentEvent): void {
    this.custom(event);
  }

  /** Our event as CUSTOM `agentstream.<type>`, its fields (without the envelope) as the value. */
  custom(event: AgentEvent): void {
    const lane = this.laneOf(event);
    const value = payloadOf(event);
    // The session is already said by the run's threadId or the event's subagentRunId.
    if (value.sessionId === lane || (lane === undefined && value.sessionId === this.threadId)) delete value.sessionId;
    this.emit("CUSTOM", { name: `agentstream.${event.type}`, value }, event, lane);
  }

  handle(event: AgentEvent): void {
    if (this.preamble !== undefined) {
      // Before the first session.started: hold quiet events so RUN_STARTED can carry the session's id.
      if (this.hold(event)) return;
      const root = this.isRootStart(event);
      this.releasePreamble(root ? event : undefined, event.sessionId);
      if (root) return;
    }
    if (this.isRootStart(event)) {
      if (this.finishing !== undefined) this.finishRun();
      if (!this.runActive) this.startRun(event, undefined);
      else this.custom(event); // a root session.started inside a running run (a re-sent init): keep its facts
      return;
    }
    this.ensureRun(event);
    this.dispatch(event);
  }

  /** Opens the first run and writes the events held before it. */
  releasePreamble(session: Extract<AgentEvent, { type: "session.started" }> | undefined, threadHint: string | undefined): void {
    const held = this.takePreamble();
    this.startRun(session, threadHint ?? held.find((e) => e.sessionId !== undefined)?.sessionId);
    for (const event of held) this.dispatch(event);
  }
}

/** Session facts with no RUN_STARTED / SUBAGENT_STARTED field. */
function sessionExtras(event: Extract<AgentEvent, { type: "session.started" }>): JsonObject {
  return compact({
    sessionId: event.sessionId,
    agent: event.agent,
    agentVersion: event.agentVersion,
    model: event.model,
    cwd: event.cwd,
    tools: event.tools === undefined ? undefined : [...event.tools],
    permissionMode: event.permissionMode,
    parentSessionId: event.parentSessionId,
    parentToolCallId: event.parentToolCallId,
    details: event.details,
  });
}

function messageExtras(event: Extract<AgentEvent, { type: "message.started" | "message.completed" }>): JsonObject {
  return compact({
    contentType: event.contentType,
    language: event.language,
    channel: event.channel,
    kind: event.kind === "redacted_reasoning" ? event.kind : undefined,
    role: event.kind !== "text" && event.role !== "assistant" ? event.role : undefined,
  });
}

/** Our Usage as an AG-UI TokenUsage list (non-negative integers only; unknown figures left out). */
function tokenUsage(usage: Usage | undefined): JsonValue[] | undefined {
  if (usage === undefined) return undefined;
  const entry = compact({
    inputTokens: count(usage.inputTokens),
    outputTokens: count(usage.outputTokens),
    reasoningTokens: count(usage.reasoningTokens),
    cachedInputTokens: count(usage.cacheReadTokens),
    cacheWriteInputTokens: count(usage.cacheWriteTokens),
  });
  return Object.keys(entry).length === 0 ? undefined : [entry];
}

function count(value: number | null): number | undefined {
  return value !== null && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function usageJson(usage: Usage): JsonObject {
  return { ...usage };
}
