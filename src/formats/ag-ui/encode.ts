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
import type { AgentEvent, JsonObject, JsonValue, MessageRole, Usage } from "../../model/events.ts";
import { isUnshown } from "../../encoding/final-text.ts";
import { createDispatch, MAX_PREAMBLE, QUIET_EVENT_TYPES } from "../../encoding/dispatch.ts";
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
  let out: AgUiEvent[] = [];

  // Run state. `finishing` is the root session.completed whose RUN_FINISHED is held back.
  let runActive = false;
  let runCount = 0;
  let threadId: string | undefined;
  let runId = "";
  let finishing: Extract<AgentEvent, { type: "session.completed" }> | undefined;
  let preamble: AgentEvent[] | undefined = [];
  let rootSeen = false;

  // Per-run state (cleared when a run finishes; everything in it is closed first).
  const messages = new Map<string, OpenMessage>();
  const completedIds = new Set<string>();
  const tools = new Map<string, ToolState>();
  const steps = new Map<string | undefined, Set<string>>();
  const activeSubagents = new Set<string>();
  const finishedSubagents = new Set<string>();
  /** Last assistant text message per lane in the current step: the parent of the tool calls that follow. */
  const lastTextMessage = new Map<string | undefined, string>();
  /** The root assistant's text messages in this run as shown, to tell whether the final answer is among them. */
  const shownTexts: string[] = [];
  // Across runs: which session ids are subagents (their events carry `subagentRunId`).
  const subagentSessions = new Set<string>();
  let revisions = 0;

  function send(event: AgUiEvent): void {
    out.push(event);
  }

  /**
   * Writes one AG-UI event: its own fields, then the base fields every event may carry (the
   * subagent lane, a timestamp from the event's time, the source record) and our extras under
   * `metadata.agentstream`. Undefined fields are left out by JSON.stringify.
   */
  function emit(
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
    send(record);
  }

  function laneOf(event: AgentEvent): string | undefined {
    return event.sessionId !== undefined && subagentSessions.has(event.sessionId) ? event.sessionId : undefined;
  }

  // ---- runs ----

  /** Opens run n+1: RUN_STARTED with the session's facts when a root session.started opens it. */
  function startRun(session: Extract<AgentEvent, { type: "session.started" }> | undefined, threadHint: string | undefined): void {
    runActive = true;
    runCount++;
    runId = `run-${runCount}`;
    threadId = session?.sessionId ?? threadHint ?? threadId ?? DEFAULT_THREAD_ID;
    if (session === undefined) emit("RUN_STARTED", { threadId, runId });
    else emit("RUN_STARTED", { threadId, runId }, session, undefined, sessionExtras(session));
  }

  /** Writes the held RUN_FINISHED / RUN_ERROR and clears the run. */
  function finishRun(): void {
    const done = finishing;
    finishing = undefined;
    if (done === undefined || !runActive) return;
    closeLane(undefined, true);
    const usage = tokenUsage(done.usage);
    const extra = compact({ costUsd: done.costUsd, durationMs: done.durationMs, turns: done.turns, details: done.details });
    if (done.status === "error") {
      emit(
        "RUN_ERROR",
        { message: done.error ?? "the session failed", usage },
        done,
        undefined,
        compact({ ...extra, finalText: done.finalText }),
      );
    } else {
      const outcome: JsonObject = done.status === "interrupted" ? { type: "cancelled" } : { type: "success" };
      emit(
        "RUN_FINISHED",
        { threadId: threadId ?? DEFAULT_THREAD_ID, runId, result: done.finalText, outcome, usage },
        done,
        undefined,
        compact({ ...extra, error: done.error }),
      );
    }
    runActive = false;
    clearRun();
  }

  function clearRun(): void {
    messages.clear();
    completedIds.clear();
    tools.clear();
    steps.clear();
    activeSubagents.clear();
    finishedSubagents.clear();
    lastTextMessage.clear();
    shownTexts.length = 0;
  }

  /** Makes sure a run is open for `event`: finishes the held run first unless `event` can fold into it. */
  function ensureRun(event: AgentEvent): void {
    if (finishing !== undefined && !QUIET_EVENT_TYPES.has(event.type)) finishRun();
    if (!runActive) startRun(undefined, event.sessionId);
  }

  // ---- closing ----

  /** Closes what is open in one lane (undefined: the root lane; `all`: every lane and every subagent). */
  function closeLane(lane: string | undefined, all: boolean): void {
    for (const [id, message] of messages) {
      if (all || message.lane === lane) {
        endMessage(message, undefined);
        messages.delete(id);
        completedIds.add(id);
      }
    }
    for (const [id, tool] of tools) {
      if (tool.state === "open" && (all || tool.lane === lane)) endToolArgs(id, tool);
    }
    for (const [stepLane, names] of steps) {
      if (!all && stepLane !== lane) continue;
      for (const name of names) emit("STEP_FINISHED", { stepName: name }, undefined, stepLane);
      names.clear();
    }
    if (all) {
      for (const id of activeSubagents) emit("SUBAGENT_FINISHED", { subagentRunId: id });
      for (const id of activeSubagents) finishedSubagents.add(id);
      activeSubagents.clear();
    }
  }

  function endMessage(message: OpenMessage, signature: string | undefined, event?: AgentEvent): void {
    if (message.kind === "text") {
      if (message.lane === undefined && message.role === "assistant") shownTexts.push(message.streamed);
      emit("TEXT_MESSAGE_END", { messageId: message.wireId }, event, message.lane);
      return;
    }
    emit("REASONING_MESSAGE_END", { messageId: message.wireId }, event, message.lane);
    if (signature !== undefined)
      emit("REASONING_ENCRYPTED_VALUE", { subtype: "message", entityId: message.wireId, encryptedValue: signature }, event, message.lane);
    emit("REASONING_END", { messageId: message.wireId }, event, message.lane);
  }

  function endToolArgs(id: string, tool: ToolState, event?: AgentEvent): void {
    emit("TOOL_CALL_END", { toolCallId: id }, event, tool.lane);
    tool.state = "ended";
  }

  // ---- messages ----

  /** The id a message goes out under: its own, or a fresh one when its own was already used and closed in this run. */
  function wireIdFor(messageId: string): string {
    if (!completedIds.has(messageId)) return messageId;
    revisions++;
    return `${messageId}:revised-${revisions}`;
  }

  function openMessage(
    messageId: string,
    wireId: string,
    role: MessageRole,
    kind: OpenMessage["kind"],
    event: AgentEvent,
    extra: JsonObject,
  ): OpenMessage {
    const lane = laneOf(event);
    const message: OpenMessage = { wireId, kind, role, lane, streamed: "" };
    messages.set(messageId, message);
    if (kind === "text") {
      emit("TEXT_MESSAGE_START", { messageId: wireId, role }, event, lane, extra);
      if (role === "assistant") lastTextMessage.set(lane, wireId);
    } else {
      emit("REASONING_START", { messageId: wireId }, event, lane, extra);
      emit("REASONING_MESSAGE_START", { messageId: wireId, role: "reasoning" }, event, lane);
    }
    return message;
  }

  function sendContent(message: OpenMessage, text: string, event: AgentEvent): void {
    if (text === "") return; // an empty delta says nothing; some AG-UI versions reject it
    message.streamed += text;
    emit(
      message.kind === "text" ? "TEXT_MESSAGE_CONTENT" : "REASONING_MESSAGE_CONTENT",
      { messageId: message.wireId, delta: text },
      event,
      message.lane,
    );
  }

  function onMessageStarted(event: Extract<AgentEvent, { type: "message.started" }>): void {
    if (messages.has(event.messageId)) return; // already open: the repair stage reports repeated starts
    openMessage(event.messageId, wireIdFor(event.messageId), event.role, event.kind, event, messageExtras(event));
  }

  function onMessageDelta(event: Extract<AgentEvent, { type: "message.delta" }>): void {
    let message = messages.get(event.messageId);
    // A delta with no start: open it as assistant text, the only kind a bare delta can be shown as.
    message ??= openMessage(event.messageId, wireIdFor(event.messageId), "assistant", "text", event, {});
    sendContent(message, event.text, event);
  }

  function onMessageCompleted(event: Extract<AgentEvent, { type: "message.completed" }>): void {
    const open = messages.get(event.messageId);
    const signature = event.signature;
    if (open !== undefined && event.text.startsWith(open.streamed)) {
      sendContent(open, event.text.slice(open.streamed.length), event);
      closeMessage(event.messageId, open, signature, event);
      return;
    }
    const extra = messageExtras(event);
    if (open !== undefined) {
      // AG-UI text is append-only: the streamed message stays as shown, the revision follows as a new message.
      closeMessage(event.messageId, open, undefined, event);
      revisions++;
      extra.revises = open.wireId;
      const revised = openMessage(event.messageId, `${event.messageId}:revised-${revisions}`, event.role, event.kind, event, extra);
      sendContent(revised, event.text, event);
      closeMessage(event.messageId, revised, signature, event);
      return;
    }
    const message = openMessage(event.messageId, wireIdFor(event.messageId), event.role, event.kind, event, extra);
    sendContent(message, event.text, event);
    closeMessage(event.messageId, message, signature, event);
  }

  function closeMessage(messageId: string, message: OpenMessage, signature: string | undefined, event: AgentEvent): void {
    endMessage(message, signature, event);
    messages.delete(messageId);
    completedIds.add(messageId);
  }

  // ---- tools ----

  function startTool(id: string, name: string, event: AgentEvent, extra: JsonObject): ToolState {
    const lane = laneOf(event);
    const tool: ToolState = { state: "open", lane, argsSent: false, results: 0 };
    tools.set(id, tool);
    emit("TOOL_CALL_START", { toolCallId: id, toolCallName: name, parentMessageId: lastTextMessage.get(lane) }, event, lane, extra);
    return tool;
  }

  function sendArgs(id: string, tool: ToolState, text: string, event: AgentEvent): void {
    if (text === "") return;
    tool.argsSent = true;
    emit("TOOL_CALL_ARGS", { toolCallId: id, delta: text }, event, tool.lane);
  }

  function onToolStarted(event: Extract<AgentEvent, { type: "tool.started" }>): void {
    const known = tools.get(event.toolCallId);
    if (known !== undefined) {
      // A repeat: complete arguments the first start lacked, otherwise keep it as a CUSTOM event.
      if (known.state === "open" && !known.argsSent && event.input !== undefined) {
        sendArgs(event.toolCallId, known, stringifyRecord(event.input), event);
        endToolArgs(event.toolCallId, known, event);
      } else {
        custom(event);
      }
      return;
    }
    const tool = startTool(
      event.toolCallId,
      event.name,
      event,
      compact({ kind: event.kind, server: event.server, description: event.description }),
    );
    if (event.input !== undefined) {
      sendArgs(event.toolCallId, tool, stringifyRecord(event.input), event);
      endToolArgs(event.toolCallId, tool, event);
    }
  }

  function onToolInputDelta(event: Extract<AgentEvent, { type: "tool.input.delta" }>): void {
    const tool = tools.get(event.toolCallId) ?? startTool(event.toolCallId, "", event, {});
    if (tool.state === "open") sendArgs(event.toolCallId, tool, event.text, event);
    else custom(event); // arguments after TOOL_CALL_END cannot be ARGS
  }

  function onToolProgress(event: Extract<AgentEvent, { type: "tool.progress" }>): void {
    const tool = tools.get(event.toolCallId);
    // A running tool has its arguments: close them so the call shows as complete.
    if (tool?.state === "open") endToolArgs(event.toolCallId, tool, event);
    custom(event);
  }

  function onToolCompleted(event: Extract<AgentEvent, { type: "tool.completed" }>): void {
    const tool = tools.get(event.toolCallId) ?? startTool(event.toolCallId, event.name ?? "", event, {});
    if (tool.state === "open") endToolArgs(event.toolCallId, tool, event);
    tool.results++;
    const content = event.output ?? (event.result !== undefined ? stringifyRecord(event.result) : "");
    const resultId = tool.results === 1 ? `${event.toolCallId}:result` : `${event.toolCallId}:result-${tool.results}`;
    const extra = compact({
      isError: event.isError,
      exitCode: event.exitCode,
      durationMs: event.durationMs,
      result: event.output !== undefined ? event.result : undefined,
    });
    emit("TOOL_CALL_RESULT", { messageId: resultId, toolCallId: event.toolCallId, content, role: "tool" }, event, tool.lane, extra);
  }

  // ---- sessions, turns, everything else ----

  function onSessionStarted(event: Extract<AgentEvent, { type: "session.started" }>): void {
    const id = event.sessionId;
    if (id === undefined || activeSubagents.has(id) || finishedSubagents.has(id)) {
      custom(event);
      return;
    }
    const parent = event.parentSessionId !== undefined && activeSubagents.has(event.parentSessionId) ? event.parentSessionId : undefined;
    subagentSessions.add(id);
    activeSubagents.add(id);
    emit(
      "SUBAGENT_STARTED",
      { subagentRunId: id, name: event.agent ?? "subagent", parentSubagentRunId: parent, parentToolCallId: event.parentToolCallId },
      event,
      undefined,
      sessionExtras(event),
    );
  }

  function onSessionCompleted(event: Extract<AgentEvent, { type: "session.completed" }>): void {
    const lane = laneOf(event);
    if (lane === undefined) {
      // Close the content now (it is final); RUN_FINISHED waits so trailing events fold into this run.
      closeLane(undefined, true);
      showFinalText(event);
      finishing = event;
      return;
    }
    if (!activeSubagents.has(lane)) {
      custom(event);
      return;
    }
    closeLane(lane, false);
    activeSubagents.delete(lane);
    finishedSubagents.add(lane);
    const extra = compact({
      usage: event.usage === undefined ? undefined : usageJson(event.usage),
      costUsd: event.costUsd,
      durationMs: event.durationMs,
      turns: event.turns,
      details: event.details,
    });
    if (event.status === "success") {
      emit("SUBAGENT_FINISHED", { subagentRunId: lane, result: event.finalText, outcome: { type: "success" } }, event, undefined, extra);
    } else {
      emit(
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
  function showFinalText(event: Extract<AgentEvent, { type: "session.completed" }>): void {
    const answer = event.finalText;
    if (answer === undefined || !isUnshown(answer, shownTexts)) return;
    const id = `${event.sessionId ?? "session"}:final-text`;
    const message = openMessage(id, wireIdFor(id), "assistant", "text", event, { finalText: true });
    sendContent(message, answer, event);
    closeMessage(id, message, undefined, event);
  }

  function onTurnStarted(event: Extract<AgentEvent, { type: "turn.started" }>): void {
    const lane = laneOf(event);
    let open = steps.get(lane);
    if (open === undefined) {
      open = new Set();
      steps.set(lane, open);
    }
    lastTextMessage.delete(lane);
    if (open.has(event.turnId)) return; // already open: a step name may be open once
    open.add(event.turnId);
    emit("STEP_STARTED", { stepName: event.turnId }, event, lane);
  }

  function onTurnCompleted(event: Extract<AgentEvent, { type: "turn.completed" }>): void {
    const lane = laneOf(event);
    const open = steps.get(lane);
    if (open?.has(event.turnId) !== true) {
      custom(event);
      return;
    }
    open.delete(event.turnId);
    // The model's response is complete: so are the arguments of the calls it made.
    for (const [id, tool] of tools) if (tool.state === "open" && tool.lane === lane) endToolArgs(id, tool, event);
    lastTextMessage.delete(lane);
    const extra = compact({
      status: event.status,
      error: event.error,
      usage: event.usage === undefined ? undefined : usageJson(event.usage),
      costUsd: event.costUsd,
    });
    emit("STEP_FINISHED", { stepName: event.turnId }, event, lane, extra);
  }

  function onPlanUpdated(event: Extract<AgentEvent, { type: "plan.updated" }>): void {
    // The plan is the root agent's state; a subagent's plan would overwrite it, so it stays CUSTOM.
    if (laneOf(event) !== undefined) {
      custom(event);
      return;
    }
    const snapshot: JsonObject = { plan: event.items.map((item) => ({ text: item.text, status: item.status })) };
    if (event.planId !== undefined) snapshot.planId = event.planId;
    emit("STATE_SNAPSHOT", { snapshot }, event);
  }

  /** Our event as CUSTOM `agentstream.<type>`, its fields (without the envelope) as the value. */
  function custom(event: AgentEvent): void {
    const lane = laneOf(event);
    const value = payloadOf(event);
    // The session is already said by the run's threadId or the event's subagentRunId.
    if (value.sessionId === lane || (lane === undefined && value.sessionId === threadId)) delete value.sessionId;
    emit("CUSTOM", { name: `agentstream.${event.type}`, value }, event, lane);
  }

  /**
   * A session.started that opens a run: one with no parent, or the first session of a stream that
   * has no root (a subagent's own transcript is the main agent there, as `summary` counts it).
   */
  function isRootStart(event: AgentEvent): event is Extract<AgentEvent, { type: "session.started" }> {
    if (event.type !== "session.started" || (hasParent(event) && rootSeen)) return false;
    rootSeen = true;
    return true;
  }

  function handle(event: AgentEvent): void {
    if (preamble !== undefined) {
      // Before the first session.started: hold quiet events so RUN_STARTED can carry the session's id.
      if (QUIET_EVENT_TYPES.has(event.type) && preamble.length < MAX_PREAMBLE) {
        preamble.push(event);
        return;
      }
      const root = isRootStart(event);
      releasePreamble(root ? event : undefined, event.sessionId);
      if (root) return;
    }
    if (isRootStart(event)) {
      if (finishing !== undefined) finishRun();
      if (!runActive) startRun(event, undefined);
      else custom(event); // a root session.started inside a running run (a re-sent init): keep its facts
      return;
    }
    ensureRun(event);
    dispatch(event);
  }

  /** Opens the first run and writes the events held before it. */
  function releasePreamble(session: Extract<AgentEvent, { type: "session.started" }> | undefined, threadHint: string | undefined): void {
    const held = preamble ?? [];
    preamble = undefined;
    startRun(session, threadHint ?? held.find((e) => e.sessionId !== undefined)?.sessionId);
    for (const event of held) dispatch(event);
  }

  // Function declarations are hoisted, so the table can name the handlers declared above and below.
  const dispatch = createDispatch<void>(
    {
      "session.started": onSessionStarted,
      "session.completed": onSessionCompleted,
      "turn.started": onTurnStarted,
      "turn.completed": onTurnCompleted,
      "message.started": onMessageStarted,
      "message.delta": onMessageDelta,
      "message.completed": onMessageCompleted,
      "tool.started": onToolStarted,
      "tool.input.delta": onToolInputDelta,
      "tool.progress": onToolProgress,
      "tool.completed": onToolCompleted,
      "plan.updated": onPlanUpdated,
      unknown: (event) =>
        emit("RAW", { event: event.raw, source: event.source?.dialect }, event, laneOf(event), compact({ reason: event.reason })),
    },
    // What AG-UI has no event for travels as CUSTOM `agentstream.<type>`.
    custom,
  );

  function take(): AgUiEvent[] {
    const records = out;
    out = [];
    return records;
  }

  return {
    encode(event) {
      handle(event);
      return take();
    },
    end() {
      if (preamble !== undefined && preamble.length > 0) releasePreamble(undefined, undefined);
      preamble = undefined;
      if (finishing !== undefined) finishRun();
      // An input that ends without its session end: close what is open, but claim neither success
      // (RUN_FINISHED) nor failure (RUN_ERROR); AG-UI has no "incomplete" outcome.
      else if (runActive) closeLane(undefined, true);
      return take();
    },
  };
}

/** A session.started that names a parent session or tool call. */
function hasParent(event: Extract<AgentEvent, { type: "session.started" }>): boolean {
  return event.parentSessionId !== undefined || event.parentToolCallId !== undefined;
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
